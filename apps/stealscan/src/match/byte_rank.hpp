// byte_rank.hpp: how common a byte is in the files people search (source code,
// prose, configuration), as a rank: higher = more common. The pair filter
// (pair_filter.hpp) probes each pattern at its two least common bytes, so that a
// probe hit is rare and verifying it is cheap.
//
// The order is an estimate written by hand from letter frequencies of English and
// of C/C++/shell sources, not a measurement; it only has to get the rough classes
// right (space and lowercase letters common, punctuation and digits middling,
// control bytes and bytes >= 0x80 rare). A wrong guess costs speed, never
// correctness: every probe hit is verified.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace stealscan {

inline constexpr std::array<std::uint8_t, 256> make_byte_commonness() {
  std::array<std::uint8_t, 256> rank{};  // 0: control bytes and bytes >= 0x80
  for (int c = 0x21; c < 0x7f; ++c) rank[c] = 40;           // punctuation
  for (int c = '0'; c <= '9'; ++c) rank[c] = 70;
  for (int c = 'A'; c <= 'Z'; ++c) rank[c] = 60;
  for (int c = 'a'; c <= 'z'; ++c) rank[c] = 100;
  // The most common bytes, most common first; each gets a rank above the classes.
  constexpr std::string_view kOrder =
      " etaoinsrlhdcu\n\tmpfgy_.,bw();=v\"k-*/x0>1:#{}<'2[]&SETACIRNODLPFM";
  for (std::size_t i = 0; i < kOrder.size(); ++i)
    rank[static_cast<unsigned char>(kOrder[i])] = static_cast<std::uint8_t>(255 - i);
  return rank;
}

inline constexpr std::array<std::uint8_t, 256> kByteCommonness = make_byte_commonness();

}  // namespace stealscan

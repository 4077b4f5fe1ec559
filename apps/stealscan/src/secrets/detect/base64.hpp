// base64.hpp: decode_base64(), RFC 4648 base64 in either alphabet (standard
// "+/" or URL-safe "-_"), padding optional. For {"bytes": ...} values in
// reports read back, and for base64 blobs the detector decodes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace stealscan::secrets {

namespace base64_detail {
// The value of each base64 character (both alphabets), 0xff for any other byte.
constexpr std::array<std::uint8_t, 256> make_table() {
  std::array<std::uint8_t, 256> t{};
  for (auto& v : t) v = 0xff;
  for (int i = 0; i < 26; ++i) {
    t[static_cast<std::size_t>('A' + i)] = static_cast<std::uint8_t>(i);
    t[static_cast<std::size_t>('a' + i)] = static_cast<std::uint8_t>(26 + i);
  }
  for (int i = 0; i < 10; ++i) t[static_cast<std::size_t>('0' + i)] = static_cast<std::uint8_t>(52 + i);
  t['+'] = t['-'] = 62;
  t['/'] = t['_'] = 63;
  return t;
}
inline constexpr std::array<std::uint8_t, 256> kValue = make_table();
}  // namespace base64_detail

inline bool is_base64_char(char c) { return base64_detail::kValue[static_cast<unsigned char>(c)] != 0xff; }

// Appends the bytes `in` encodes to `out`. False (and `out` unspecified) when
// `in` holds a byte outside the alphabets, '=' anywhere but at the end, or a
// length no encoding has (one character left over).
inline bool decode_base64(std::string_view in, std::string& out) {
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  if (in.size() % 4 == 1) return false;
  std::uint32_t acc = 0;
  int bits = 0;
  out.reserve(out.size() + in.size() * 3 / 4);
  for (const char c : in) {
    const std::uint8_t v = base64_detail::kValue[static_cast<unsigned char>(c)];
    if (v == 0xff) return false;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return true;
}

}  // namespace stealscan::secrets

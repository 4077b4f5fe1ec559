// entropy.hpp: shannon_entropy(), the Shannon entropy of a string's bytes in bits
// per byte (0 for "", up to 8): what a rule's `entropy` is compared with.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>

#include "secrets/detect/ascii.hpp"

namespace stealscan::secrets {

inline double shannon_entropy(std::string_view s) noexcept {
  if (s.empty()) return 0;
  std::array<std::size_t, 256> counts{};
  for (const char c : s) ++counts[static_cast<unsigned char>(c)];
  const double n = static_cast<double>(s.size());
  double bits = 0;
  for (const std::size_t k : counts) {
    if (k == 0) continue;
    const double p = static_cast<double>(k) / n;
    bits -= p * std::log2(p);
  }
  return bits;
}

// Whether `s` is 32 hex digits or more and nothing else: a key of 128 bits or
// more written in hex, where a rule's `entropyHex` applies. Shorter hex runs
// (ids, timestamps, public key tokens) keep the rule's `entropy`.
inline bool is_long_hex(std::string_view s) noexcept {
  if (s.size() < 32) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return is_hex_digit(static_cast<unsigned char>(c)); });
}

}  // namespace stealscan::secrets

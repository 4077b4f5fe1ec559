// utf8.hpp: UTF-8 validation (RFC 3629: no overlong forms, no surrogates,
// nothing past U+10FFFF), one reading for every part that asks: --json's
// text-or-bytes choice (output/), Unicode mode's patterns and the lines where
// a \b edge is decoded (match/unicode_syntax.hpp).
#pragma once

#include <cstddef>
#include <string_view>

namespace stealscan {

// The length of the valid UTF-8 sequence starting at s[i] (1 for ASCII), or 0
// where none starts there (a stray continuation, a truncated or invalid one).
inline std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  const std::size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  const auto c1 = static_cast<unsigned char>(s[i + 1]);
  if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 > 0x9f) || (c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 > 0x8f))
    return 0;
  for (std::size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  return len;
}

// Whether all of `s` is valid UTF-8.
inline bool is_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

}  // namespace stealscan

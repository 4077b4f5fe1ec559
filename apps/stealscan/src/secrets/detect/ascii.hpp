// ascii.hpp: ASCII helpers: case for keywords and stopwords (lower-cased once
// when the config is read, compared caseless against file bytes), hex digits.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace stealscan::secrets {

inline bool is_hex_digit(int c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

inline char ascii_lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string ascii_lower(std::string s) {
  for (char& c : s) c = ascii_lower(c);
  return s;
}

// Where `text` holds `word` (lower case) in either case, from `from` on; npos if nowhere.
inline std::size_t find_caseless(std::string_view text, std::string_view word, std::size_t from = 0) {
  if (from > text.size()) return std::string_view::npos;
  const auto hit = std::search(text.begin() + static_cast<std::ptrdiff_t>(from), text.end(), word.begin(),
                               word.end(), [](char a, char b) { return ascii_lower(a) == b; });
  return hit == text.end() ? std::string_view::npos : static_cast<std::size_t>(hit - text.begin());
}

// Whether `text` holds `word` (lower case) in either case.
inline bool contains_caseless(std::string_view text, std::string_view word) {
  return find_caseless(text, word) != std::string_view::npos;
}

}  // namespace stealscan::secrets

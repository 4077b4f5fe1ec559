// ascii.hpp: ASCII case helpers for keywords and stopwords (lower-cased once
// when the config is read, compared caseless against file bytes).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace stealscan::secrets {

inline char ascii_lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline std::string ascii_lower(std::string s) {
  for (char& c : s) c = ascii_lower(c);
  return s;
}

// Whether `text` holds `word` (lower case) in either case.
inline bool contains_caseless(std::string_view text, std::string_view word) {
  return std::search(text.begin(), text.end(), word.begin(), word.end(),
                     [](char a, char b) { return ascii_lower(a) == b; }) != text.end();
}

}  // namespace stealscan::secrets

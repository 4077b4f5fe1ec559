// glob.hpp: glob_match(), the wildcard matching of .gitignore patterns (git's
// wildmatch with WM_PATHNAME, the subset gitignore(5) documents):
//   *        any run of bytes but '/'
//   ?        one byte but '/'
//   [abc] [a-z] [!a-z] [^a-z]   one byte of (not of) the set, never '/'
//   \x       x itself
//   **/      at the start or after '/': zero or more whole directories
//   /**      at the end: everything inside
//   a**b     (not a whole segment) two plain stars
// An unterminated '[' matches itself.
#pragma once

#include <string_view>

namespace stealscan {

bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace stealscan

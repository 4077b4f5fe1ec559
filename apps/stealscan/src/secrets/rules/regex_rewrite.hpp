// regex_rewrite.hpp: rewrite_for_re2(), a pattern of Nosey Parker's or
// Kingfisher's rule files (Rust regex syntax) written as RE2 reads it.
//
// Those rules use three things RE2 lacks:
// - verbose mode, `(?x)` (alone, among other flags, or scoped to a group):
//   whitespace is not part of the pattern and `#` starts a comment to the end
//   of the line, everywhere, in character classes too (Rust's reading; an
//   escaped space or `#` is the character itself);
// - comments, `(?#...)`;
// - named groups written `(?<name>...)` (RE2 of Debian 12 knows `(?P<name>`).
// What else differs (lookaround, backreferences, repeats over 1000) is left
// as it is: RE2 then refuses the pattern, and the loader names the rule.
#pragma once

#include <string>
#include <string_view>

namespace stealscan::secrets {

std::string rewrite_for_re2(std::string_view pattern);

}  // namespace stealscan::secrets

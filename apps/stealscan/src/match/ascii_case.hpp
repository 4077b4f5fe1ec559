// ascii_case.hpp: -i and (?i) fold ASCII letters only, as grep does in the C
// locale and as Vectorscan and our pair filter do. RE2 in Latin-1 mode folds
// the Latin-1 letters as well (À-Þ with à-þ), so the same pattern found
// different lines on different engines, and `-o` could print a match (ÉTÉ for
// été) on a line that the line search had not taken for that reason. Every
// regex RE2 compiles for the search goes through ascii_case_only() first.
//
// Where case folding is on (from -i, or a (?i) group, followed through the
// groups' nesting), the pass turns it off around each Latin-1 letter:
//   é, \xE9, \351          ->  (?-i:\xe9)
//   [a-zé], [^é]           ->  (?-i:[A-Za-z\xe9]), (?-i:[^\xe9])
// A class is written out byte by byte, with the other case of its ASCII
// letters added, as RE2 would have folded them. Everything else is copied as
// it is, and so is a class that holds no Latin-1 letter, one with a Unicode
// class (\p..: those patterns run on RE2 alone, regex_syntax.hpp) or one that
// RE2 will reject. One pass, linear in the pattern.
#pragma once

#include <string>
#include <string_view>

namespace stealscan {

// `regex` as RE2 should compile it; `ignore_case`: the search's -i (RE2's
// case_sensitive option off).
std::string ascii_case_only(std::string_view regex, bool ignore_case);

}  // namespace stealscan

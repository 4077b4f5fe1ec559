// re2_text.hpp: re2_text(), a regex as RE2 (Latin-1 mode, Debian 12's
// 20220601) should compile it for the search. Every regex RE2 compiles for the
// search goes through it first. Three jobs, in one pass over RE2's syntax:
//
// - -i and (?i) fold ASCII letters only, as grep does in the C locale and as
//   Vectorscan and our pair filter do. RE2 in Latin-1 mode folds the Latin-1
//   letters as well (À-Þ with à-þ), so the same pattern found different lines
//   on different engines, and `-o` could print a match (ÉTÉ for été) on a
//   line that the line search had not taken for that reason. Where folding is
//   on (from -i, or a (?i) group, followed through the groups' nesting), it is
//   turned off around each Latin-1 letter, and a class that holds one is
//   written out byte by byte, with the other case of its ASCII letters added,
//   as RE2 would have folded them:
//     é, \xE9, \351          ->  (?-i:\xe9{1})
//     [a-zé], [^é]           ->  (?-i:[A-Za-z\xe9]), (?-i:[^\xe9])
// - Every byte >= 0x80 outside a class (and a class of that one byte) is
//   written as a repeat, (?:\xHH{1}). RE2 20220601 factors the common leading
//   literal of an alternation's branches into a literal that loses Latin-1
//   mode: its bytes >= 0x80 are then looked for as UTF-8, and the alternation
//   never matches. `-e café1 -e café2` (UTF-8, so "caf\xc3\xa9" in common)
//   found nothing on RE2, and -o and --json printed nothing for lines the
//   search had taken. A repeat is not a literal, and is not factored.
//
// - In a class, a '[' before ':' that opens no [:name:] (RE2 reads it as a
//   member) is written \[: RE2's parser looks for a ":]" to the end of the
//   text after each "[:", so a rule file's regex of 300,000 bytes of "[:x"
//   took it 9 s (regex_class.hpp, append_class_text()).
//
// Everything else is copied as it is, and so is a class with a Unicode class
// (\p..: those patterns run on RE2 alone, regex_syntax.hpp) or one that RE2
// will reject. One pass, linear in the pattern; a pattern with nothing that
// could name a byte >= 0x80 and no "[:" is returned unchanged.
#pragma once

#include <string>
#include <string_view>

namespace stealscan {

// `regex` as RE2 should compile it; `ignore_case`: the search's -i (RE2's
// case_sensitive option off).
std::string re2_text(std::string_view regex, bool ignore_case);

// The same for RE2 in UTF-8 mode (the search's Unicode mode): only the third
// job. Folding is Unicode's there, as ripgrep's, and the alternation bug is
// Latin-1 mode's.
std::string re2_text_utf8(std::string_view regex);

}  // namespace stealscan

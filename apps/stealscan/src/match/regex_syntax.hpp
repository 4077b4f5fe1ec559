// regex_syntax.hpp: facts about a pattern's text that the engines need before they
// compile it, and the rewrites every engine applies the same way (so that Vectorscan
// and RE2 see one regex per pattern):
//
// - escape_literal(): a -F pattern as a regex that matches exactly its bytes;
// - literal_of_regex(): the reverse, for a regex that is one literal string;
// - self_contained(): a regex whose text means what the pattern means alone,
//   on one line, wherever it is put (every pattern is compiled inside a group,
//   beside the others in one alternation, over blocks of lines);
// - with_match_flags(): -x (whole line) and -w (whole word) as regex wrappers;
// - engine_regex(): the three above together, the text every engine compiles;
// - may_match_newline(): whether a regex could match a '\n'. Vectorscan searches
//   a block of many lines and cannot be told "never match '\n'" (RE2 can:
//   never_nl), so a hit of a pattern that might cross a line end is confirmed on
//   its line by RE2. The answer is conservative: "false" is a promise, "true" may
//   be wrong (it only costs a confirmation). A class is read whole, its ranges
//   included ([\x01-\x7f] holds '\n');
// - newline_literal_at(): where a pattern asks for a '\n' literal, which can
//   never match inside one line (refused, as ripgrep does).
//
// All of it is a single left-to-right pass over the pattern: linear in its length.
// Bracket classes are read, by RE2's rules, through one ClassScanner
// (regex_class.hpp), as re2_text() reads them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stealscan {

enum class PatternSyntax { literal, regex };

struct MatchFlags {
  bool ignore_case = false;  // -i
  bool word = false;         // -w: the match is preceded and followed by a non-word byte or a line edge
  bool line = false;         // -x: the match is the whole line
  // Unicode semantics (unicode_syntax.hpp): code points for `.`, \w, \d, \s,
  // -w and case folding; RE2 in UTF-8 mode. The search's default (ripgrep's);
  // off: bytes, as grep in the C locale (--no-unicode).
  bool unicode = false;
};

// A byte of RE2's \w and of -w's words: [0-9A-Za-z_].
inline bool is_word_byte(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

// An octal digit, as RE2's \0, \012 and \12 escapes use them.
inline bool is_octal(char c) { return c >= '0' && c <= '7'; }

// Appends byte `v` as \xHH (two lower-case hex digits): how every rewrite
// writes a byte that must not be read as syntax.
inline void append_hex_byte(std::string& out, unsigned v) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[(v >> 4) & 15];
  out += kHex[v & 15];
}

// Every byte that is not [0-9A-Za-z_] or >= 0x80 is written as \xHH.
std::string escape_literal(std::string_view literal);

// The bytes a regex matches when it matches only one string: no
// metacharacter (. ^ $ | ? * + ( ) [ ] { }) and no backslash but before ASCII
// punctuation (\. is '.'). nullopt for any other regex. How a bare pattern
// (regex by default, as grep and rg) still takes the literal engines' fast
// paths: `foo`, `a.b\.c` is not one, `a\.b` is "a.b". One pass, linear.
std::optional<std::string> literal_of_regex(std::string_view regex);

// `regex` rewritten, in one pass, so that its text means what the pattern
// means alone and on one line, wherever it is put:
// - no text after it changes what it means. RE2 reads two constructs up to the
//   end of the whole expression, not of the pattern: \Q without \E quotes
//   everything after it, so the \E is added; inside a class, '[' ':' opens a
//   [:name:] if a ":]" comes anywhere later, so where none comes within the
//   pattern (RE2 then reads the '[' as a member) it is written \[. Inside the
//   alternation of several patterns, a ":]" or a ")" of the next one would
//   otherwise be read into it (and the set refused, though each is valid);
// - the text anchors are line anchors: \A is ^, \z is $, and multi-line mode
//   is never turned off ((?-m) and the m of (?i-m:...) are taken out). Each line
//   is searched alone, as grep does; RE2 and Vectorscan would read them as the
//   start and end of the text given to them, a block of lines whose borders
//   depend on how a file is read (and the two engines disagreed on an empty
//   block);
// - the escapes Vectorscan (PCRE's syntax) reads otherwise than RE2 are written
//   as RE2 means them, in classes too: \v is \x0b (PCRE: vertical white space,
//   '\n' included), \s is [\t\n\f\r\x20] and \S its complement (PCRE's \s
//   adds \v) (regex_class.hpp, same_meaning_escape()).
// Outside \Q..\E only; a pattern alone means the same before and after (on
// RE2: the search compiles the result only once RE2 accepted the pattern).
std::string self_contained(std::string_view regex);

// What -w puts before a pattern: a line start or a byte that is no word byte
// (which the match then includes: RE2 has no look-behind).
inline constexpr std::string_view kWordBefore = "(?:^|[^\\w\\n])";

// The same in Unicode mode: a line start or a character that is no word
// character (unicode_syntax.hpp, kWordClass).
inline constexpr std::string_view kWordBeforeUnicode =
    "(?:^|[^\\p{L}\\p{M}\\p{Nd}\\p{Nl}\\p{Pc}\\x{200c}\\x{200d}\\n])";

// What -w puts after a pattern in Unicode mode.
inline constexpr std::string_view kWordAfterUnicode =
    "(?:[^\\p{L}\\p{M}\\p{Nd}\\p{Nl}\\p{Pc}\\x{200c}\\x{200d}\\n]|$)";

// The same two sets for a \b at a pattern's edge (unicode_syntax.hpp), written
// apart ('\n' first) so that RegexMatcher tells them from -w's: ripgrep 13
// counts a byte of invalid UTF-8 as a boundary for \b but not for -w.
inline constexpr std::string_view kBoundaryBeforeUnicode =
    "(?:^|[^\\n\\p{L}\\p{M}\\p{Nd}\\p{Nl}\\p{Pc}\\x{200c}\\x{200d}])";
inline constexpr std::string_view kBoundaryAfterUnicode =
    "(?:[^\\n\\p{L}\\p{M}\\p{Nd}\\p{Nl}\\p{Pc}\\x{200c}\\x{200d}]|$)";

// -x: ^(?:R)$. -w: (?:^|[^\w\n])(R)(?:[^\w\n]|$), whose group 1 is the word
// match (columns and -o report it, not the bytes around it). ignore_case is not
// written into the text (each engine has its own option for it).
std::string with_match_flags(const std::string& regex, const MatchFlags& flags);

// What every engine compiles for `pattern`: escape_literal() or
// self_contained(), then with_match_flags().
std::string engine_regex(std::string_view pattern, PatternSyntax syntax, const MatchFlags& flags);

// What the engines compile for one pattern. Without flags.unicode, re2 and
// bytes are both engine_regex(). With it (unicode_syntax.hpp): re2 is the
// Unicode regex for RE2 in UTF-8 mode, bytes a byte-mode superset for
// Vectorscan; a leading or trailing \b that is a word edge becomes -w's
// wrapper on that side.
struct EngineForms {
  std::string re2;
  std::string bytes;
  bool widened = false;   // bytes may match more than re2 on a line with a byte >= 0x80
  bool re2_only = false;  // bytes is no superset: RE2 alone
  bool grouped = false;   // re2's group 1 holds the match (-w's wrappers)
};
EngineForms engine_forms(std::string_view pattern, PatternSyntax syntax, const MatchFlags& flags);

// The RE2 texts of a set's forms, appended to `out`, each pattern's match in
// the same capture group: where one form is grouped, every other is put in a
// group too. Returns that group (RegexMatcher's): 1, or 0 when none is.
int re2_texts(std::vector<EngineForms>& forms, std::vector<std::string>& out);

// The capture group of with_match_flags()'s result that holds the match: 1 with
// -w, else 0 (the whole match).
inline int match_group(const MatchFlags& flags) { return flags.word && !flags.line ? 1 : 0; }

// False only when no string that the regex matches contains '\n' (see above).
bool may_match_newline(std::string_view regex);

// True only when a match of the regex can hold a '\n' as its last byte and
// nowhere else: the regex ends in a group (?:C|$) or (?:C|\z), C one class
// (a bracket class or an escape such as \s), after a part that cannot match
// a '\n'. The usual way to end a token with "a byte that cannot continue it,
// or the end" (RE2 has no lookahead), which takes the line's newline along
// when the token ends its line: such a match stays on one line, with that
// line's newline at most.
bool newline_only_last(std::string_view regex);

// A \x escape at r[i] (r[i] == '\\', r[i + 1] == 'x'): its value and length
// (\xHH or \x{H...}), or value -1 when it is not well formed (RE2 rejects it).
struct HexEscape {
  long value = -1;
  std::size_t length = 2;
};
HexEscape hex_escape(std::string_view r, std::size_t i);

// Whether the regex uses a Unicode class (\p{..}, \pL, \P..). RE2 reads them
// over Latin-1 bytes; Vectorscan without UTF-8 mode does not agree, so such
// patterns run on RE2 alone.
bool has_unicode_class(std::string_view regex);

// The position of an escape outside a character class that denotes '\n' itself
// (\n, \x0a, \x{a}, \012, \12: byte_escape()), or of a class that holds nothing but '\n'; nullopt if
// there is none.
std::optional<std::size_t> newline_literal_at(std::string_view regex);

}  // namespace stealscan

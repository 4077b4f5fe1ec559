// regex_class.hpp: bracket classes ([a-z], [^\n], [[:alpha:]_]) read by RE2's
// rules, once for every pass over a pattern's text. Four passes need them:
// self_contained() and may_match_newline() and newline_literal_at()
// (regex_syntax.hpp), and re2_text() (re2_text.hpp). Each used to find a
// class's end with a loop of its own, and the loops disagreed: "[[:a]\n" (a
// class of '[', ':' and 'a', then a '\n') was refused by none, so it matched
// nothing instead of being refused; and a range such as [\x01-\x7f], which
// holds '\n', was taken for one that cannot match a line end.
//
// RE2's rules (re2/parse.cc), over Latin-1 bytes:
// - a ']' right after the '[' or "[^" is a member, the next ']' ends the class;
// - an escape is a member of at least two bytes: the backslash and the byte
//   after it; what may follow (\x{..}'s digits) is never ']' or "[:";
// - "[:" opens a [:name:] if a ":]" comes anywhere later in the text (RE2
//   looks that far, and refuses a bad name), else the '[' is a member;
// - a member, '-', a member is a range; a '-' first or last is a member.
//
// Linear time: a scanner knows where the text's last ":]" is, so no "[:" that
// opens nothing costs a search to the end.
#pragma once

#include <bitset>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace stealscan {

using ByteSet = std::bitset<256>;

// One class: text[open] == '[', text[close] == ']'.
struct BracketClass {
  std::size_t open;
  std::size_t first;  // the first member: after the '[' and its '^'
  std::size_t close;
  bool negated;
};

class ClassScanner {
 public:
  explicit ClassScanner(std::string_view text) noexcept : r_(text), last_name_close_(text.rfind(":]")) {}

  // The class that text[open] == '[' opens; nullopt if it never closes (RE2
  // refuses the pattern).
  std::optional<BracketClass> at(std::size_t open) const noexcept;

  // The length of the member at text[j], j inside a class: an escape's two
  // bytes, a [:name:] up to its ":]", else one byte.
  std::size_t member_length(std::size_t j) const noexcept;

  // Where the ":]" is that closes the [:name:] text[j] == '[' opens, or npos:
  // no "[:" there, or no ":]" after it (the '[' is then a plain member).
  std::size_t name_close(std::size_t j) const noexcept;

 private:
  std::string_view r_;
  std::size_t last_name_close_;  // the text's last ":]", or npos
};

// Appends class `c` of `scanner`'s text to `out` as it is, but for a '[' before
// ':' that opens no [:name:]: RE2 reads it as a member, and it is written \[.
// Then no ":]" put after the class (the next pattern of a set) can make it a
// name, and RE2's parser, which looks for one to the end of the text after
// each "[:", does not: 300,000 bytes of "[:x" took it 9 s.
// With EscapeText::same_meaning, also each escape that Vectorscan reads
// otherwise than RE2 (same_meaning_escape()): for the text every engine
// compiles, from a pattern RE2 has accepted alone (a \s cannot end a range
// there; rewritten, [\s-z] would be a valid class).
enum class EscapeText { as_written, same_meaning };
void append_class_text(std::string& out, std::string_view r, const ClassScanner& scanner, const BracketClass& c,
                       EscapeText escapes = EscapeText::as_written);

// The escape \e (`e` the byte after the backslash) written so that RE2 and
// Vectorscan read it alike, as RE2 means it, inside a class (`in_class`) or
// outside; nullptr where they read it alike already. Vectorscan follows PCRE:
//   \v  RE2: the vertical tab; PCRE: vertical white space, \n \v \f \r \x85
//   \s  RE2: [\t\n\f\r ]; PCRE adds \v, and \S leaves it out
// Left as they were, `-E 'a[\v]b'` found "a" and "b" across a line end on
// Vectorscan, and `-E 'a\Sb'` missed "a\vb" there (RE2 found it).
const char* same_meaning_escape(char e, bool in_class) noexcept;

// A byte that an escape at r[i] == '\\' stands for: \xHH, \x{H..}, octal
// (\0, \012, \12; a lone \1-\7 is a back-reference RE2 refuses), \a \f \n \r
// \t \v, and an escaped ASCII punctuation byte; and the escape's length.
// nullopt for anything else (a class such as \d, an assertion, \p..).
struct Escaped {
  unsigned value;
  std::size_t length;
};
std::optional<Escaped> byte_escape(std::string_view r, std::size_t i);

// The ASCII letters' other case added: what (?i) does to a class in the C locale.
ByteSet ascii_fold(ByteSet s);

// The members of class `c` of `scanner`'s text, before its negation, folded as
// (?i) folds in the C locale when `fold`; nullopt for a class that only RE2
// should read (a Unicode class \p.., a name or an escape RE2 refuses, a range
// backwards).
std::optional<ByteSet> class_members(std::string_view r, const ClassScanner& scanner, const BracketClass& c, bool fold);

}  // namespace stealscan

// unicode_syntax.hpp: a regex's Unicode meaning (the search's default, as
// ripgrep's) written for the two engines, which read text differently:
//
// - RE2, in UTF-8 mode, reads code points: `.` and a negated class match one
//   code point (never a byte of invalid UTF-8), and (?i) folds by Unicode's
//   simple case folding (é with É, σ with Σ and ς, k with K and the Kelvin
//   sign). Its \w \d \s and \b stay ASCII, so unicode_forms() writes the Perl
//   classes out as Unicode classes (kWordClass, kDigitClass, kSpaceClass), and
//   takes a \b at either end of the pattern out where it can be an edge
//   wrapper (below).
// - Vectorscan runs in byte mode (its UTF-8 mode is undefined on invalid
//   UTF-8, which any file may hold), over a *superset*: each construct whose
//   Unicode meaning differs from its byte meaning may also match one encoded
//   code point (kCodePoint: a lead byte and one to three continuation bytes).
//   On a line of ASCII bytes the superset matches exactly what the Unicode
//   regex matches; on any other line a hit is confirmed by RE2
//   (vectorscan_matcher.hpp).
//
// Edge \b: RE2 has no Unicode word boundary. A pattern `\bR`, where R starts
// with a word-only atom (a word byte, \w, \d, a class of word bytes), matches
// where R matches after a line start or a non-word character: -w's leading
// wrapper. Likewise `R\b` where R ends with one (not under * or ?): -w's
// trailing wrapper. Such a \b is taken out and its side reported
// (word_before, word_after); with_match_flags() then writes the wrappers with
// the Unicode word class. Any other \b or \B keeps RE2's ASCII meaning
// (documented: a non-ASCII word character counts as a non-word byte there).
//
// One left-to-right pass over the pattern, linear in its length.
#pragma once

#include <string>
#include <string_view>

#include "sources/utf8.hpp"  // is_utf8(): RE2 refuses a UTF-8 pattern that is not

namespace stealscan {

// Unicode \w as ripgrep defines it (letters, marks, decimal digits, connector
// punctuation, the joiners), \d and \s (White_Space, '\n' left out: a match
// never holds one), as the members of an RE2 class.
inline constexpr std::string_view kWordClass = "\\p{L}\\p{M}\\p{Nd}\\p{Nl}\\p{Pc}\\x{200c}\\x{200d}";
inline constexpr std::string_view kDigitClass = "\\p{Nd}";
inline constexpr std::string_view kSpaceClass =
    "\\t\\x0b\\f\\r\\x20\\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}";

// One encoded code point above U+007F, in byte-mode syntax.
inline constexpr std::string_view kCodePoint = "[\\xc2-\\xf4][\\x80-\\xbf]{1,3}";

struct UnicodeForms {
  std::string re2;        // for RE2 in UTF-8 mode
  std::string bytes;      // for Vectorscan in byte mode: a superset of re2's matches
  bool widened = false;   // bytes matches more than re2 on some non-ASCII line: confirm such hits
  bool re2_only = false;  // no byte superset is written (\p classes, folded \Q..\E text): RE2 alone
  bool word_before = false;  // a leading \b was taken out (see above)
  bool word_after = false;   // a trailing \b was taken out
  // Where the edge atom is ASCII only, `bytes` keeps that \b (a byte \b is
  // then the superset, and Vectorscan's own assertion is cheaper than -w's
  // wrapper); the wrapper goes on the RE2 side only.
  bool bytes_keep_before = false;
  bool bytes_keep_after = false;
};

// `regex` (RE2's syntax, a valid pattern) in both forms; `ignore_case`: -i.
// Throws PatternError for what has no Unicode form here: \W \D \S inside a
// class beside other members (use --no-unicode).
UnicodeForms unicode_forms(std::string_view regex, bool ignore_case);

// Whether a fixed string under -i folds to text that ASCII folding misses: it
// holds a byte >= 0x80, or k, s (which fold with the Kelvin sign and long s).
bool folds_beyond_ascii(std::string_view literal);


// Whether the character that ends at `pos` of `line` (before = true) or
// starts there (before = false) is a word character (kWordClass). A line edge,
// and a byte of invalid UTF-8, are not: ripgrep's reading, where an invalid
// byte is a word boundary.
bool word_char_at(std::string_view line, std::size_t pos, bool before);

// Whether any byte of [p, p + n) is >= 0x80.
bool has_high_byte(const char* p, std::size_t n);

}  // namespace stealscan

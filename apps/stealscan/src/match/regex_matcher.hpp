// regex_matcher.hpp: RegexMatcher, patterns on RE2: the exact matches within a
// line (columns for --json and -o), and the whole search for the patterns
// Vectorscan rejects (vectorscan_matcher.hpp).
//
// Semantics: with MatchFlags::unicode (the search's default), ripgrep's on
// UTF-8: RE2 in UTF-8 mode over the Unicode forms of unicode_syntax.hpp (code
// points, Unicode \w \d \s, simple case folding; an invalid byte matches no
// class and no `.`). Without it, grep -E's in the C locale: bytes (RE2's
// Latin-1 mode: `.` is one byte, a UTF-8 literal in a pattern matches its
// bytes). `^` and `$` match at line starts and ends. RE2's syntax is
// Perl-like: grep's back-references are not supported (RE2 rejects them with a
// message), `\d`, `\b`, `(?i)` are.
//
// A match never spans lines: every program is compiled with RE2's never_nl, so no
// part of a pattern matches '\n' (`a[^x]*b` does not match "a\nb"; `\s` is
// [\t\f\r ]). So find() searches a whole block of lines with one DFA pass and its
// leftmost match lies in one line; time stays linear in the block, whatever the
// pattern.
#pragma once

#include <re2/re2.h>

#include <memory>
#include <string>
#include <vector>

#include "match/matcher.hpp"

namespace stealscan {

class RegexMatcher final : public Matcher {
 public:
  // `shown`: the patterns as the user gave them (for messages and --json);
  // `regexes`: the same patterns as the regexes to run (escaped literals and the
  // -w/-x wrappers of regex_syntax.hpp), one per pattern. `syntax`: what the
  // user wrote; all_in_line() reports a literal's overlapping occurrences, as
  // LiteralMatcher does. `columns`: whether all_in_line() is wanted (it compiles
  // one program per pattern). `group`: the capture group that holds a match
  // (engine_forms()' grouped: 1), or -1: match_group(flags).
  RegexMatcher(std::vector<std::string> shown, std::vector<std::string> regexes, const MatchFlags& flags,
               PatternSyntax syntax, bool columns = true, int group = -1);

  // With -w, the match find() reports includes the non-word bytes around the word
  // (it is found by one program for all patterns, without submatches); it lies
  // in the word's line. all_in_line() reports the word alone.
  [[nodiscard]] std::optional<Match> find(const char* text, const char* from, const char* end) const override;
  // With -w, the word itself (the leftmost word match among the patterns).
  [[nodiscard]] std::optional<Match> next_match(const char* line, const char* from, const char* end) const override;
  void all_in_line(const char* line, const char* line_end, std::vector<Match>& out) const override;
  [[nodiscard]] std::optional<std::size_t> max_match_length() const override { return std::nullopt; }
  [[nodiscard]] const std::string& pattern(std::uint32_t index) const override { return shown_[index]; }
  // A clone compiles its programs when it first uses them: a worker that never
  // needs columns or a confirmation never compiles (a 100,000-byte alternation
  // costs RE2 about 0.1 s per program).
  [[nodiscard]] std::unique_ptr<Matcher> clone() const override { return std::unique_ptr<Matcher>(new RegexMatcher(*this)); }

  // RE2's options for every program: Latin-1, never_nl, case from `flags`.
  static RE2::Options options(const MatchFlags& flags);

 private:
  std::vector<std::string> shown_;
  std::vector<std::string> regexes_;
  MatchFlags flags_;
  int group_ = 0;
  RegexMatcher(const RegexMatcher& other);  // clone(): the texts, not the programs
  const RE2& any() const;                    // compiled on first use
  const RE2& each(std::uint32_t k) const;
  // The match (its group_) of pattern k in the line t that starts first at or
  // after `from`, if any.
  std::optional<re2::StringPiece> first_from(std::uint32_t k, re2::StringPiece t, std::size_t from) const;
  // -w's program without its line-start alternative; null for a pattern
  // without -w's prefix.
  const RE2* line_start_less(std::uint32_t k) const;

  bool literal_;  // the patterns are -F literals: all_in_line() reports overlapping occurrences
  bool columns_;
  std::string all_;  // the alternation of every regex, for find()
  // Programs, compiled when first used (this object is one thread's: clone()).
  mutable std::vector<std::unique_ptr<RE2>> each_;  // one per pattern (if columns_), for all_in_line()
  mutable std::unique_ptr<RE2> any_;                // all_'s, for find()
  mutable std::vector<std::unique_ptr<RE2>> line_start_less_;  // -w only, when first needed (first_from())

  // Unicode mode, a pattern whose edge \b became wrappers (kBoundary*): RE2's
  // classes cannot match a byte of invalid UTF-8, which ripgrep counts as a
  // word boundary for \b (not for -w). On a line that is not valid UTF-8 such
  // a pattern is searched bare ("(R)") and each match's edges are checked by
  // word_char_at() (unicode_syntax.hpp).
  struct Edges {
    bool before = false, after = false;
  };
  std::vector<Edges> edges_;        // per pattern; empty unless Unicode mode and group_ == 1
  std::vector<std::string> bare_;   // per pattern: the regex without its wrappers
  mutable std::vector<std::unique_ptr<RE2>> bare_re_;
  mutable const char* checked_line_ = nullptr;  // the last line line_is_utf8() read, and its answer
  mutable std::size_t checked_size_ = 0;
  mutable bool checked_utf8_ = true;
  bool line_is_utf8(re2::StringPiece t) const;
  std::optional<re2::StringPiece> first_from_bare(std::uint32_t k, re2::StringPiece t, std::size_t from) const;
  // find()'s answer where lines before its match hold invalid UTF-8.
  std::optional<Match> find_beside_invalid(const char* text, const char* from, const char* end,
                                           std::optional<Match> strict) const;
};

// Checks a user's regex as RE2 reads it; throws PatternError naming it, with
// RE2's reason, or the position of a '\n' it asks for.
void check_regex(const std::string& regex, const MatchFlags& flags);

}  // namespace stealscan

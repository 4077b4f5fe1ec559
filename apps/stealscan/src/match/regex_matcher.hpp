// regex_matcher.hpp: RegexMatcher, --regex patterns on RE2.
//
// Semantics are grep -E's in the C locale, as far as RE2's syntax allows: bytes,
// not characters (RE2's Latin-1 mode: `.` is one byte, a UTF-8 literal in a
// pattern matches its bytes); `^` and `$` match at line starts and ends; a match
// never spans lines. RE2's syntax is Perl-like: grep's back-references are not
// supported (RE2 rejects them with a message), `\d`, `\b`, `(?i)` are.
//
// find() searches one RE2 program, the alternation (?m)(?:p0)|(?:p1)|..., over the
// whole block of lines at once: RE2 runs a DFA over the block, which is much
// faster than one call per line. A match that crosses a '\n' (`a[^x]*b` over
// "a\nab") is not a line match; then the line where it starts is searched alone
// (no match can start earlier, because the block's match was the leftmost), and
// if it holds none the search goes on from the next line.
#pragma once

#include <re2/re2.h>

#include <memory>
#include <string>
#include <vector>

#include "match/matcher.hpp"

namespace stealscan {

class RegexMatcher final : public Matcher {
 public:
  explicit RegexMatcher(std::vector<std::string> patterns);

  [[nodiscard]] std::optional<Match> find(const char* text, const char* from, const char* end) const override;
  void all_in_line(const char* line, const char* line_end, std::vector<Match>& out) const override;
  [[nodiscard]] std::optional<std::size_t> max_match_length() const override { return std::nullopt; }
  [[nodiscard]] const std::string& pattern(std::uint32_t index) const override { return patterns_[index]; }
  [[nodiscard]] std::unique_ptr<Matcher> clone() const override { return std::make_unique<RegexMatcher>(patterns_); }

 private:
  std::vector<std::string> patterns_;
  std::vector<std::unique_ptr<RE2>> each_;  // one per pattern, for all_in_line()
  std::unique_ptr<RE2> any_;                // their alternation, for find()
};

}  // namespace stealscan

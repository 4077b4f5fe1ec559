// vectorscan_matcher.hpp: VectorscanMatcher, the engine for everything but a few
// plain literals: many literals (9 to tens of thousands), regexes, -i, -w, -x.
//
// The whole pattern set is compiled once into one Vectorscan (Hyperscan API)
// database, shared by every clone; each worker's clone owns its scratch.
// matching_lines() is one pass of Vectorscan over a block of lines, whatever
// the number of patterns, and a second one over a copy of its last lines with
// padding after them (Vectorscan 5.4.9 misses some matches that end in the
// last 32 bytes of the data: scan_tail() in the .cpp). matching_lines_padded(),
// where the caller lends the bytes after the block, writes that padding in
// place and makes the one pass only (the bytes are put back). Vectorscan reports where matches END (no
// starts: asking for them costs speed and rejects patterns); every end is mapped
// to the line holding it:
//
// - A pattern that cannot match '\n' (regex_syntax.hpp: may_match_newline()) ends
//   in the line it started in: the line matches, nothing more to check.
// - A pattern that may match '\n' (`\s`, `[^x]`, `(?s)`) may report a match that
//   crossed a line end, which is no line match. Its line is confirmed by RE2 on
//   that line alone (never_nl); each line at most once. Every true line match
//   ends inside its line and Vectorscan reports every match end, so no matching
//   line is missed; the confirmation removes the false ones.
// - In Unicode mode (MatchFlags::unicode) Vectorscan runs each pattern's byte
//   superset (unicode_syntax.hpp), which is exact on ASCII text: a hit on a
//   line that holds a byte >= 0x80 is confirmed by RE2 (the Unicode regex, on
//   that line); a hit on an ASCII line is taken as it is.
// - Patterns Vectorscan rejects (too large, constructs it lacks) run on RE2
//   (RegexMatcher, linear: never_nl), over the same block; the two line lists are
//   merged.
//
// Matches reach the callback in order of their end in practice; the line list is
// sorted if one ever came out of order. Vectorscan's `^` follows PCRE and does not
// match after a '\n' that ends the data: an empty last line of the block is
// checked apart (once per pattern set, by RE2). All of this is linear in the block.
// Columns (--json, -o) come from RE2 or the literal matcher on matching lines only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "match/matcher.hpp"
#include "match/regex_matcher.hpp"

struct hs_scratch;

namespace stealscan {

class VectorscanMatcher final : public Matcher {
 public:
  // Throws PatternError for a regex RE2 rejects (RE2's syntax is the one users
  // write) or one asking for '\n'.
  VectorscanMatcher(const std::vector<std::string>& patterns, PatternSyntax syntax, const MatchFlags& flags);
  VectorscanMatcher(const VectorscanMatcher& other);  // shares the database; its own scratch
  VectorscanMatcher& operator=(const VectorscanMatcher&) = delete;
  ~VectorscanMatcher() override;

  void matching_lines_padded(char* text, char* end, std::vector<std::size_t>& out, bool first_only) const override;
  void matching_lines(const char* text, const char* end, std::vector<std::size_t>& out,
                      bool first_only) const override;
  // The exact leftmost match (RE2 or the literal matcher): correct, but the
  // scanner asks matching_lines(), which is much faster.
  [[nodiscard]] std::optional<Match> find(const char* text, const char* from, const char* end) const override {
    return columns_->find(text, from, end);
  }
  [[nodiscard]] std::optional<Match> next_match(const char* line, const char* from, const char* end) const override {
    return columns_->next_match(line, from, end);
  }
  void all_in_line(const char* line, const char* line_end, std::vector<Match>& out) const override {
    columns_->all_in_line(line, line_end, out);
  }
  [[nodiscard]] std::optional<std::size_t> max_match_length() const override;
  [[nodiscard]] const std::string& pattern(std::uint32_t index) const override { return columns_->pattern(index); }
  [[nodiscard]] std::unique_ptr<Matcher> clone() const override { return std::make_unique<VectorscanMatcher>(*this); }

  // How many patterns run where (for --stats and tests).
  struct Plan {
    std::size_t vectorscan = 0;  // in the database
    std::size_t confirmed = 0;   // of those, confirmed by RE2 per line
    std::size_t re2_only = 0;    // rejected by Vectorscan
  };
  [[nodiscard]] Plan plan() const;

 private:
  struct Database;
  struct Scan;
  static int on_match(unsigned id, unsigned long long from, unsigned long long to, unsigned flags, void* context);
  void scan(const char* text, std::size_t size, Scan& s) const;       // one hs_scan
  void scan_tail(const char* text, std::size_t size, std::size_t from, Scan& s) const;  // lines from `from`, padded
  // matching_lines() and matching_lines_padded(): `writable` null, or `text`
  // itself when the kWritableAfter bytes after `end` are lent.
  void lines(const char* text, const char* end, char* writable, std::vector<std::size_t>& out, bool first_only) const;

  // Frees a scratch when the matcher is destroyed, and when its constructor
  // throws after allocating one (a pattern set RE2 refuses as a whole).
  struct FreeScratch {
    void operator()(hs_scratch* s) const noexcept;
  };

  std::shared_ptr<const Database> db_;
  std::unique_ptr<hs_scratch, FreeScratch> scratch_;
  std::unique_ptr<Matcher> columns_;        // exact matches within a line
  std::unique_ptr<RegexMatcher> confirm_;   // the patterns whose hits are confirmed
  std::unique_ptr<RegexMatcher> rest_;      // the patterns Vectorscan rejected
  bool empty_line_matches_ = false;         // see the constructor
  mutable std::string tail_;                // scan_tail()'s copy (this clone's: one thread's)
};

}  // namespace stealscan

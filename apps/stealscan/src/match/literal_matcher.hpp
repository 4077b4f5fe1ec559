// literal_matcher.hpp: LiteralMatcher, fixed-string patterns: the search engine for
// a few plain literals (make_matcher() picks it for 1 to 3), and the exact
// columns of matching lines for plain literal sets of any size (--json), behind
// VectorscanMatcher. Up to kPairFilterMaxPatterns non-empty patterns run on the
// pair filter (pair_filter.hpp); more run on a Rabin-Karp search over a hash of
// each pattern's first w bytes (w = the shortest pattern's length), slower but
// independent of the number of patterns (only matching lines reach it). An empty pattern matches every line, as
// with grep -F -e ''.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "match/matcher.hpp"
#include "match/pair_filter.hpp"

namespace stealscan {

class LiteralMatcher final : public Matcher {
 public:
  explicit LiteralMatcher(std::vector<std::string> patterns);
  LiteralMatcher(const LiteralMatcher& other);
  LiteralMatcher& operator=(const LiteralMatcher&) = delete;

  [[nodiscard]] std::optional<Match> find(const char* text, const char* from, const char* end) const override;
  void all_in_line(const char* line, const char* line_end, std::vector<Match>& out) const override;
  [[nodiscard]] std::optional<std::size_t> max_match_length() const override { return max_length_; }
  [[nodiscard]] const std::string& pattern(std::uint32_t index) const override { return patterns_[index]; }
  [[nodiscard]] std::unique_ptr<Matcher> clone() const override { return std::make_unique<LiteralMatcher>(*this); }

 private:
  // Rabin-Karp over the non-empty patterns (more than the pair filter takes).
  struct RabinKarp {
    std::uint32_t window = 0;          // bytes hashed: the shortest pattern's length
    std::uint32_t drop = 1;            // kBase^(window-1): removes the byte leaving the window
    std::uint32_t mask = 0;            // bucket count - 1
    std::vector<std::uint32_t> first;  // bucket -> first index in `chain`, buckets+1 entries
    std::vector<std::uint32_t> chain;  // pattern indices grouped by bucket, ascending
  };

  void build();
  [[nodiscard]] const char* find_nonempty(const char* from, const char* end, std::uint32_t* pattern) const;
  [[nodiscard]] const char* rabin_karp_find(const char* from, const char* end, std::uint32_t* pattern) const;
  [[nodiscard]] bool matches_at(std::uint32_t k, const char* s, const char* end) const;

  std::vector<std::string> patterns_;           // as given (indices are the user's)
  std::vector<std::uint32_t> nonempty_;         // indices of the non-empty ones, ascending
  std::optional<std::uint32_t> empty_pattern_;  // the lowest index of an empty pattern
  std::size_t max_length_ = 0;
  PairFilter pair_;                             // when nonempty_.size() <= kPairFilterMaxPatterns
  PairFindFn pair_find_ = nullptr;
  RabinKarp rk_;                                // otherwise
};

}  // namespace stealscan

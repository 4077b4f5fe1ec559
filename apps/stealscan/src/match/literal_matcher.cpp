// literal_matcher.cpp: LiteralMatcher (literal_matcher.hpp).
#include "match/literal_matcher.hpp"

#include <algorithm>
#include <cstring>

namespace stealscan {
namespace {
constexpr std::uint32_t kBase = 0x01000193;  // an odd multiplier: every byte position counts
}

LiteralMatcher::LiteralMatcher(std::vector<std::string> patterns) : patterns_(std::move(patterns)) {
  if (patterns_.empty()) throw PatternError("no pattern given");
  for (const auto& p : patterns_)
    if (p.find('\n') != std::string::npos) throw PatternError("pattern " + quote_pattern(p) + " contains a newline");
  build();
}

// A copy re-plans: pair_ points into patterns_, which the copy owns anew.
LiteralMatcher::LiteralMatcher(const LiteralMatcher& other) : Matcher(other), patterns_(other.patterns_) { build(); }

void LiteralMatcher::build() {
  nonempty_.clear();
  std::vector<std::string> nonempty_text;
  for (std::uint32_t k = 0; k < patterns_.size(); ++k) {
    if (patterns_[k].size() > max_length_) max_length_ = patterns_[k].size();
    if (patterns_[k].empty()) {
      if (!empty_pattern_) empty_pattern_ = k;
    } else {
      nonempty_.push_back(k);
    }
  }
  if (nonempty_.empty()) return;
  if (nonempty_.size() <= kPairFilterMaxPatterns) {
    // plan() keeps pointers into its argument's strings: hand it patterns_' own.
    std::vector<std::string> view;
    for (auto k : nonempty_) view.push_back(patterns_[k]);
    pair_ = PairFilter::plan(view);
    for (std::uint32_t i = 0; i < pair_.count; ++i) pair_.data[i] = patterns_[nonempty_[i]].data();
    pair_find_ = pair_find_for_this_cpu();
    return;
  }
  rk_.window = UINT32_MAX;
  for (auto k : nonempty_) rk_.window = std::min<std::uint32_t>(rk_.window, static_cast<std::uint32_t>(patterns_[k].size()));
  rk_.drop = 1;
  for (std::uint32_t i = 1; i < rk_.window; ++i) rk_.drop *= kBase;
  std::uint32_t buckets = 64;
  while (buckets < 4 * nonempty_.size()) buckets *= 2;
  rk_.mask = buckets - 1;
  std::vector<std::uint32_t> bucket_of(nonempty_.size());
  std::vector<std::uint32_t> sizes(buckets, 0);
  for (std::size_t i = 0; i < nonempty_.size(); ++i) {
    std::uint32_t h = 0;
    for (std::uint32_t j = 0; j < rk_.window; ++j) h = h * kBase + static_cast<unsigned char>(patterns_[nonempty_[i]][j]);
    bucket_of[i] = h & rk_.mask;
    ++sizes[bucket_of[i]];
  }
  rk_.first.assign(buckets + 1, 0);
  for (std::uint32_t b = 0; b < buckets; ++b) rk_.first[b + 1] = rk_.first[b] + sizes[b];
  rk_.chain.assign(nonempty_.size(), 0);
  std::vector<std::uint32_t> fill(rk_.first.begin(), rk_.first.end() - 1);
  for (std::size_t i = 0; i < nonempty_.size(); ++i) rk_.chain[fill[bucket_of[i]]++] = nonempty_[i];  // ascending
}

bool LiteralMatcher::matches_at(std::uint32_t k, const char* s, const char* end) const {
  const std::string& p = patterns_[k];
  return static_cast<std::size_t>(end - s) >= p.size() && std::memcmp(s, p.data(), p.size()) == 0;
}

const char* LiteralMatcher::rabin_karp_find(const char* from, const char* end, std::uint32_t* pattern) const {
  const std::uint32_t w = rk_.window;
  if (static_cast<std::size_t>(end - from) < w) return nullptr;
  std::uint32_t h = 0;
  for (std::uint32_t j = 0; j < w; ++j) h = h * kBase + static_cast<unsigned char>(from[j]);
  for (const char* s = from;; ++s) {
    const std::uint32_t b = h & rk_.mask;
    for (std::uint32_t i = rk_.first[b]; i < rk_.first[b + 1]; ++i) {
      if (matches_at(rk_.chain[i], s, end)) {
        *pattern = rk_.chain[i];
        return s;
      }
    }
    if (s + w >= end) return nullptr;
    h = (h - static_cast<unsigned char>(s[0]) * rk_.drop) * kBase + static_cast<unsigned char>(s[w]);
  }
}

const char* LiteralMatcher::find_nonempty(const char* from, const char* end, std::uint32_t* pattern) const {
  if (nonempty_.empty() || from >= end) return nullptr;
  if (pair_find_ != nullptr) {
    std::uint32_t i = 0;
    const char* s = pair_find_(pair_, from, end, &i);
    if (s != nullptr) *pattern = nonempty_[i];
    return s;
  }
  return rabin_karp_find(from, end, pattern);
}

std::optional<Match> LiteralMatcher::find(const char* /*text*/, const char* from, const char* end) const {
  if (empty_pattern_) {
    // Everything matches at `from`; a lower-indexed non-empty pattern there wins.
    for (auto k : nonempty_) {
      if (k > *empty_pattern_) break;
      if (matches_at(k, from, end)) return Match{from, static_cast<std::uint32_t>(patterns_[k].size()), k};
    }
    return Match{from, 0, *empty_pattern_};
  }
  std::uint32_t k = 0;
  const char* s = find_nonempty(from, end, &k);
  if (s == nullptr) return std::nullopt;
  return Match{s, static_cast<std::uint32_t>(patterns_[k].size()), k};
}

void LiteralMatcher::all_in_line(const char* line, const char* line_end, std::vector<Match>& out) const {
  out.clear();
  const char* from = line;
  std::uint32_t k = 0;
  while (const char* s = find_nonempty(from, line_end, &k)) {
    // k is the lowest pattern at s; others starting at s have higher indices.
    for (auto j : nonempty_)
      if (j == k || (j > k && matches_at(j, s, line_end)))
        out.push_back(Match{s, static_cast<std::uint32_t>(patterns_[j].size()), j});
    from = s + 1;
  }
  if (empty_pattern_) {  // one empty match at the line start, in (start, pattern) order
    const std::uint32_t e = *empty_pattern_;
    auto at = std::find_if(out.begin(), out.end(), [&](const Match& m) { return m.begin > line || m.pattern > e; });
    out.insert(at, Match{line, 0, e});
  }
}

}  // namespace stealscan

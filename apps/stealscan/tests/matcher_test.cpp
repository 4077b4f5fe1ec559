// The matchers against a naive search: every pair-filter kernel the CPU runs, the
// Rabin-Karp path for many patterns, empty patterns, and RE2's line rules.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "match/literal_matcher.hpp"
#include "match/matcher.hpp"
#include "match/pair_filter.hpp"
#include "match/regex_matcher.hpp"

namespace stealscan {
// Named after the file: test binaries compile several files as one unit.
namespace matcher_test {
namespace {

struct Naive {
  const char* at;
  std::uint32_t pattern;
};

// Leftmost start, lowest index: what find() must return.
std::optional<Naive> naive_find(const std::vector<std::string>& pats, const char* from, const char* end) {
  for (const char* s = from; s <= end; ++s)
    for (std::uint32_t k = 0; k < pats.size(); ++k)
      if (static_cast<std::size_t>(end - s) >= pats[k].size() && std::equal(pats[k].begin(), pats[k].end(), s))
        return Naive{s, k};
  return std::nullopt;
}

std::string random_text(std::mt19937& rng, std::size_t n, const std::string& alphabet) {
  std::string s(n, ' ');
  for (auto& c : s) c = alphabet[rng() % alphabet.size()];
  return s;
}

// A RegexMatcher over regexes as the user wrote them, without -i/-w/-x.
RegexMatcher regex(const std::vector<std::string>& patterns) {
  return RegexMatcher(patterns, patterns, {}, PatternSyntax::regex);
}

std::vector<PairFindFn> kernels() {
  std::vector<PairFindFn> k{&detail::pair_find_portable};
#if defined(__x86_64__)
  k.push_back(&detail::pair_find_sse2);
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) k.push_back(&detail::pair_find_avx2);
#endif
  return k;
}

TEST(PairFilter, every_kernel_finds_the_leftmost_lowest_indexed_match) {
  std::mt19937 rng(7);
  for (int round = 0; round < 3000; ++round) {
    const std::size_t npat = 1 + rng() % kPairFilterMaxPatterns;
    std::vector<std::string> pats;
    for (std::size_t k = 0; k < npat; ++k) {
      // Lengths up to past the probe window (64) so far offsets are exercised.
      const std::size_t len = 1 + (round % 10 == 0 ? rng() % 80 : rng() % 5);
      pats.push_back(random_text(rng, len, "abc"));
    }
    const std::string text = random_text(rng, rng() % 300, round % 2 ? "abc" : "abcdefgh\n");
    const PairFilter f = PairFilter::plan(pats);
    const std::size_t skip = text.empty() ? 0 : rng() % (text.size() + 1);
    const char* from = text.data() + skip;
    const char* end = text.data() + text.size();
    const auto want = naive_find(pats, from, end);
    for (PairFindFn fn : kernels()) {
      std::uint32_t k = 99;
      const char* got = fn(f, from, end, &k);
      if (!want) {
        ASSERT_EQ(got, nullptr) << "round " << round;
      } else {
        ASSERT_EQ(got, want->at) << "round " << round;
        ASSERT_EQ(k, want->pattern) << "round " << round;
      }
    }
  }
}

TEST(PairFilter, finds_a_match_that_ends_at_the_last_byte) {
  const std::vector<std::string> pats{"-----BEGIN"};
  const PairFilter f = PairFilter::plan(pats);
  for (std::size_t pad = 0; pad < 200; ++pad) {
    const std::string text = std::string(pad, 'x') + "-----BEGIN";
    for (PairFindFn fn : kernels()) {
      std::uint32_t k = 0;
      EXPECT_EQ(fn(f, text.data(), text.data() + text.size(), &k), text.data() + pad) << "pad " << pad;
      EXPECT_EQ(fn(f, text.data(), text.data() + text.size() - 1, &k), nullptr) << "pad " << pad;
    }
  }
}

TEST(LiteralMatcher, many_patterns_use_rabin_karp_and_agree_with_the_naive_search) {
  std::mt19937 rng(11);
  for (int round = 0; round < 500; ++round) {
    std::vector<std::string> pats;
    const std::size_t npat = kPairFilterMaxPatterns + 1 + rng() % 20;
    for (std::size_t k = 0; k < npat; ++k) pats.push_back(random_text(rng, 1 + rng() % 6, "abcd"));
    const LiteralMatcher m(pats);
    const std::string text = random_text(rng, rng() % 200, "abcde");
    const char* end = text.data() + text.size();
    const auto want = naive_find(pats, text.data(), end);
    const auto got = m.find(text.data(), text.data(), end);
    ASSERT_EQ(got.has_value(), want.has_value()) << "round " << round;
    if (got) {
      EXPECT_EQ(got->begin, want->at);
      EXPECT_EQ(got->pattern, want->pattern);
    }
  }
}

TEST(LiteralMatcher, all_in_line_reports_overlapping_occurrences_of_each_pattern) {
  const LiteralMatcher m({"aa", "a", "b"});
  const std::string line = "aaab";
  std::vector<Match> out;
  m.all_in_line(line.data(), line.data() + line.size(), out);
  std::vector<std::pair<long, std::uint32_t>> got;
  for (const auto& x : out) got.emplace_back(x.begin - line.data(), x.pattern);
  const std::vector<std::pair<long, std::uint32_t>> want{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 1}, {3, 2}};
  EXPECT_EQ(got, want);
}

TEST(LiteralMatcher, an_empty_pattern_matches_at_from_and_once_per_line) {
  const LiteralMatcher m({"x", ""});
  const std::string text = "abc";
  const auto hit = m.find(text.data(), text.data() + 1, text.data() + 3);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->begin, text.data() + 1);
  EXPECT_EQ(hit->length, 0u);
  EXPECT_EQ(hit->pattern, 1u);
  std::vector<Match> out;
  m.all_in_line(text.data(), text.data() + 3, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].pattern, 1u);
  EXPECT_EQ(m.max_match_length(), std::optional<std::size_t>(1));
}

TEST(LiteralMatcher, rejects_a_pattern_with_a_newline_naming_it) {
  try {
    LiteralMatcher m({"ok", "bad\nline"});
    FAIL() << "no exception";
  } catch (const PatternError& e) {
    EXPECT_NE(std::string(e.what()).find("bad"), std::string::npos) << e.what();
  }
}

TEST(LiteralMatcher, a_clone_matches_like_the_original_after_it_is_gone) {
  auto original = make_matcher({"needle", "pin"}, PatternSyntax::literal);
  auto copy = original->clone();
  original.reset();
  const std::string text = "haystack with a pin";
  const auto hit = copy->find(text.data(), text.data(), text.data() + text.size());
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->begin - text.data(), 16);
  EXPECT_EQ(hit->pattern, 1u);
}

TEST(RegexMatcher, never_returns_a_match_that_crosses_a_line_end) {
  const RegexMatcher m = regex({"a[^x]*b"});
  const std::string text = "a\nab";
  const auto hit = m.find(text.data(), text.data(), text.data() + text.size());
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->begin - text.data(), 2);
  EXPECT_EQ(hit->length, 2u);
  const std::string none = "a\nb\nc";
  EXPECT_FALSE(m.find(none.data(), none.data(), none.data() + none.size()).has_value());
}

TEST(RegexMatcher, anchors_match_at_line_boundaries_and_see_the_context_before_from) {
  const RegexMatcher m = regex({"^foo$"});
  const std::string text = "xfoo\nfoo\nfoox";
  const auto hit = m.find(text.data(), text.data(), text.data() + text.size());
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->begin - text.data(), 5);
  // Starting the search mid-line: "foo" at 1 is not at a line start.
  const std::string mid = "xfoo";
  EXPECT_FALSE(m.find(mid.data(), mid.data() + 1, mid.data() + mid.size()).has_value());
}

TEST(RegexMatcher, matches_bytes_not_characters) {
  const RegexMatcher m = regex({"caf.$"});
  const std::string text = "caf\xc3\xa9";  // "café" in UTF-8: `.` is one byte, so no match
  EXPECT_FALSE(m.find(text.data(), text.data(), text.data() + text.size()).has_value());
  const RegexMatcher two = regex({"caf..$"});
  EXPECT_TRUE(two.find(text.data(), text.data(), text.data() + text.size()).has_value());
}

TEST(RegexMatcher, all_in_line_names_each_pattern) {
  const RegexMatcher m = regex({"[0-9]+", "b+"});
  const std::string line = "a12bb3";
  std::vector<Match> out;
  m.all_in_line(line.data(), line.data() + line.size(), out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].begin - line.data(), 1);
  EXPECT_EQ(out[0].pattern, 0u);
  EXPECT_EQ(out[1].begin - line.data(), 3);
  EXPECT_EQ(out[1].pattern, 1u);
  EXPECT_EQ(out[2].begin - line.data(), 5);
  EXPECT_EQ(out[2].pattern, 0u);
}

TEST(RegexMatcher, an_invalid_pattern_is_rejected_with_its_text_and_the_reason) {
  try {
    RegexMatcher m = regex({"fine", "a(b"});
    FAIL() << "no exception";
  } catch (const PatternError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'a(b'"), std::string::npos) << what;
    EXPECT_NE(what.find("missing )"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace matcher_test
}  // namespace stealscan

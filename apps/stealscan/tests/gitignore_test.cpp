// .gitignore patterns and precedence (gitignore(5)), and the walker's budget.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "walk/gitignore.hpp"
#include "walk/glob.hpp"
#include "walk/in_flight_budget.hpp"

namespace stealscan {
// Named after the file: test binaries compile several files as one unit.
namespace gitignore_test {
namespace {

TEST(Glob, stars_questions_and_classes_never_cross_a_slash) {
  EXPECT_TRUE(glob_match("*.log", "a.log"));
  EXPECT_FALSE(glob_match("*.log", "d/a.log"));
  EXPECT_TRUE(glob_match("a?c", "abc"));
  EXPECT_FALSE(glob_match("a?c", "a/c"));
  EXPECT_TRUE(glob_match("[a-c]x", "bx"));
  EXPECT_FALSE(glob_match("[!a-c]x", "bx"));
  EXPECT_TRUE(glob_match("[^a-c]x", "dx"));
  EXPECT_TRUE(glob_match("[]]", "]"));
  EXPECT_TRUE(glob_match("a[", "a["));  // unterminated: a literal
  EXPECT_TRUE(glob_match("\\*", "*"));
  EXPECT_FALSE(glob_match("\\*", "x"));
  EXPECT_TRUE(glob_match("a*b*c", "axxbyyc"));
  EXPECT_FALSE(glob_match("a*b*c", "axxbyy"));
}

TEST(Glob, double_stars_match_whole_directories) {
  EXPECT_TRUE(glob_match("**/foo", "foo"));
  EXPECT_TRUE(glob_match("**/foo", "a/b/foo"));
  EXPECT_TRUE(glob_match("a/**/b", "a/b"));
  EXPECT_TRUE(glob_match("a/**/b", "a/x/y/b"));
  EXPECT_FALSE(glob_match("a/**/b", "a/xb"));
  EXPECT_TRUE(glob_match("a/**", "a/x/y"));
  EXPECT_TRUE(glob_match("a**b", "axyb"));     // not a whole segment: two plain stars
  EXPECT_FALSE(glob_match("a**b", "ax/yb"));
}

// "*a*a...*a" + tail, with `stars` "*a" pieces.
std::string star_chain(int stars, std::string_view tail) {
  std::string p;
  for (int i = 0; i < stars; ++i) p += "*a";
  return p.append(tail);
}

TEST(Glob, a_hostile_pattern_with_many_stars_takes_linear_time) {
  // Backtracking tries every split of the text among the stars: 10 stars on 60
  // bytes took minutes. The position-set run finishes at once (no time asserted).
  const std::string ten = star_chain(9, "*b");
  const std::string a60(60, 'a');
  EXPECT_FALSE(glob_match(ten, a60));
  EXPECT_TRUE(glob_match(ten, a60 + "b"));
  const std::string thirty = star_chain(30, "*?b");
  const std::string a200(200, 'a');
  EXPECT_FALSE(glob_match(thirty, a200));
  EXPECT_TRUE(glob_match(thirty, a200 + "xb"));
  EXPECT_FALSE(glob_match("**/" + thirty, "d/e/" + a200));
  EXPECT_FALSE(glob_match(ten, std::string(100, 'a') + "/b"));  // no star crosses '/'
}

TEST(Glob, ignore_case_folds_ascii_letters_in_bytes_and_classes) {
  EXPECT_TRUE(Glob("*.TXT", true).matches("a.txt"));
  EXPECT_TRUE(Glob("[a-c]x?", true).matches("BXy"));
  EXPECT_FALSE(Glob("[!a]x", true).matches("Ax"));
  EXPECT_FALSE(Glob("*.TXT").matches("a.txt"));
  EXPECT_TRUE(Glob("a[").has_unterminated_class());
  EXPECT_FALSE(Glob("a[]]").has_unterminated_class());
}

// The reference: the glob read straight from its definition by recursion on
// (pattern position, text position), memoized so that it stays polynomial.
class ReferenceGlob {
 public:
  ReferenceGlob(std::string p, std::string t) : p_(std::move(p)), t_(std::move(t)) {}
  bool matches() { return at(0, 0); }

 private:
  bool at(std::size_t p, std::size_t t) {
    const auto key = std::make_pair(p, t);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    const bool r = compute(p, t);
    memo_[key] = r;
    return r;
  }
  bool compute(std::size_t p, std::size_t t) {
    if (p == p_.size()) return t == t_.size();
    const char c = p_[p];
    if (c == '*') {
      const bool whole = (p == 0 || p_[p - 1] == '/') && p + 1 < p_.size() && p_[p + 1] == '*' &&
                         (p + 2 == p_.size() || p_[p + 2] == '/');
      if (whole && p + 2 == p_.size()) return true;
      if (whole) {  // "**/": the rest at t or after any later '/'
        for (std::size_t s = t; s <= t_.size(); ++s)
          if ((s == t || t_[s - 1] == '/') && at(p + 3, s)) return true;
        return false;
      }
      std::size_t q = p;
      while (q < p_.size() && p_[q] == '*') ++q;
      for (std::size_t s = t; s <= t_.size(); ++s) {
        if (at(q, s)) return true;
        if (s < t_.size() && t_[s] == '/') return false;
      }
      return false;
    }
    if (t == t_.size()) return false;
    const char x = t_[t];
    if (c == '?') return x != '/' && at(p + 1, t + 1);
    if (c == '[') {
      std::size_t i = p + 1;
      const bool neg = i < p_.size() && (p_[i] == '!' || p_[i] == '^');
      if (neg) ++i;
      bool in = false;
      for (bool first = true; i < p_.size() && (p_[i] != ']' || first); ++i, first = false) {
        char lo = p_[i];
        if (lo == '\\' && i + 1 < p_.size()) lo = p_[++i];
        char hi = lo;
        if (i + 2 < p_.size() && p_[i + 1] == '-' && p_[i + 2] != ']') {
          hi = p_[i += 2];
          if (hi == '\\' && i + 1 < p_.size()) hi = p_[++i];
        }
        in = in || (x >= lo && x <= hi);
      }
      if (i < p_.size()) return x != '/' && in != neg && at(i + 1, t + 1);
    }
    if (c == '\\' && p + 1 < p_.size()) return x == p_[p + 1] && at(p + 2, t + 1);
    return x == c && at(p + 1, t + 1);
  }

  std::string p_, t_;
  std::map<std::pair<std::size_t, std::size_t>, bool> memo_;
};

TEST(Glob, random_patterns_match_as_the_memoized_reference_does) {
  std::mt19937 rng(13);
  // Pieces rather than bytes, so that classes, escapes and '**/' come up often.
  const char* const pieces[] = {"a", "b", "/", "*", "**", "**/", "/**", "?", "[ab]", "[!a]", "[]/]", "[a-", "\\*", "!", "-"};
  const std::string text_bytes = "ab/]-!*";
  int matched = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string p, t;
    const std::size_t plen = rng() % 7, tlen = rng() % 9;
    for (std::size_t i = 0; i < plen; ++i) p += pieces[rng() % std::size(pieces)];
    for (std::size_t i = 0; i < tlen; ++i) t += text_bytes[rng() % text_bytes.size()];
    const bool want = ReferenceGlob(p, t).matches();
    matched += want ? 1 : 0;
    ASSERT_EQ(glob_match(p, t), want) << "pattern '" << p << "' text '" << t << "'";
  }
  EXPECT_GT(matched, 1000);  // the cases are not all misses
}

TEST(Gitignore, parsing_handles_comments_negation_directories_anchors_and_escapes) {
  const auto rules = parse_gitignore("# c\n\n*.o\n!keep.o\nbuild/\n/root.txt\ndoc/*.md\n\\#hash\nsp\\ \ntrail   \r\n");
  ASSERT_EQ(rules.size(), 8u);
  EXPECT_EQ(rules[0].pattern, "*.o");
  EXPECT_TRUE(rules[1].negated);
  EXPECT_TRUE(rules[2].directory_only);
  EXPECT_FALSE(rules[2].anchored);
  EXPECT_TRUE(rules[3].anchored);
  EXPECT_EQ(rules[3].pattern, "root.txt");
  EXPECT_TRUE(rules[4].anchored);
  EXPECT_TRUE(glob_match(rules[5].pattern, "#hash"));
  EXPECT_TRUE(glob_match(rules[6].pattern, "sp "));
  EXPECT_EQ(rules[7].pattern, "trail");
}

TEST(Gitignore, the_last_matching_rule_decides_and_directory_rules_skip_files) {
  const auto rules = parse_gitignore("*.o\n!keep.o\nbuild/\n/root.txt\n");
  EXPECT_EQ(match_rules(rules, "a.o", false), IgnoreVerdict::ignore);
  EXPECT_EQ(match_rules(rules, "x/keep.o", false), IgnoreVerdict::keep);
  EXPECT_EQ(match_rules(rules, "x/build", true), IgnoreVerdict::ignore);
  EXPECT_EQ(match_rules(rules, "x/build", false), IgnoreVerdict::none);
  EXPECT_EQ(match_rules(rules, "root.txt", false), IgnoreVerdict::ignore);
  EXPECT_EQ(match_rules(rules, "x/root.txt", false), IgnoreVerdict::none);
}

TEST(Gitignore, a_deeper_file_overrides_a_shallower_one_where_it_has_a_rule) {
  auto top = std::make_shared<const IgnoreStack>(parse_gitignore("*.log\n"), 5, nullptr);  // "/top/"
  const IgnoreStack sub(parse_gitignore("!keep.log\n"), 9, top);                           // "/top/sub/"
  EXPECT_TRUE(top->ignored("/top/a.log", false));
  EXPECT_FALSE(sub.ignored("/top/sub/keep.log", false));
  EXPECT_TRUE(sub.ignored("/top/sub/other.log", false));  // no rule in sub: top decides
  EXPECT_FALSE(sub.ignored("/top/sub/a.txt", false));
}

TEST(InFlightBudget, grants_only_the_units_that_fit_and_never_waits) {
  InFlightBudget b(8);
  EXPECT_EQ(b.take_up_to(5), 5u);
  EXPECT_EQ(b.take_up_to(5), 3u);  // 3 fit
  EXPECT_EQ(b.take_up_to(1), 0u);  // full: the caller scans the file itself
  b.release();
  EXPECT_EQ(b.take_up_to(4), 1u);
  b.take(2);  // a file scanned by its walker, or named on the command line
  EXPECT_EQ(b.in_flight(), 10u);
  EXPECT_EQ(b.take_up_to(1), 0u);  // over the limit: nothing until 3 are back
  for (int i = 0; i < 3; ++i) b.release();
  EXPECT_EQ(b.take_up_to(3), 1u);
  EXPECT_THROW(InFlightBudget(0), std::invalid_argument);
}

TEST(InFlightBudget, racing_takers_never_hold_more_than_the_limit) {
  constexpr std::size_t kLimit = 16;
  InFlightBudget b(kLimit);
  std::atomic<std::size_t> held{0};  // raised after a grant, lowered before a release
  std::atomic<std::size_t> most{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        const std::size_t k = b.take_up_to(1 + static_cast<std::size_t>((i + t) % 5));
        const std::size_t now = held.fetch_add(k) + k;
        std::size_t m = most.load();
        while (now > m && !most.compare_exchange_weak(m, now)) {
        }
        held.fetch_sub(k);
        for (std::size_t j = 0; j < k; ++j) b.release();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_LE(most.load(), kLimit);
  EXPECT_EQ(b.in_flight(), 0u);
}

}  // namespace
}  // namespace gitignore_test
}  // namespace stealscan

// .gitignore patterns and precedence (gitignore(5)), and the walker's budget.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "walk/gitignore.hpp"
#include "walk/glob.hpp"
#include "walk/in_flight_budget.hpp"

namespace stealscan {
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

TEST(InFlightBudget, a_blocked_walker_resumes_only_when_half_the_units_are_back) {
  InFlightBudget b(8);
  auto never = [] { return false; };
  ASSERT_TRUE(b.acquire(8, never));
  std::atomic<bool> acquired{false};
  std::thread walker([&] {
    EXPECT_TRUE(b.acquire(2, never));  // 8 + 2 > 8: blocks
    acquired.store(true);
  });
  while (!b.walker_waiting()) std::this_thread::yield();
  for (int i = 0; i < 3; ++i) b.release();  // 5 in flight: 2 more would fit, but 5 > limit / 2
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(acquired.load());
  b.release();  // 4 = limit / 2
  walker.join();
  EXPECT_TRUE(acquired.load());
  EXPECT_EQ(b.in_flight(), 6u);
}

TEST(InFlightBudget, a_stopped_executor_ends_the_wait) {
  InFlightBudget b(2);
  ASSERT_TRUE(b.acquire(2, [] { return false; }));
  EXPECT_FALSE(b.acquire(1, [] { return true; }));
  EXPECT_THROW((void)b.acquire(3, [] { return false; }), std::invalid_argument);
}

}  // namespace
}  // namespace stealscan

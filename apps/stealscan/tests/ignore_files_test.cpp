// The parts behind ignore files and file selection: ranking of ignore-file
// kinds, rules from above the operand, the git config reader, -g overrides and
// their {a,b} alternatives, -t/-T types.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "walk/file_types.hpp"
#include "walk/git_config.hpp"
#include "walk/gitignore.hpp"
#include "walk/overrides.hpp"

namespace stealscan {
// Named after the file: test binaries compile several files as one unit.
namespace ignore_files_test {
namespace {

TEST(IgnoreStack, a_stronger_kind_decides_before_a_deeper_file_of_a_weaker_kind) {
  // Walked paths look like "/op/...": base length 4.
  auto top_ignore = std::make_shared<const IgnoreStack>(IgnoreKind::ignore, parse_gitignore("!*.log\n"), 4, "", nullptr);
  auto deep_git = std::make_shared<const IgnoreStack>(IgnoreKind::gitignore, parse_gitignore("*.log\n*.o\n"), 8, "",
                                                      top_ignore);  // "/op/sub/"
  const IgnoreStack own(IgnoreKind::stealscanignore, parse_gitignore("x.log\n"), 8, "", deep_git);
  EXPECT_FALSE(own.ignored("/op/sub/a.log", false));  // .ignore beats the deeper .gitignore
  EXPECT_TRUE(own.ignored("/op/sub/x.log", false));   // .stealscanignore beats both
  EXPECT_TRUE(own.ignored("/op/sub/a.o", false));     // only the .gitignore has a say
}

TEST(IgnoreStack, a_file_above_the_operand_matches_with_the_operand_path_as_prefix) {
  // A .gitignore in /repo, operand /repo/a/b walked as "b" (paths "b/...": base 2).
  const IgnoreStack above(IgnoreKind::gitignore, parse_gitignore("/a/b/gen/\na/b/*.tmp\n"), 2, "a/b/", nullptr);
  EXPECT_TRUE(above.ignored("b/gen", true));
  EXPECT_FALSE(above.ignored("b/x/gen", true));
  EXPECT_TRUE(above.ignored("b/t.tmp", false));
  EXPECT_FALSE(above.ignored("b/x/t.tmp", false));
}

TEST(GitConfig, excludes_file_is_read_from_the_core_section_only_with_quotes_and_comments) {
  EXPECT_EQ(core_excludes_file("[core]\n\texcludesFile = ~/.gi\n"), "~/.gi");
  EXPECT_EQ(core_excludes_file("[CORE]\nEXCLUDESFILE=\"/a b\" # c\n"), "/a b");
  EXPECT_EQ(core_excludes_file("[core] excludesfile = /x ; c\n"), "/x");
  EXPECT_EQ(core_excludes_file("[core]\nexcludesFile = /one\nexcludesFile = /two\n"), "/two");
  EXPECT_EQ(core_excludes_file("[core \"x\"]\nexcludesFile = /no\n[user]\nexcludesFile = /no\n"), std::nullopt);
  EXPECT_EQ(core_excludes_file("[core]\nexcludesFile\n"), std::nullopt);  // a bare key is a boolean
  EXPECT_EQ(core_excludes_file("[core\nexcludesFile = /no\n"), std::nullopt);
  EXPECT_EQ(core_excludes_file("[core]\nexcludesFile = \"a\\\"b\\\\c\"\n"), "a\"b\\c");
  EXPECT_EQ(core_excludes_file(std::string(100000, '[')), std::nullopt);  // junk: one pass, no result
}

TEST(GitConfig, the_global_excludes_path_defaults_under_the_xdg_config_directory) {
  EXPECT_EQ(global_excludes_path("/nonexistent-home", nullptr), "/nonexistent-home/.config/git/ignore");
  EXPECT_EQ(global_excludes_path("/nonexistent-home", "/nonexistent-xdg"), "/nonexistent-xdg/git/ignore");
  EXPECT_EQ(global_excludes_path(nullptr, ""), "");
}

TEST(Overrides, alternatives_expand_in_order_and_an_unclosed_one_is_refused) {
  EXPECT_EQ(expand_alternatives("*.{c,h}"), (std::vector<std::string>{"*.c", "*.h"}));
  EXPECT_EQ(expand_alternatives("{a,b{1,2}}x"), (std::vector<std::string>{"ax", "b1x", "b2x"}));
  EXPECT_EQ(expand_alternatives("\\{a,b}"), (std::vector<std::string>{"\\{a,b}"}));
  EXPECT_EQ(expand_alternatives("[{]"), (std::vector<std::string>{"[{]"}));
  EXPECT_THROW(expand_alternatives("a{b"), GlobError);
  EXPECT_THROW(expand_alternatives("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"), GlobError);  // 1024
}

TEST(Overrides, the_last_matching_glob_decides_and_includes_exclude_unmatched_files_only) {
  const Overrides o({{"*.txt", false}, {"!skip/", false}, {"!b*.txt", false}, {"bb.txt", false}});
  EXPECT_EQ(o.verdict("a.txt", false), IgnoreVerdict::keep);
  EXPECT_EQ(o.verdict("b.txt", false), IgnoreVerdict::ignore);
  EXPECT_EQ(o.verdict("bb.txt", false), IgnoreVerdict::keep);
  EXPECT_EQ(o.verdict("x.md", false), IgnoreVerdict::ignore);  // an include glob exists: unmatched files go
  EXPECT_EQ(o.verdict("dir", true), IgnoreVerdict::none);      // ... directories are still entered
  EXPECT_EQ(o.verdict("d/skip", true), IgnoreVerdict::ignore);
  const Overrides only_excludes({{"!*.md", false}});
  EXPECT_EQ(only_excludes.verdict("x.txt", false), IgnoreVerdict::none);
  EXPECT_EQ(Overrides({{"*.TXT", true}}).verdict("a.txt", false), IgnoreVerdict::keep);
  EXPECT_THROW(Overrides({{"", false}}), GlobError);
  EXPECT_THROW(Overrides({{"x[", false}}), GlobError);
}

TEST(FileTypes, the_table_is_sorted_and_a_later_excluded_type_wins_over_a_selected_one) {
  const auto types = file_types();
  EXPECT_TRUE(std::is_sorted(types.begin(), types.end(),
                             [](const FileType& a, const FileType& b) { return a.name < b.name; }));
  for (const char* name : {"c", "cpp", "py", "rust", "go", "js", "ts", "java", "md", "json", "yaml", "toml", "sh",
                           "html", "css", "txt", "make", "cmake"})
    EXPECT_NE(find_file_type(name), nullptr) << name;
  const TypeFilter f({"c", "cpp"}, {"h"});
  EXPECT_EQ(f.verdict("a.c", false), IgnoreVerdict::keep);
  EXPECT_EQ(f.verdict("a.hpp", false), IgnoreVerdict::ignore);  // cpp and h: -T wins
  EXPECT_EQ(f.verdict("a.py", false), IgnoreVerdict::ignore);
  EXPECT_EQ(f.verdict("src", true), IgnoreVerdict::none);
  EXPECT_EQ(TypeFilter({}, {"make"}).verdict("GNUmakefile", false), IgnoreVerdict::ignore);
  EXPECT_EQ(TypeFilter({}, {"make"}).verdict("a.c", false), IgnoreVerdict::none);
  EXPECT_THROW(TypeFilter({"nope"}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace ignore_files_test
}  // namespace stealscan

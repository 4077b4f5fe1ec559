// The parts behind ignore files and file selection: ranking of ignore-file
// kinds, rules from above the operand, the git config reader.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "walk/git_config.hpp"
#include "walk/gitignore.hpp"

namespace stealscan {
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

}  // namespace
}  // namespace stealscan

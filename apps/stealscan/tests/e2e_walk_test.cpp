// End to end: which files the binary searches: ignore files above the operand
// and in it (.gitignore, .ignore, .stealscanignore, .git/info/exclude, git's
// core.excludesFile), -g/--iglob overrides, -t/-T types. The expected lists were
// derived from ripgrep's rules and checked by hand against `rg --files` 13.0.0
// where it agrees with git (it does not apply an anchored parent .gitignore rule
// to a subdirectory operand; git does, and so do we). Every run gets a HOME and
// XDG_CONFIG_HOME of its own, so the user's git configuration plays no part.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/run_process.hpp"
#include "support/temp_tree.hpp"
#include "walk/outer_ignores.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_walk_test {
namespace {

const std::string kBin = STEALSCAN_BIN;

class Walk : public ::testing::Test {
 protected:
  // The files `stealscan -l '' ARGS OPERAND` lists, relative to the tree, sorted.
  std::vector<std::string> files(const std::string& operand, std::vector<std::string> args = {},
                                 std::vector<std::string> env = {}) {
    const ProcessResult r = run(operand, std::move(args), std::move(env));
    EXPECT_LE(r.status, 1) << r.err;
    std::vector<std::string> out;
    for (std::string line : sorted_lines(r.out)) {
      if (line.rfind(t.root() + "/", 0) == 0) line.erase(0, t.root().size() + 1);
      out.push_back(line);
    }
    return out;
  }
  ProcessResult run(const std::string& operand, std::vector<std::string> args, std::vector<std::string> env = {}) {
    std::vector<std::string> argv{kBin, "-l", "--no-progress"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("-e");
    argv.push_back("");
    argv.push_back(t.path(operand));
    if (env.empty()) env = {"HOME=" + t.path("home"), "XDG_CONFIG_HOME="};
    return run_process(argv, env);
  }
  // Whether the temporary directory is itself inside a git repository (then
  // "outside a repository" cannot be tested there).
  bool tree_in_repository() {
    char* real = ::realpath(t.root().c_str(), nullptr);
    const bool in = real != nullptr && find_repository_root(real).has_value();
    std::free(real);
    return in;
  }
  void files_at(const std::vector<std::string>& rels) {
    for (const auto& r : rels) t.write(r, "x\n");
  }

  TempTree t;
};

using Files = std::vector<std::string>;

TEST_F(Walk, a_parent_gitignore_applies_inside_a_repository_relative_to_its_own_directory) {
  t.mkdir("repo/.git");
  t.write("repo/.gitignore", "sub/a/\n*.log\n/top.txt\n");
  files_at({"repo/sub/a/z.txt", "repo/sub/x.txt", "repo/sub/y.log", "repo/sub/b/w.txt", "repo/sub/top.txt"});
  EXPECT_EQ(files("repo/sub"), (Files{"repo/sub/b/w.txt", "repo/sub/top.txt", "repo/sub/x.txt"}));
  EXPECT_EQ(files("repo/sub/b"), (Files{"repo/sub/b/w.txt"}));
  // A .git file (a worktree) marks a repository root too.
  t.write("wt/.git", "gitdir: /nonexistent\n");
  t.write("wt/.gitignore", "*.log\n");
  files_at({"wt/d/a.log", "wt/d/a.txt"});
  EXPECT_EQ(files("wt/d"), (Files{"wt/d/a.txt"}));
}

TEST_F(Walk, a_nested_repository_stops_the_outer_gitignore_and_reads_its_own_exclude) {
  t.mkdir("repo/.git");
  t.write("repo/.gitignore", "*.log\n");
  t.write("repo/.ignore", "*.tmp\n");
  t.write("repo/inner/.git/info/exclude", "*.bak\n");
  files_at({"repo/a.log", "repo/a.txt", "repo/inner/b.log", "repo/inner/b.tmp", "repo/inner/b.bak",
            "repo/inner/b.txt"});
  EXPECT_EQ(files("repo"), (Files{"repo/a.txt", "repo/inner/b.log", "repo/inner/b.txt"}));
}

TEST_F(Walk, parent_gitignore_files_outside_a_repository_are_not_read_but_parent_ignore_files_are) {
  if (tree_in_repository()) GTEST_SKIP() << "the temporary directory is inside a git repository";
  t.write("plain/.gitignore", "*.log\n");
  t.write("plain/.ignore", "*.tmp\n");
  files_at({"plain/sub/a.log", "plain/sub/a.tmp", "plain/sub/a.txt"});
  EXPECT_EQ(files("plain/sub"), (Files{"plain/sub/a.log", "plain/sub/a.txt"}));
  // The operand's own .gitignore applies, repository or not (docs/design.md,
  // "Which files, and how they are read").
  EXPECT_EQ(files("plain"), (Files{"plain/sub/a.txt"}));
}

TEST_F(Walk, git_info_exclude_applies_with_less_weight_than_gitignore_files) {
  t.write("repo/.git/info/exclude", "*.md\n");
  t.write("repo/.gitignore", "!keep.md\n");
  files_at({"repo/d/keep.md", "repo/d/other.md", "repo/d/a.txt"});
  EXPECT_EQ(files("repo/d"), (Files{"repo/d/a.txt", "repo/d/keep.md"}));
  EXPECT_EQ(files("repo"), (Files{"repo/d/a.txt", "repo/d/keep.md"}));
}

TEST_F(Walk, stealscanignore_beats_ignore_beats_gitignore_whatever_their_depth) {
  t.write("d/.gitignore", "*.txt\n");
  t.write("d/.ignore", "!a.txt\n!b.txt\n!deep.txt\n");
  t.write("d/.stealscanignore", "b.txt\n");
  t.write("d/sub/.gitignore", "deep.txt\n");  // deeper, but a weaker kind than the .ignore
  files_at({"d/a.txt", "d/b.txt", "d/c.txt", "d/sub/deep.txt"});
  EXPECT_EQ(files("d"), (Files{"d/a.txt", "d/sub/deep.txt"}));
  EXPECT_EQ(files("d", {"--no-ignore"}), (Files{"d/a.txt", "d/b.txt", "d/c.txt", "d/sub/deep.txt"}));
}

TEST_F(Walk, the_global_excludes_file_applies_inside_a_repository_only) {
  t.write("home/.gitconfig", "[user]\n  name = x\n[core \"sub\"]\n  excludesFile = wrong\n"
                             "[Core]\n  excludesFile = \"~/my ignore\" ; a comment\n");
  t.write("home/my ignore", "*.bak\n");
  t.mkdir("repo/.git");
  files_at({"repo/a.bak", "repo/a.txt", "plain/a.bak", "plain/a.txt"});
  EXPECT_EQ(files("repo"), (Files{"repo/a.txt"}));
  EXPECT_EQ(files("repo", {"--no-ignore"}), (Files{"repo/a.bak", "repo/a.txt"}));
  if (!tree_in_repository()) {
    EXPECT_EQ(files("plain"), (Files{"plain/a.bak", "plain/a.txt"}));
  }
  // Without core.excludesFile: $XDG_CONFIG_HOME/git/ignore.
  t.write("xdg/git/ignore", "*.txt\n");
  EXPECT_EQ(files("repo", {}, {"HOME=" + t.path("nohome"), "XDG_CONFIG_HOME=" + t.path("xdg")}),
            (Files{"repo/a.bak"}));
}

class Globs : public Walk {
 protected:
  void SetUp() override {
    files_at({"g/a.txt", "g/b.md", "g/sub/c.txt", "g/sub/d.md", "g/sub/deep/e.txt", "g/skip/f.txt", "g/.env"});
  }
};

TEST_F(Globs, include_globs_select_files_and_exclude_globs_prune_files_and_directories) {
  EXPECT_EQ(files("g", {"-g", "*.txt"}), (Files{"g/a.txt", "g/skip/f.txt", "g/sub/c.txt", "g/sub/deep/e.txt"}));
  EXPECT_EQ(files("g", {"-g", "*.txt", "-g", "!skip"}), (Files{"g/a.txt", "g/sub/c.txt", "g/sub/deep/e.txt"}));
  EXPECT_EQ(files("g", {"-g", "!*.md", "-g", "!sub/deep/"}), (Files{"g/a.txt", "g/skip/f.txt", "g/sub/c.txt"}));
  // A glob with '/' matches the path below the operand.
  EXPECT_EQ(files("g", {"-g", "sub/*.md"}), (Files{"g/sub/d.md"}));
  EXPECT_EQ(files("g", {"--glob=*.{md,env}"}), (Files{"g/.env", "g/b.md", "g/sub/d.md"}));  // included: hidden too
}

TEST_F(Globs, the_last_matching_glob_wins) {
  EXPECT_EQ(files("g", {"-g", "!*.txt", "-g", "a.txt"}), (Files{"g/a.txt"}));
  EXPECT_EQ(files("g", {"-g", "a.txt", "-g", "!*.txt"}), (Files{}));
  EXPECT_EQ(run("g", {"-g", "a.txt", "-g", "!*.txt"}).status, 1);
}

TEST_F(Globs, an_include_glob_beats_the_ignore_files_and_iglob_ignores_case) {
  t.write("g/.gitignore", "*.md\nskip/\n");
  EXPECT_EQ(files("g", {"-g", "*.md"}), (Files{"g/b.md", "g/sub/d.md"}));
  EXPECT_EQ(files("g", {"-g", "!*.txt"}), (Files{}));  // nothing else is left: .md ignored, .env hidden
  EXPECT_EQ(files("g", {"--iglob", "*.TXT"}), (Files{"g/a.txt", "g/sub/c.txt", "g/sub/deep/e.txt"}));
  EXPECT_EQ(files("g", {"-g", "*.TXT"}), (Files{}));
}

TEST_F(Globs, a_bad_glob_exits_2_naming_it) {
  for (const std::string bad : {"", "!", "a[b", "*.{md", "#x"}) {
    const ProcessResult r = run("g", {"-g", bad});
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("invalid glob '" + bad + "'"), std::string::npos) << r.err;
  }
}

TEST_F(Globs, types_select_and_exclude_by_base_name_and_globs_beat_them) {
  files_at({"g/CMakeLists.txt", "g/x.cmake", "g/m.cpp", "g/h.hpp"});
  EXPECT_EQ(files("g", {"-t", "md"}), (Files{"g/b.md", "g/sub/d.md"}));
  EXPECT_EQ(files("g", {"--type=cmake", "-t", "cpp"}), (Files{"g/CMakeLists.txt", "g/h.hpp", "g/m.cpp", "g/x.cmake"}));
  EXPECT_EQ(files("g", {"-T", "txt", "-T", "md", "-T", "cmake"}), (Files{"g/h.hpp", "g/m.cpp"}));
  EXPECT_EQ(files("g", {"-t", "txt", "-T", "cmake"}), (Files{"g/a.txt", "g/skip/f.txt", "g/sub/c.txt", "g/sub/deep/e.txt"}));
  EXPECT_EQ(files("g", {"-T", "txt", "-g", "a.txt"}), (Files{"g/a.txt"}));
}

TEST_F(Globs, type_list_prints_sorted_name_and_globs_lines_and_an_unknown_type_exits_2) {
  const ProcessResult list = run_process({kBin, "--type-list"});
  EXPECT_EQ(list.status, 0);
  EXPECT_NE(list.out.find("\nc: *.[chH], *.[chH].in, *.cats\n"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("\nmake: *.mak, *.mk, "), std::string::npos);
  std::string in_order;  // the lines are sorted and nothing else is printed
  for (const auto& l : sorted_lines(list.out)) in_order += l + "\n";
  EXPECT_EQ(list.out, in_order);
  const ProcessResult bad = run("g", {"-t", "xyz"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("unknown type 'xyz' (see --type-list)"), std::string::npos) << bad.err;
  EXPECT_EQ(run("g", {"-Tnope"}).status, 2);
}

TEST_F(Walk, a_hostile_gitignore_line_finishes_with_the_right_result) {
  std::string stars;
  for (int i = 0; i < 9; ++i) stars += "*a";
  stars += "*b\n";
  t.write("h/.gitignore", stars);
  const std::string hit = std::string(59, 'a') + "b", miss(60, 'a');
  files_at({"h/" + hit, "h/" + miss});
  EXPECT_EQ(files("h"), (Files{"h/" + miss}));
}

}  // namespace
}  // namespace e2e_walk_test
}  // namespace stealscan::test

// End to end: `stealscan secrets --staged` and `--uncommitted`, the
// pre-commit scans, on repositories built with libgit2: only the added lines
// of the changed files are reported (a secret already committed in a file
// one touches is not); --staged sees the index only, --uncommitted the work
// tree, untracked files too but not ignored ones; a moved file adds nothing;
// with no commit yet every staged file is new; binary files are skipped
// unless -a; a bare repository and the flags' misuse exit 2.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/git_repo.hpp"
#include "support/mini_json.hpp"
#include "support/run_process.hpp"
#include "support/secrets_run.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_git_changes_test {
namespace {

const std::string kBin = STEALSCAN_BIN;

// A GitHub token whose last four characters are `tail`.
std::string token(const std::string& tail) { return "ghp_AAAAbbbbCCCCddddEEEEffffGGGGhhhh" + tail; }

ProcessResult secrets(const std::vector<std::string>& args) { return run_secrets_json(kBin, args); }

// "file:line=secret" per finding, in report order.
std::vector<std::string> found(const ProcessResult& r) {
  const Json doc = parse_json(r.out);
  EXPECT_EQ(doc.kind, Json::Kind::array) << r.out << r.err;
  std::vector<std::string> out;
  for (const Json& f : doc.items) {
    EXPECT_EQ(f["Commit"].str, "");
    out.push_back(f["File"].str + ":" + std::to_string(static_cast<long>(f["StartLine"].number)) + "=" +
                  f["Secret"].str);
  }
  return out;
}

// conf.txt committed with one token (line 2), checked out; then a second
// token added on line 3 in the work tree.
struct Repo {
  TempTree t;
  TestRepo repo{t.path("repo")};
  Repo() {
    const std::string committed = "a = 1\nold = \"" + token("1111") + "\"\n";
    repo.commit({{"conf.txt", committed}}, {}, "one", "main");
    repo.index_from_head();
    t.write("repo/conf.txt", committed + "new = \"" + token("2222") + "\"\n");
  }
  std::string path() const { return t.path("repo"); }
};

TEST(GitChanges, staged_reports_the_added_lines_of_the_index_only) {
  Repo r;
  r.t.write("repo/untracked.txt", "x = \"" + token("3333") + "\"\n");
  const ProcessResult before = secrets({"--staged", r.path()});  // nothing staged yet
  EXPECT_EQ(before.status, 0) << before.err;
  EXPECT_TRUE(found(before).empty());

  r.repo.stage("conf.txt");
  const ProcessResult after = secrets({"--staged", r.path()});
  EXPECT_EQ(after.status, 1) << after.err;
  EXPECT_EQ(found(after), (std::vector<std::string>{"conf.txt:3=" + token("2222")}));
  EXPECT_NE(after.err.find("1 staged file"), std::string::npos) << after.err;

  // Changed again in the work tree after staging: the index's version counts.
  r.t.write("repo/conf.txt", "nothing here\n");
  EXPECT_EQ(found(secrets({"--staged", r.path()})), (std::vector<std::string>{"conf.txt:3=" + token("2222")}));
}

TEST(GitChanges, uncommitted_reports_the_work_tree_and_untracked_files_not_ignored_ones) {
  Repo r;
  r.t.write("repo/.gitignore", "ignored.txt\n");
  r.t.write("repo/ignored.txt", "x = \"" + token("4444") + "\"\n");
  r.t.write("repo/dir/untracked.txt", "x = \"" + token("3333") + "\"\n");
  const ProcessResult res = secrets({"--uncommitted", r.path()});
  EXPECT_EQ(res.status, 1) << res.err;
  EXPECT_EQ(found(res), (std::vector<std::string>{"conf.txt:3=" + token("2222"), "dir/untracked.txt:1=" + token("3333")}));
}

TEST(GitChanges, a_moved_file_adds_no_line_and_a_new_one_adds_them_all) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const std::string body = "k = \"" + token("5555") + "\"\n";
  repo.commit({{"old.txt", body}}, {}, "one", "main");
  repo.index_from_head();
  t.write("repo/new.txt", body);
  repo.unstage_removed("old.txt");
  repo.stage("new.txt");
  const ProcessResult moved = secrets({"--staged", t.path("repo")});
  EXPECT_EQ(moved.status, 0) << moved.err;
  EXPECT_TRUE(found(moved).empty());

  // No commit yet: every staged file is new.
  TestRepo fresh(t.path("fresh"));
  t.write("fresh/a.txt", body);
  fresh.stage("a.txt");
  EXPECT_EQ(found(secrets({"--staged", t.path("fresh")})), (std::vector<std::string>{"a.txt:1=" + token("5555")}));
}

TEST(GitChanges, binary_files_are_skipped_unless_a) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  repo.commit({{"a.txt", "a\n"}}, {}, "one", "main");
  repo.index_from_head();
  t.write("repo/blob.bin", std::string("\0\0bin\n", 6) + "k = \"" + token("6666") + "\"\n");
  repo.stage("blob.bin");
  const ProcessResult skipped = secrets({"--staged", t.path("repo")});
  EXPECT_EQ(skipped.status, 0) << skipped.err;
  EXPECT_NE(skipped.err.find("1 binary"), std::string::npos) << skipped.err;
  EXPECT_EQ(found(secrets({"--staged", "-a", t.path("repo")})),
            (std::vector<std::string>{"blob.bin:2=" + token("6666")}));
}

TEST(GitChanges, a_bare_repository_and_misused_flags_exit_2) {
  TempTree t;
  git_repository* bare = nullptr;
  git_libgit2_init();
  ASSERT_EQ(git_repository_init(&bare, t.path("bare.git").c_str(), 1), 0);
  git_repository_free(bare);
  git_libgit2_shutdown();
  const ProcessResult b = secrets({"--staged", t.path("bare.git")});
  EXPECT_EQ(b.status, 2);
  EXPECT_NE(b.err.find("bare repository"), std::string::npos) << b.err;
  const ProcessResult both = secrets({"--staged", "--git", t.path("bare.git")});
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("cannot be combined"), std::string::npos) << both.err;
  const ProcessResult two = secrets({"--uncommitted", t.path("bare.git"), t.path("bare.git")});
  EXPECT_EQ(two.status, 2);
  EXPECT_NE(two.err.find("--uncommitted takes one repository"), std::string::npos) << two.err;
}

}  // namespace
}  // namespace e2e_git_changes_test
}  // namespace stealscan::test

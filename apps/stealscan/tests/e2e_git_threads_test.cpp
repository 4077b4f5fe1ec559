// End to end, under ThreadSanitizer too (label `concurrency`): `stealscan
// secrets --git` writes the same JSON report at 1 and 4 threads on a history
// with branches, a merge and secrets spread over more than a hundred blobs,
// several yields of blobs, so that scan tasks split and workers steal halves;
// then packed (deltas, a packfile the workers share) and scanned again.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "support/git_repo.hpp"
#include "support/run_process.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_git_threads_test {
namespace {

const std::string kBin = STEALSCAN_BIN;

std::string token(std::size_t n) {
  const std::string alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  std::string s = "ghp_";
  for (std::size_t i = 0; i < 36; ++i) s += alnum[(i * 7 + n * 13 + i * n) % alnum.size()];
  return s;
}

TEST(GitSecretsThreads, the_report_is_the_same_at_1_and_4_threads) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  TestRepo::Files files;
  std::vector<git_oid> parent;
  git_oid fork_point{};
  for (std::size_t i = 0; i < 160; ++i) {
    files[std::string("d") + std::to_string(i % 5) + "/f" + std::to_string(i % 11) + ".txt"] =
        std::string("v") + std::to_string(i) + (i % 9 == 0 ? std::string(" ") + token(i) : std::string()) + "\n";
    std::string message = "c";  // built up: g++ 12 -O3 warns falsely (-Wrestrict) on "c" + std::string
    message += std::to_string(i);
    const git_oid c = repo.commit(files, parent, message, "main", 1700000000 + static_cast<git_time_t>(i));
    parent = {c};
    if (i == 80) fork_point = c;
  }
  TestRepo::Files side = {{"side.txt", token(1000) + "\n"}};
  const git_oid s1 = repo.commit(side, {fork_point}, "side", "side");
  files["side.txt"] = token(1000) + "\n";
  repo.commit(files, {parent[0], s1}, "merge", "main");

  // Under ThreadSanitizer, libgit2's own shared cache is left out (tsan_libgit2.supp says why).
  const char* tsan = std::getenv("TSAN_OPTIONS");
  const std::vector<std::string> env{std::string("TSAN_OPTIONS=") + (tsan != nullptr ? tsan : "") +
                                     ":suppressions=" + STEALSCAN_TSAN_SUPPRESSIONS};
  const auto run = [&](const std::string& j) {
    return run_process({kBin, "secrets", "--no-progress", "--no-cache", "-j", j, "--format", "json", "--git", t.path("repo")}, env);
  };
  const ProcessResult one = run("1");
  const ProcessResult four = run("4");
  EXPECT_EQ(one.status, 1) << one.err;
  EXPECT_EQ(four.status, 1) << four.err;
  EXPECT_EQ(one.out, four.out);
  EXPECT_EQ(one.err, four.err);  // the counts too
  EXPECT_NE(one.out.find(token(1000)), std::string::npos);

  // Packed, with deltas: the workers share the mapped packfile and its index
  // (read-only) through their own pack readers, and libgit2's for the walk.
  repo.pack();
  const ProcessResult packed = run("4");
  EXPECT_EQ(packed.status, 1) << packed.err;
  EXPECT_EQ(packed.out, one.out);
  EXPECT_EQ(packed.err, one.err);
}

}  // namespace
}  // namespace e2e_git_threads_test
}  // namespace stealscan::test

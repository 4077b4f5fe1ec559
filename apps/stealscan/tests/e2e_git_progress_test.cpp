// The progress line of `stealscan secrets --git` (issue 37): drawn on stderr
// when it is a terminal (here a pseudo-terminal), with the commits diffed and
// then the blobs scanned, bytes and rate; erased before the summary; never
// drawn with --no-progress or when stderr is not a terminal.
// STEALSCAN_PROGRESS_MS=0 draws the first line at once, so that a scan of a
// small history shows one whatever the machine's speed.
#include <gtest/gtest.h>

#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "secrets/git_scan.hpp"
#include "support/git_repo.hpp"
#include "support/run_process.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_git_progress_test {
namespace {

const std::string kBin = STEALSCAN_BIN;

struct PtyResult {
  int status = -1;
  std::string screen;  // all that stdout and stderr wrote to the terminal
};

// Runs argv with stdin, stdout and stderr on a new pseudo-terminal, the
// variables of `env` ("NAME=value") added to the environment.
PtyResult run_on_pty(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) throw std::runtime_error("forkpty failed");
  if (pid == 0) {
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  PtyResult r;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(master, buf, sizeof buf);
    if (n > 0) {
      r.screen.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO once the child and its terminal are gone
    }
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// A history of three commits, one with a token in it.
void make_repo(const std::string& dir) {
  TestRepo repo(dir);
  TestRepo::Files files{{"a.txt", "one\n"}};
  git_oid c = repo.commit(files, {}, "first", "main");
  files["b.txt"] = "token = ghp_0123456789abcdefABCDEF0123456789abcd\n";
  c = repo.commit(files, {c}, "second", "main");
  files["a.txt"] = "two\n";
  repo.commit(files, {c}, "third", "main");
}

TEST(GitProgress, a_terminal_sees_the_line_then_has_it_erased_before_the_summary) {
  TempTree t;
  make_repo(t.path("repo"));
  const PtyResult r =
      run_on_pty({kBin, "secrets", "--no-cache", "-j", "2", "--git", t.path("repo")}, {"STEALSCAN_PROGRESS_MS=0"});
  EXPECT_EQ(r.status, 1) << r.screen;  // a finding
  // The first line is drawn at once, but the progress thread may first run
  // when the diffs are done: either phase's line.
  EXPECT_TRUE(std::regex_search(
      r.screen, std::regex(R"(\r\x1b\[Kstealscan: ([0-3] / 3 commits diffed|3 commits, [0-3] / 3 blobs, [0-9.]+ (B|KiB), )"
                           R"([0-9.]+ (B|KiB)/s))")))
      << r.screen;
  // The last line drawn is erased, and the summary comes after it.
  const std::size_t last = r.screen.rfind("stealscan: ");
  const std::size_t erased = r.screen.rfind("\r\x1b[K");
  ASSERT_NE(erased, std::string::npos);
  EXPECT_LT(erased, last);
  EXPECT_EQ(r.screen.compare(erased, 4, "\r\x1b[K"), 0);
  EXPECT_NE(r.screen.find("1 finding in 1 blob (3 commits", last), std::string::npos) << r.screen.substr(last);
}

TEST(GitProgress, no_line_with_no_progress_or_when_stderr_is_not_a_terminal) {
  TempTree t;
  make_repo(t.path("repo"));
  const PtyResult off = run_on_pty({kBin, "secrets", "--no-cache", "--no-progress", "--git", t.path("repo")},
                                   {"STEALSCAN_PROGRESS_MS=0"});
  EXPECT_EQ(off.status, 1) << off.screen;
  EXPECT_EQ(off.screen.find("commits diffed"), std::string::npos) << off.screen;
  EXPECT_EQ(off.screen.find("\x1b[K"), std::string::npos) << off.screen;
  const ProcessResult piped = run_process({kBin, "secrets", "--no-cache", "--git", t.path("repo")},
                                          {"STEALSCAN_PROGRESS_MS=0"});
  EXPECT_EQ(piped.status, 1) << piped.err;
  EXPECT_EQ(piped.err.find("commits diffed"), std::string::npos) << piped.err;
}

TEST(GitProgress, the_line_says_commits_diffed_then_blobs_bytes_and_rate) {
  EXPECT_EQ(secrets::history_progress_line(10, 100, 0, 0, 0, 1.0), "stealscan: 10 / 100 commits diffed");
  EXPECT_EQ(secrets::history_progress_line(100, 100, 5, 20, 3 << 19, 1.0),
            "stealscan: 100 commits, 5 / 20 blobs, 1.5 MiB, 1.5 MiB/s");
  EXPECT_EQ(secrets::history_progress_line(100, 100, 5, 20, 3 << 20, 2.0),
            "stealscan: 100 commits, 5 / 20 blobs, 3.0 MiB, 1.5 MiB/s");
  EXPECT_EQ(secrets::history_progress_line(100, 100, 0, 20, 0, 0.0), "stealscan: 100 commits, 0 / 20 blobs, 0 B, 0 B/s");
}

}  // namespace
}  // namespace e2e_git_progress_test
}  // namespace stealscan::test

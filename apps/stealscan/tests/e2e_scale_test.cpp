// End to end at scale and under failure: 10^5 tiny files (same counts as grep,
// memory flat as the tree grows), a large file (memory flat as the file grows),
// and files the process may not read.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/run_process.hpp"
#include "support/temp_tree.hpp"
#include "support/unprivileged.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_scale_test {
namespace {

const std::string kBin = STEALSCAN_BIN;

// Tiny files in directories of 1000; every 7th has a match, every 11th a second
// matching line. Creating and deleting 10^5 files costs seconds of kernel time on
// ext4 (more with `discard`), so file i is a hard link to template i % 77, which
// holds the same lines: to the walk and the scan they are 10^5 distinct files.
void write_tiny_files(const TempTree& t, const std::string& dir, int files) {
  constexpr int kTemplates = 77;  // 7 * 11
  const std::string templates = "templates-" + dir;
  for (int k = 0; k < kTemplates; ++k) {
    std::string text = "file " + std::to_string(k) + (k % 7 == 0 ? " AKIA\n" : "\n");
    if (k % 11 == 0) text += "ghp_ second line\n";
    t.write(templates + "/t" + std::to_string(k), text);
  }
  for (int i = 0; i < files; ++i) {
    const std::string sub = dir + "/d" + std::to_string(i / 1000);
    if (i % 1000 == 0) t.mkdir(sub);
    const std::string from = t.path(templates + "/t" + std::to_string(i % kTemplates));
    const std::string to = t.path(sub + "/f" + std::to_string(i));
    ASSERT_EQ(::link(from.c_str(), to.c_str()), 0) << to;
  }
}

// The child's environment: ASan keeps freed memory in quarantine (256 MiB by
// default), which would show in max RSS as if it were ours.
std::vector<std::string> small_quarantine() {
  const char* now = std::getenv("ASAN_OPTIONS");
  return {std::string("ASAN_OPTIONS=") + (now != nullptr ? now : "") + ":quarantine_size_mb=4"};
}

TEST(Scale, a_hundred_thousand_tiny_files_count_like_grep_in_flat_memory) {
  TempTree t;
  write_tiny_files(t, "small", 2000);
  write_tiny_files(t, "large", 100000);
  if (HasFatalFailure()) return;
  const std::vector<std::string> pats = {"-e", "AKIA", "-e", "ghp_"};
  std::vector<std::string> grep = {"grep", "-rcF"};
  grep.insert(grep.end(), pats.begin(), pats.end());
  grep.push_back(t.path("large"));
  const ProcessResult want = run_process(grep, {"LC_ALL=C"});
  ASSERT_EQ(want.status, 0);

  auto scan = [&](const std::string& dir) {
    std::vector<std::string> a = {kBin, "-c", "-j", "2", "--max-in-flight", "256"};
    a.insert(a.end(), pats.begin(), pats.end());
    a.push_back(t.path(dir));
    return run_process(a, small_quarantine());
  };
  const ProcessResult small = scan("small");
  const ProcessResult large = scan("large");
  ASSERT_EQ(large.status, 0) << large.err;
  EXPECT_EQ(sorted_lines(large.out), without_zero_counts(sorted_lines(want.out)));
  // 50x the files, and the output grows with them (it is flushed as it goes):
  // the peak memory may not.
  EXPECT_LT(large.max_rss_kib, small.max_rss_kib + 16 * 1024)
      << "max RSS " << small.max_rss_kib << " KiB for 2,000 files, " << large.max_rss_kib << " KiB for 100,000";
}

TEST(Scale, a_large_file_is_scanned_in_memory_that_does_not_grow_with_it) {
  TempTree t;
  const std::string line = std::string(120, 'x') + " needle\n";
  for (const auto& [name, lines] : {std::pair<const char*, int>{"quarter.txt", 100000}, {"big.txt", 400000}}) {
    std::ofstream f(t.path(name), std::ios::binary);
    for (int i = 0; i < lines; ++i) f << line;  // 12.8 and 51 MB
  }
  const ProcessResult count = run_process({kBin, "-c", "--chunk-size", "64K", "needle", t.path("big.txt")});
  EXPECT_EQ(count.out, "400000\n");
  for (const char* mode : {"-c", "--json", "--no-filename"}) {
    auto run = [&](const char* file) {
      return run_process({kBin, mode, "-j", "2", "--chunk-size", "64K", "needle", t.path(file)}, small_quarantine(),
                         /*keep_stdout=*/false);
    };
    const ProcessResult quarter = run("quarter.txt");
    const ProcessResult big = run("big.txt");
    ASSERT_EQ(big.status, 0) << big.err;
    // Four times the file (and the output), the same chunks in flight.
    EXPECT_LT(big.max_rss_kib, quarter.max_rss_kib + 8 * 1024)
        << mode << ": max RSS " << quarter.max_rss_kib << " KiB for 12.8 MB, " << big.max_rss_kib << " KiB for 51 MB";
  }
}

TEST(Errors, unreadable_files_and_directories_are_reported_counted_and_skipped) {
  const Unprivileged user(kBin);
  if (!user.possible())
    GTEST_SKIP() << "running as root without /usr/bin/setpriv: no way to make a file unreadable to the scan";
  const std::string exe = user.exe();
  TempTree t;
  t.write("ok/a.txt", "AKIA\nAKIA\n");
  t.write("ok/b.txt", "nothing\n");
  t.write("secret.txt", "AKIA\n");
  t.write("locked/inside.txt", "AKIA\n");
  ::chmod(t.path("secret.txt").c_str(), 0);
  ::chmod(t.path("locked").c_str(), 0);

  const auto as_user = [&](std::vector<std::string> argv) { return user.argv(std::move(argv)); };
  const ProcessResult want = run_process(as_user({"grep", "-rcF", "AKIA", t.root()}), {"LC_ALL=C"});
  ASSERT_EQ(want.status, 2) << "grep could read the unreadable file: " << want.err;
  // LeakSanitizer cannot run where ptrace is restricted; leaks are checked by the other tests.
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string env = std::string("ASAN_OPTIONS=") + (asan != nullptr ? asan : "") + ":detect_leaks=0";
  const ProcessResult got = run_process(as_user({exe, "-c", "--stats", "AKIA", t.root()}), {env});
  EXPECT_EQ(got.status, 2) << got.err;
  EXPECT_EQ(sorted_lines(got.out), without_zero_counts(sorted_lines(want.out)));
  EXPECT_NE(got.err.find("stealscan: " + t.path("secret.txt") + ": Permission denied"), std::string::npos) << got.err;
  EXPECT_NE(got.err.find("stealscan: " + t.path("locked") + ": Permission denied"), std::string::npos) << got.err;
  EXPECT_NE(got.err.find("errors           2\n"), std::string::npos) << got.err;
}

}  // namespace
}  // namespace e2e_scale_test
}  // namespace stealscan::test

// End to end: the stealscan binary on generated trees, compared with GNU grep
// (grep -rcF / -rcE with -I, in the C locale), which is the specification here:
// same files, same counts, whatever the chunk size and thread count.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "support/run_process.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_test {
namespace {

const std::string kBin = STEALSCAN_BIN;
const std::vector<std::string> kLiterals = {"AKIA", "ghp_", "-----BEGIN", "needle"};
const std::vector<std::string> kRegexes = {"AKIA[A-Z0-9]{3}", "^ret", "dle$", "gh[p]_[a-z]+", "BEGIN [A-Z]+"};
const std::vector<std::string> kCLocale = {"LC_ALL=C"};

std::vector<std::string> with_patterns(std::vector<std::string> args, const std::vector<std::string>& pats) {
  for (const auto& p : pats) {
    args.push_back("-e");
    args.push_back(p);
  }
  return args;
}

// Concatenation by append: g++ 12 at -O3 warns falsely (-Wrestrict, its PR 105329)
// on some `"literal" + std::string` expressions.
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string s;
  (s.append(parts), ...);
  return s;
}

std::string random_line(std::mt19937& rng) {
  static const std::vector<std::string> kWords = {
      "alpha", "beta", "return", "AKIA", "AKIAXYZ9", "ghp_token", "-----BEGIN RSA", "needle", "nee", "dle",
      "AK",    "IA",   "ret",    "gh",   "p_",       "-----",     "BEGIN",          "x",      "",    "needles"};
  std::string line;
  const int words = static_cast<int>(rng() % 12);
  for (int i = 0; i < words; ++i) {
    if (i && rng() % 5 != 0) line.push_back(' ');
    // Mostly filler, now and then a pattern or a piece of one.
    line.append(rng() % 6 ? std::string(1 + rng() % 7, static_cast<char>('a' + rng() % 20)) : kWords[rng() % kWords.size()]);
  }
  return line;
}

// A tree with every kind of file the scan must get right.
void build_mixed_tree(const TempTree& t) {
  std::mt19937 rng(42);
  for (int i = 0; i < 120; ++i) {
    std::string s;
    const std::size_t target = i % 10 == 0 ? 0 : rng() % 12000;  // some empty
    while (s.size() < target) s.append(random_line(rng)).append(rng() % 17 ? "\n" : "\r\n");
    if (i % 7 == 3 && !s.empty()) s.pop_back();  // no final newline
    t.write(cat("d", std::to_string(i % 9), "/sub", std::to_string(i % 4), "/f", std::to_string(i), ".txt"), s);
  }
  // Matches across the borders of the chunk sizes the tests use (7, 1000, 4096).
  for (std::size_t chunk : {7u, 1000u, 4096u}) {
    for (std::size_t k = 1; k <= 3; ++k) {
      for (std::size_t back = 0; back < 11; ++back) {
        std::string s(k * chunk > back ? k * chunk - back : 0, 'x');
        for (std::size_t j = 50; j < s.size(); j += 50) s[j] = '\n';
        s += "-----BEGIN needle AKIA\nafter\n";
        t.write(cat("borders/c", std::to_string(chunk), "_k", std::to_string(k), "_b", std::to_string(back)), s);
      }
    }
  }
  // Long lines: one match near a border, one at the very end, one line with none.
  t.write("long/one_line.txt", cat(std::string(30000, 'y'), "needle", std::string(9000, 'z'), "ghp_"));
  t.write("long/mixed.txt", cat("short\n", std::string(4093, 'q'), "AKIA", std::string(50000, 'q'), "\nend\n"));
  t.write("long/nomatch.txt", cat(std::string(70000, 'n'), "\n"));
  // Binary files (a NUL early): skipped by both.
  t.write("bin/zero.bin", cat(std::string("AKIA\0needle\n", 12), "AKIA\n"));
  t.write("bin/late_text.bin", cat(std::string(3, '\0'), std::string(5000, 'a'), "\nneedle\n"));
  // Hidden files and a .gitignore (the comparison runs with --hidden --no-ignore).
  t.write(".hidden/h.txt", "AKIA in a hidden directory\n");
  t.write("d1/.dotfile", "needle\nneedle\n");
  t.write(".gitignore", "*.log\nd2/\n");
  t.write("d3/x.log", "ghp_ in an ignored file\n");
  // Symbolic links: loops, a file link, a broken one, a link to a sibling directory.
  t.symlink("..", "d4/loop_to_parent");
  t.symlink(".", "d4/loop_to_self");
  t.symlink("../d0/sub0", "d5/sibling");
  t.symlink("d1/sub1/f1.txt", "file_link.txt");
  t.symlink("nowhere", "d6/broken");
  // Deep nesting.
  std::string deep = "deep";
  for (int i = 0; i < 14; ++i) deep.append("/l").append(std::to_string(i));
  t.write(cat(deep, "/bottom.txt"), "needle at the bottom\nAKIA\n");
}

class MixedTree : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tree_ = new TempTree();
    build_mixed_tree(*tree_);
  }
  static void TearDownTestSuite() {
    delete tree_;
    tree_ = nullptr;
  }
  static TempTree* tree_;
};
TempTree* MixedTree::tree_ = nullptr;

void expect_counts_like_grep(const std::vector<std::string>& grep_args, const std::vector<std::string>& scan_args,
                             const std::string& root, int want_status_scan) {
  auto g = grep_args;
  g.push_back(root);
  const ProcessResult want = run_process(g, kCLocale);
  ASSERT_LE(want.status, 2) << want.err;
  const auto want_lines = without_zero_counts(sorted_lines(want.out));
  ASSERT_GT(want_lines.size(), 10u) << "the tree should have matches";
  for (const char* chunk : {"256K", "4096", "1000", "7"}) {
    for (const char* threads : {"1", "3"}) {
      auto s = scan_args;
      s.insert(s.begin() + 1, {"--chunk-size", chunk, "-j", threads});
      s.push_back(root);
      const ProcessResult got = run_process(s);
      EXPECT_EQ(got.status, want_status_scan) << "chunk " << chunk << " -j " << threads << "\n" << got.err;
      EXPECT_EQ(sorted_lines(got.out), want_lines) << "chunk " << chunk << " -j " << threads;
    }
  }
}

TEST_F(MixedTree, literal_counts_equal_grep_rcF_for_every_chunk_size_and_thread_count) {
  expect_counts_like_grep(with_patterns({"grep", "-rcFI"}, kLiterals),
                          with_patterns({kBin, "-c", "--hidden", "--no-ignore", "--no-progress"}, kLiterals),
                          tree_->root(), 0);
}

TEST_F(MixedTree, regex_counts_equal_grep_rcE_for_every_chunk_size_and_thread_count) {
  expect_counts_like_grep(with_patterns({"grep", "-rcEI"}, kRegexes),
                          with_patterns({kBin, "-c", "-E", "--hidden", "--no-ignore", "--no-progress"}, kRegexes),
                          tree_->root(), 0);
}

TEST_F(MixedTree, following_links_equals_grep_R_and_reports_loops_and_broken_links) {
  // Both skip the two loops, and fail on the broken link (status 2) after scanning the rest.
  expect_counts_like_grep(with_patterns({"grep", "-RcFI"}, kLiterals),
                          with_patterns({kBin, "-c", "-L", "--hidden", "--no-ignore", "--no-progress"}, kLiterals),
                          tree_->root(), 2);
  auto args = with_patterns({kBin, "-c", "-L", "--hidden", "--no-ignore", "--stats"}, kLiterals);
  args.push_back(tree_->root());
  const ProcessResult r = run_process(args);
  EXPECT_NE(r.err.find("d4/loop_to_parent: file system loop"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("d4/loop_to_self: file system loop"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("d6/broken: broken symbolic link"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("errors           1\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 link loops"), std::string::npos) << r.err;
}

TEST_F(MixedTree, without_follow_links_are_skipped_silently) {
  auto args = with_patterns({kBin, "-c", "--hidden", "--no-ignore"}, kLiterals);
  args.push_back(tree_->root());
  const ProcessResult r = run_process(args);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST_F(MixedTree, binary_files_count_with_text_flag_like_grep_a) {
  const ProcessResult want = run_process(with_patterns({"grep", "-rcFa", tree_->path("bin")}, kLiterals), kCLocale);
  const ProcessResult got = run_process(with_patterns({kBin, "-c", "-a", tree_->path("bin")}, kLiterals));
  EXPECT_EQ(sorted_lines(got.out), without_zero_counts(sorted_lines(want.out)));
  EXPECT_EQ(got.status, 0) << got.err;
}

}  // namespace
}  // namespace e2e_test
}  // namespace stealscan::test

// End to end: what stealscan prints in each mode, which files it picks, and its
// exit status and messages.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "support/run_process.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
namespace {

const std::string kBin = STEALSCAN_BIN;

TEST(Output, lines_of_a_split_file_come_in_order_with_exact_numbers_like_grep_n) {
  TempTree t;
  std::mt19937 rng(5);
  std::string s;
  while (s.size() < 600000) {
    const std::size_t len = rng() % 9 == 0 ? 5000 + rng() % 9000 : rng() % 90;  // some lines longer than a chunk
    std::string line(len, 'w');
    if (rng() % 4 == 0 && len > 6) line.replace(rng() % (len - 6), 6, "needle");
    s += line + "\n";
  }
  t.write("big.txt", s);
  const ProcessResult want = run_process({"grep", "-nF", "needle", t.path("big.txt")}, {"LC_ALL=C"});
  ASSERT_EQ(want.status, 0);
  for (const char* chunk : {"4096", "1000"}) {
    const ProcessResult got = run_process({kBin, "-n", "-j", "3", "--chunk-size", chunk, "needle", t.path("big.txt")});
    EXPECT_EQ(got.status, 0) << got.err;
    EXPECT_TRUE(got.out == want.out) << "chunk " << chunk << ": output differs from grep -n (in order)";
  }
}

TEST(Output, json_reports_every_match_with_line_column_and_pattern) {
  TempTree t;
  t.write("a.txt", "x AKIA ghp_ AKIA\nnone\n-----BEGIN \"q\"\n");
  const ProcessResult r = run_process({kBin, "--json", "-e", "AKIA", "-e", "ghp_", "-e", "-----BEGIN", t.path("a.txt")});
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string f = "{\"file\":\"" + t.path("a.txt") + "\",";
  EXPECT_EQ(r.out, f + "\"line\":1,\"column\":3,\"pattern\":\"AKIA\"}\n" +      //
                       f + "\"line\":1,\"column\":8,\"pattern\":\"ghp_\"}\n" +  //
                       f + "\"line\":1,\"column\":13,\"pattern\":\"AKIA\"}\n" + //
                       f + "\"line\":3,\"column\":1,\"pattern\":\"-----BEGIN\"}\n");
}

TEST(Output, lines_carry_the_path_for_a_directory_and_not_for_one_file_and_numbers_with_n) {
  TempTree t;
  t.write("d/a.txt", "one\nneedle here\n");
  EXPECT_EQ(run_process({kBin, "needle", t.path("d")}).out, t.path("d") + "/a.txt:needle here\n");
  EXPECT_EQ(run_process({kBin, "needle", t.path("d/a.txt")}).out, "needle here\n");
  EXPECT_EQ(run_process({kBin, "-n", "needle", t.path("d")}).out, t.path("d") + "/a.txt:2:needle here\n");
  EXPECT_EQ(run_process({kBin, "-n", "needle", t.path("d/a.txt")}).out, "2:needle here\n");
  EXPECT_EQ(run_process({kBin, "-n", "-H", "needle", t.path("d/a.txt")}).out, t.path("d/a.txt") + ":2:needle here\n");
  EXPECT_EQ(run_process({kBin, "-l", "needle", t.path("d")}).out, t.path("d") + "/a.txt\n");
}

TEST(Selection, gitignore_rules_hidden_files_and_max_filesize_pick_the_files) {
  TempTree t;
  t.write(".gitignore", "# comment\n*.log\nbuild/\n!keep.log\n/anchored.txt\nsub/**/deep.txt\n");
  for (const char* f : {"a.log", "keep.log", "build/x.txt", "anchored.txt", "sub/anchored.txt", "sub/q/deep.txt",
                        "sub/deep.txt", ".hidden.txt", "plain.txt", "sub/z.log", "sub/other/y.log"})
    t.write(f, "needle\n");
  t.write("sub/other/.gitignore", "!*.log\n");  // a deeper file re-includes
  t.write("big.txt", std::string(3000, 'b') + "\nneedle\n");
  const ProcessResult r = run_process({kBin, "-l", "--max-filesize", "1K", "needle", t.root()});
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<std::string> want;
  for (const char* f : {"keep.log", "plain.txt", "sub/anchored.txt", "sub/other/y.log"}) want.push_back(t.path(f));
  std::sort(want.begin(), want.end());
  EXPECT_EQ(sorted_lines(r.out), want);
  // --no-ignore --hidden and no size limit: everything.
  const ProcessResult all = run_process({kBin, "-l", "--no-ignore", "--hidden", "needle", t.root()});
  EXPECT_EQ(sorted_lines(all.out).size(), 12u) << all.out;
}

TEST(ExitStatus, is_1_when_nothing_matches_and_0_when_something_does) {
  TempTree t;
  t.write("a.txt", "hay\n");
  EXPECT_EQ(run_process({kBin, "needle", t.root()}).status, 1);
  EXPECT_EQ(run_process({kBin, "hay", t.root()}).status, 0);
}

TEST(ExitStatus, a_missing_path_is_named_and_exits_2_before_scanning) {
  TempTree t;
  t.write("a.txt", "needle\n");
  const ProcessResult r = run_process({kBin, "needle", t.root(), t.path("nope")});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "stealscan: " + t.path("nope") + ": No such file or directory\n");
}

TEST(ExitStatus, bad_arguments_exit_2_with_a_message_naming_the_value) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-j", "0", "x"}, "invalid -j '0': must be between 1 and 4096"},
      {{"--threads=many", "x"}, "invalid --threads 'many': expected a whole number"},
      {{"--chunk-size", "12Q", "x"}, "invalid --chunk-size '12Q'"},
      {{"--max-filesize", "", "x"}, "invalid --max-filesize ''"},
      {{"--max-in-flight", "0", "x"}, "invalid --max-in-flight '0'"},
      {{"--frobnicate", "x"}, "unknown option '--frobnicate'"},
      {{"-E", "a(b", "."}, "invalid regex 'a(b': missing )"},
      {{"-E", "a\\nb", "."}, "it asks for a line end"},
      {{"-E", std::string(200, 'x') + "(", "."}, "(201 bytes): missing )"},
      {{"-E", "ab[c", "."}, "invalid regex 'ab[c' at offset 2: missing ]"},
      {{}, "no pattern given"},
      {{"-f", "/nonexistent/patterns"}, "cannot read pattern file '/nonexistent/patterns'"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv{kBin};
    argv.insert(argv.end(), args.begin(), args.end());
    const ProcessResult r = run_process(argv);
    EXPECT_EQ(r.status, 2) << message;
    EXPECT_NE(r.err.find(message), std::string::npos) << "got: " << r.err;
  }
}

}  // namespace
}  // namespace stealscan::test

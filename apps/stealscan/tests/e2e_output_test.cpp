// End to end: what stealscan prints in each mode, which files it picks, and its
// exit status and messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/run_process.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_output_test {
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

TEST(Output, json_matches_reports_every_match_with_line_column_and_pattern) {
  TempTree t;
  t.write("a.txt", "x AKIA ghp_ AKIA\nnone\n-----BEGIN \"q\"\n");
  const ProcessResult r =
      run_process({kBin, "--json-matches", "-e", "AKIA", "-e", "ghp_", "-e", "-----BEGIN", t.path("a.txt")});
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string f = "{\"file\":\"" + t.path("a.txt") + "\",";
  EXPECT_EQ(r.out, f + "\"line\":1,\"column\":3,\"pattern\":\"AKIA\"}\n" +      //
                       f + "\"line\":1,\"column\":8,\"pattern\":\"ghp_\"}\n" +  //
                       f + "\"line\":1,\"column\":13,\"pattern\":\"AKIA\"}\n" + //
                       f + "\"line\":3,\"column\":1,\"pattern\":\"-----BEGIN\"}\n");
}

// --json's elapsed times, the one part of a message that differs between runs.
std::string without_times(const std::string& s) {
  // Each "elapsed":{...} or "elapsed_total":{...} becomes "elapsed":T.
  std::string out;
  out.reserve(s.size());
  for (std::size_t at = 0; at < s.size();) {
    const std::size_t e = s.find("\"elapsed", at);
    if (e == std::string::npos) {
      out.append(s, at, std::string::npos);
      break;
    }
    const std::size_t brace = s.find(":{", e);
    const std::size_t close = brace == std::string::npos ? brace : s.find('}', brace);
    if (close == std::string::npos) {
      out.append(s, at, std::string::npos);
      break;
    }
    out.append(s, at, brace + 1 - at);
    out.push_back('T');
    at = close + 1;
  }
  return out;
}

TEST(Output, json_writes_ripgreps_messages) {
  TempTree t;
  t.write("a.txt", "x foo\tfoo\nbar\n\"foo\"\\\nlast foo");
  const ProcessResult r = run_process({kBin, "--json", "-C", "1", "foo", t.path("a.txt")});
  EXPECT_EQ(r.status, 0) << r.err;
  std::string p = "{\"text\":\"";
  p += t.path("a.txt");
  p += "\"}";
  const std::string printed = std::to_string(r.out.find("{\"type\":\"end\""));  // the messages before "end"
  std::string want;
  for (const std::string& piece :
       {std::string("{\"type\":\"begin\",\"data\":{\"path\":"), p, std::string("}}\n{\"type\":\"match\",\"data\":{\"path\":"), p,
        std::string(",\"lines\":{\"text\":\"x foo\\tfoo\\n\"},\"line_number\":1,\"absolute_offset\":0,\"submatches\":["
                    "{\"match\":{\"text\":\"foo\"},\"start\":2,\"end\":5},{\"match\":{\"text\":\"foo\"},\"start\":6,\"end\":9}]}}\n"
                    "{\"type\":\"context\",\"data\":{\"path\":"),
        p,
        std::string(",\"lines\":{\"text\":\"bar\\n\"},\"line_number\":2,\"absolute_offset\":10,\"submatches\":[]}}\n"
                    "{\"type\":\"match\",\"data\":{\"path\":"),
        p,
        std::string(",\"lines\":{\"text\":\"\\\"foo\\\"\\\\\\n\"},\"line_number\":3,\"absolute_offset\":14,\"submatches\":["
                    "{\"match\":{\"text\":\"foo\"},\"start\":1,\"end\":4}]}}\n{\"type\":\"match\",\"data\":{\"path\":"),
        p,
        std::string(",\"lines\":{\"text\":\"last foo\"},\"line_number\":4,\"absolute_offset\":21,\"submatches\":["
                    "{\"match\":{\"text\":\"foo\"},\"start\":5,\"end\":8}]}}\n{\"type\":\"end\",\"data\":{\"path\":"),
        p,
        std::string(",\"binary_offset\":null,\"stats\":{\"elapsed\":T,\"searches\":1,\"searches_with_match\":1,"
                    "\"bytes_searched\":29,\"bytes_printed\":"),
        printed, std::string(",\"matched_lines\":3,\"matches\":4}}}\n{\"data\":{\"elapsed_total\":T,\"stats\":{\"bytes_printed\":"),
        printed,
        std::string(",\"bytes_searched\":29,\"elapsed\":T,\"matched_lines\":3,\"matches\":4,\"searches\":1,"
                    "\"searches_with_match\":1}},\"type\":\"summary\"}\n")})
    want += piece;
  EXPECT_EQ(without_times(r.out), want);
}

// Each file's messages in order, by file (files come in any order, and a
// split file's messages may come between another file's), and the summary.
std::map<std::string, std::string> file_messages(const std::string& out, std::string* summary) {
  std::map<std::string, std::string> by_path;
  for (std::size_t at = 0; at < out.size();) {
    const std::size_t nl = out.find('\n', at);
    const std::string line = out.substr(at, nl - at + 1);
    at = nl + 1;
    const std::size_t p = line.find("\"path\":{");
    if (p == std::string::npos) {
      *summary = line;
      continue;
    }
    by_path[line.substr(p, line.find('}', p) - p)] += line;
  }
  return by_path;
}

// --json against ripgrep's own, message for message (but the times), on files
// with long and short lines, a last line without '\n', invalid UTF-8, and each
// file scanned whole and in small chunks.
TEST(Output, json_messages_are_ripgreps) {
  if (run_process({"rg", "--version"}).status != 0) GTEST_SKIP() << "no rg (ripgrep) on PATH";
  TempTree t;
  std::mt19937 rng(8);
  static const char* const kWords[] = {"foo", "Foo", "bar", "a\xff", "\xc3\xa9t\xc3\xa9", "x\ty", "quote\"", "fo", "oo"};
  for (int f = 0; f < 6; ++f) {
    std::string s;
    const std::size_t lines = 20 + rng() % 300;
    for (std::size_t i = 0; i < lines; ++i) {
      const std::size_t n = rng() % 12 == 0 ? 200 : rng() % 7;
      for (std::size_t w = 0; w < n; ++w) {
        s += kWords[rng() % std::size(kWords)];
        s += ' ';
      }
      s += '\n';
    }
    if (f % 2 == 0) s.pop_back();  // no '\n' at the end
    std::string name = "f";  // built up: g++ 12 -O3 warns falsely (-Wrestrict) on "f" + std::string
    name += std::to_string(f);
    name += ".txt";
    t.write(name, s);
  }
  const std::vector<std::vector<std::string>> cases{
      {"foo"}, {"-i", "foo"}, {"-w", "foo"}, {"fo+|bar"}, {"-C", "2", "bar"}, {"-v", "o"}, {"-A", "1", "é"},
      {"-e", "foo", "-e", "oo"}};
  for (const auto& args : cases) {
    std::vector<std::string> rg{"rg", "--json", "--no-config", "-j", "1"};
    rg.insert(rg.end(), args.begin(), args.end());
    rg.push_back(t.root());
    const ProcessResult want = run_process(rg);
    ASSERT_EQ(want.status, 0) << args.back() << ": " << want.err;
    std::string want_summary;
    const auto want_blocks = file_messages(without_times(want.out), &want_summary);
    for (const char* chunk : {"256K", "97"}) {
      std::vector<std::string> ss{kBin, "--json", "-j", "3", "--chunk-size", chunk};
      ss.insert(ss.end(), args.begin(), args.end());
      ss.push_back(t.root());
      const ProcessResult got = run_process(ss);
      EXPECT_EQ(got.status, 0) << args.back() << ": " << got.err;
      std::string got_summary;
      const auto got_blocks = file_messages(without_times(got.out), &got_summary);
      EXPECT_EQ(got_blocks, want_blocks) << args.back() << " chunk " << chunk;
      EXPECT_EQ(got_summary, want_summary) << args.back() << " chunk " << chunk;
    }
  }
}

// A split file's lines reach stdout together, also while other workers print
// other files: its chunks' lines are held by its FileJob until the last one.
// Before, each chunk's lines were written when committed, and other files'
// lines came between them (in about two runs of five here).
TEST(Output, a_split_files_lines_and_json_messages_come_together) {
  TempTree t;
  std::mt19937 rng(12);
  for (int f = 0; f < 6; ++f) {
    std::string s;
    for (int i = 0; i < 300; ++i) {
      const std::size_t n = 1 + rng() % 7;
      for (std::size_t w = 0; w < n; ++w) s += rng() % 2 == 0 ? "foo " : "bar ";
      s += '\n';
    }
    std::string name = "f";
    name += std::to_string(f);
    t.write(name, s);
  }
  for (int run = 0; run < 8; ++run) {
    for (const char* mode : {"-n", "--json"}) {
      const ProcessResult r = run_process({kBin, mode, "-j", "3", "--chunk-size", "97", "foo", t.root()});
      ASSERT_EQ(r.status, 0) << r.err;
      // Each file's records in one run: a file seen again after another began is split.
      std::set<std::string> done;
      std::string current;
      for (std::size_t at = 0; at < r.out.size();) {
        const std::size_t nl = r.out.find('\n', at);
        const std::string line = r.out.substr(at, nl - at);
        at = nl + 1;
        std::string file;
        if (mode == std::string("-n")) {
          file = line.substr(0, line.find(':'));
        } else if (const std::size_t p = line.find("\"path\":{"); p != std::string::npos) {
          file = line.substr(p, line.find('}', p) - p);
        } else {
          continue;  // the summary
        }
        if (file == current) continue;
        EXPECT_EQ(done.count(file), 0u) << mode << ": " << file << "'s records are split (run " << run << ")";
        if (!current.empty()) done.insert(current);
        current = file;
      }
    }
  }
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
}  // namespace e2e_output_test
}  // namespace stealscan::test

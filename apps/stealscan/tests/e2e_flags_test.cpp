// End to end: the grep flags (-i -w -x -v -n -o -m -A -B -C -c), each alone and in
// common combinations, against GNU grep in the C locale on generated files (grep
// and ripgrep agree on all of these for one file). Files are scanned whole and
// split into small chunks on three workers, so the flags are also checked across
// chunk borders.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "support/run_process.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_flags_test {
namespace {

const std::string kBin = STEALSCAN_BIN;

// Lines of words in mixed case, punctuation next to words, empty lines, lines of
// spaces: what -i, -w, -x and -v have edges on.
std::string random_file(std::mt19937& rng, std::size_t lines) {
  static const char* const kWords[] = {"foo", "Foo", "FOO", "bar", "foobar", "bar_foo", "a-b", "x", "foo-", "-foo",
                                       "baz", "fo", "oo", "BAR", "bAr"};
  std::string s;
  for (std::size_t i = 0; i < lines; ++i) {
    const unsigned kind = rng() % 10;
    if (kind == 0) {
      // empty line
    } else if (kind == 1) {
      s += "   ";
    } else {
      const std::size_t n = 1 + rng() % 5;
      for (std::size_t w = 0; w < n; ++w) {
        if (w > 0) s += " ,.("[rng() % 4];
        s += kWords[rng() % std::size(kWords)];
      }
    }
    s += '\n';
  }
  if (rng() % 2 == 0 && !s.empty()) s.pop_back();  // sometimes no final newline
  return s;
}

struct Case {
  std::vector<std::string> flags;
  std::vector<std::string> patterns;  // each given with -e
  bool regex = false;
};

std::vector<std::string> with_patterns(std::vector<std::string> argv, const Case& c) {
  argv.insert(argv.end(), c.flags.begin(), c.flags.end());
  argv.push_back(c.regex ? "-E" : "-F");
  for (const auto& p : c.patterns) {
    argv.push_back("-e");
    argv.push_back(p);
  }
  return argv;
}

std::string describe(const Case& c) {
  std::string d;
  for (const auto& f : c.flags) d += f + " ";
  d += c.regex ? "-E" : "-F";
  for (const auto& p : c.patterns) d += " -e '" + p + "'";
  return d;
}

TEST(Flags, every_flag_and_common_combinations_print_what_grep_prints) {
  const std::vector<std::vector<std::string>> flag_sets{
      {},         {"-i"},           {"-w"},         {"-x"},        {"-v"},          {"-v", "-c"},   {"-n"},
      {"-o"},     {"-o", "-i"},     {"-o", "-w"},   {"-m", "3"},   {"-m", "2", "-A", "1"}, {"-A", "2"},
      {"-B", "2"}, {"-C", "1"},     {"-n", "-C", "2"}, {"-c", "-i"}, {"-n", "-v"},   {"-c", "-w"},  {"-i", "-w", "-n"},
      {"-x", "-v", "-c"}, {"-n", "-A", "1", "-B", "3"}, {"-v", "-C", "1"}, {"-o", "-n", "-i"}, {"-m", "1", "-c"},
  };
  const std::vector<std::vector<std::string>> literal_sets{{"foo"}, {"foo", "bar"}, {"a-b", "oo"}, {"-foo"},
                                                           {"FOO", "baz", "x", "fo"}};
  const std::vector<std::vector<std::string>> regex_sets{{"fo+"}, {"^b"}, {"ar$"}, {"[A-Z]+"}, {"foo|baz"},
                                                         {"^ *$"}};
  std::mt19937 rng(21);
  TempTree t;
  int round = 0;
  for (const auto& flags : flag_sets) {
    for (int regex = 0; regex < 2; ++regex) {
      const auto& sets = regex != 0 ? regex_sets : literal_sets;
      const Case c{flags, sets[static_cast<std::size_t>(round++) % sets.size()], regex != 0};
      std::string file = "f";  // built up: g++ 12 -O3 warns falsely (-Wrestrict) on "f" + std::string
      file += std::to_string(round);
      file += ".txt";
      t.write(file, random_file(rng, 60 + rng() % 200));
      std::vector<std::string> grep_argv = with_patterns({"grep"}, c);
      grep_argv.push_back(t.path(file));
      ProcessResult want = run_process(grep_argv, {"LC_ALL=C"});
      ASSERT_LE(want.status, 1) << want.err;
      // grep -c prints a count of 0; ripgrep and stealscan print nothing.
      if (want.out == "0\n") want.out.clear();
      for (const char* chunk : {"256K", "97"}) {
        std::vector<std::string> argv = with_patterns({kBin, "-j", "3", "--chunk-size", chunk}, c);
        argv.push_back(t.path(file));
        const ProcessResult got = run_process(argv);
        EXPECT_EQ(got.status, want.status) << describe(c) << " chunk " << chunk << ": " << got.err;
        EXPECT_EQ(got.out, want.out) << describe(c) << " chunk " << chunk;
      }
    }
  }
}

// A pattern given with neither -E nor -F is a regex, as in grep -E and rg;
// one without metacharacters runs on the literal engines and prints the same.
TEST(Flags, a_bare_pattern_is_a_regex_as_grep_E_reads_it) {
  std::mt19937 rng(33);
  TempTree t;
  t.write("f.txt", random_file(rng, 400));
  const std::vector<std::vector<std::string>> pattern_sets{{"fo+"}, {"foo|bar"}, {"a-b"}, {"a\\-b", "oo"}, {"oo"},
                                                           {"Foo", "bar_foo"}};
  for (const auto& patterns : pattern_sets) {
    for (const std::vector<std::string>& flags :
         {std::vector<std::string>{}, {"-o"}, {"-c"}, {"-o", "-i"}, {"-o", "-w"}, {"-x", "-c"}}) {
      std::vector<std::string> grep_argv{"grep", "-E"}, argv{kBin, "-j", "2"};
      grep_argv.insert(grep_argv.end(), flags.begin(), flags.end());
      argv.insert(argv.end(), flags.begin(), flags.end());
      for (const auto& p : patterns) {
        grep_argv.insert(grep_argv.end(), {"-e", p});
        argv.insert(argv.end(), {"-e", p});
      }
      grep_argv.push_back(t.path("f.txt"));
      argv.push_back(t.path("f.txt"));
      const ProcessResult want = run_process(grep_argv, {"LC_ALL=C"});
      ASSERT_EQ(want.status, 0) << patterns[0];
      const ProcessResult got = run_process(argv);
      EXPECT_EQ(got.status, 0) << patterns[0] << ": " << got.err;
      EXPECT_EQ(got.out, want.out) << patterns[0] << " " << (flags.empty() ? "" : flags[0]);
    }
  }
}

// Splits output at "--" lines into groups, sorted (files come in any order).
std::vector<std::string> groups(const std::string& out) {
  std::vector<std::string> g{""};
  std::size_t start = 0;
  while (start < out.size()) {
    const std::size_t nl = out.find('\n', start);
    const std::string line = out.substr(start, nl - start);
    if (line == "--") {
      g.emplace_back();
    } else {
      g.back() += line + "\n";
    }
    start = nl + 1;
  }
  std::sort(g.begin(), g.end());
  return g;
}

TEST(Flags, context_groups_of_several_files_are_separated_by_two_dashes) {
  TempTree t;
  t.write("d/a.txt", "x\nneedle 1\ny\nz\nw\nneedle 2\n");
  t.write("d/b.txt", "needle 3\nq\n");
  t.write("d/c.txt", "nothing here\n");
  const ProcessResult r = run_process({kBin, "-n", "-A", "1", "needle", t.path("d")});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string a = t.path("d/a.txt"), b = t.path("d/b.txt");
  std::vector<std::string> want{a + ":2:needle 1\n" + a + "-3-y\n", a + ":6:needle 2\n",
                                b + ":1:needle 3\n" + b + "-2-q\n"};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(groups(r.out), want) << r.out;
}

TEST(Flags, context_groups_that_touch_or_overlap_are_merged) {
  TempTree t;
  t.write("a.txt", "1\nhit\n3\n4\nhit\n6\n7\n8\nhit\n");
  // -C1 around lines 2 and 5: 1-3 and 4-6 touch (3, 4): one group. Line 9's group
  // starts at 8: a gap after 6.
  EXPECT_EQ(run_process({kBin, "-n", "-C", "1", "hit", t.path("a.txt")}).out,
            "1-1\n2:hit\n3-3\n4-4\n5:hit\n6-6\n--\n8-8\n9:hit\n");
  // -C2: everything overlaps.
  EXPECT_EQ(run_process({kBin, "-C2", "hit", t.path("a.txt")}).out, "1\nhit\n3\n4\nhit\n6\n7\n8\nhit\n");
}

TEST(Flags, invert_counts_empty_lines_and_the_last_line_without_newline) {
  TempTree t;
  t.write("a.txt", "a\n\n\nb\nlast");
  EXPECT_EQ(run_process({kBin, "-v", "-c", "a", t.path("a.txt")}).out, "3\n");  // "last" holds an a
  EXPECT_EQ(run_process({kBin, "-v", "-n", "-x", "", t.path("a.txt")}).out, "1:a\n4:b\n5:last\n");
}

TEST(Flags, word_matches_at_line_and_file_edges) {
  TempTree t;
  t.write("a.txt", "foo\nxfoo foo\nfoox\n(foo)\nfoo");
  EXPECT_EQ(run_process({kBin, "-n", "-w", "foo", t.path("a.txt")}).out, "1:foo\n2:xfoo foo\n4:(foo)\n5:foo\n");
  EXPECT_EQ(run_process({kBin, "-c", "-w", "-o", "foo", t.path("a.txt")}).out, "4\n");
}

TEST(Flags, max_count_zero_prints_nothing_and_exits_1) {
  TempTree t;
  t.write("a.txt", "foo\n");
  const ProcessResult r = run_process({kBin, "-m", "0", "foo", t.path("a.txt")});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
}

TEST(Flags, json_matches_cannot_be_combined_with_invert_context_or_only_matching_nor_json_with_o) {
  TempTree t;
  t.write("a.txt", "foo\n");
  for (const char* f : {"-v", "-o", "-A1", "-C3"}) {
    const ProcessResult r = run_process({kBin, "--json-matches", f, "foo", t.path("a.txt")});
    EXPECT_EQ(r.status, 2) << f;
    EXPECT_NE(r.err.find("--json-matches"), std::string::npos) << r.err;
  }
  const ProcessResult r = run_process({kBin, "--json", "-o", "foo", t.path("a.txt")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--json"), std::string::npos) << r.err;
  for (const char* f : {"-v", "-A1", "-C3"})  // ripgrep's context messages; -v: lines without matches
    EXPECT_LE(run_process({kBin, "--json", f, "foo", t.path("a.txt")}).status, 1) << f;
}

}  // namespace
}  // namespace e2e_flags_test
}  // namespace stealscan::test

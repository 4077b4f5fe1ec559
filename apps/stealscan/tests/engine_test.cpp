// The matching engines (make_matcher()) against references that look at one line
// at a time: a naive substring search for literals (with -i, -w, -x written out by
// hand, support/naive_grep.hpp, which fuzz_match_engines shares), and RE2 on the line alone for regexes
// (the pattern as written, -w and -x by their definitions, not the engines' wrappers). Covers the pair filter, Vectorscan
// with and without per-line confirmation, patterns Vectorscan rejects (RE2 alone),
// 1,000 and 10,000 literals, and the pattern-text passes of regex_syntax.hpp.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "match/matcher.hpp"
#include "support/naive_grep.hpp"
#include "support/test_support.hpp"  // tests/support: sptest::scaled()
#include "match/re2_text.hpp"
#include "match/regex_matcher.hpp"
#include "match/regex_syntax.hpp"
#include "match/vectorscan_matcher.hpp"

namespace stealscan {
// Named after the file: test binaries compile several files as one unit.
namespace engine_test {
namespace {

using test::engine_lines;
using test::naive_literal_lines;

std::string random_text(std::mt19937& rng, std::size_t n, const std::string& alphabet) {
  std::string s(n, ' ');
  for (auto& c : s) c = alphabet[rng() % alphabet.size()];
  return s;
}

TEST(Engines, literal_sets_of_every_size_and_flag_find_the_lines_a_naive_search_finds) {
  std::mt19937 rng(11);
  const MatchFlags flag_sets[] = {{}, {true, false, false}, {false, true, false}, {false, false, true},
                                  {true, true, false}};
  for (const std::size_t npat : {1u, 3u, 9u, 40u, 200u}) {
    for (const MatchFlags& f : flag_sets) {
      // Each round builds a matcher (a Vectorscan compile): fewer under the
      // sanitizers (STEALPOOL_STRESS_SCALE), where this test took 71 s.
      const std::size_t rounds = sptest::scaled(npat >= 40 ? 4 : 20, 2);
      for (std::size_t round = 0; round < rounds; ++round) {
        std::vector<std::string> pats;
        for (std::size_t k = 0; k < npat; ++k) pats.push_back(random_text(rng, 1 + rng() % 4, "abAB_ -"));
        const std::string block = random_text(rng, rng() % 400, "aabbAB_ -\n");
        const auto m = make_matcher(pats, PatternSyntax::literal, f);
        const auto want = naive_literal_lines(pats, block, f);
        ASSERT_EQ(engine_lines(*m, block), want)
            << npat << " patterns, i=" << f.ignore_case << " w=" << f.word << " x=" << f.line << " first '"
            << pats[0] << "' block '" << block << "'";
      }
    }
  }
}

TEST(Engines, a_thousand_and_ten_thousand_literals_find_the_lines_a_naive_search_finds) {
  std::mt19937 rng(5);
  for (const std::size_t npat : {1000u, 10000u}) {
    std::vector<std::string> pats;
    for (std::size_t k = 0; k < npat; ++k) pats.push_back(random_text(rng, 4 + rng() % 6, "abcdefghij"));
    std::string block;
    for (int line = 0; line < 300; ++line) {
      block += random_text(rng, rng() % 60, "abcdefghij ");
      if (line % 7 == 0) block += pats[rng() % npat];  // some lines surely match
      block += '\n';
    }
    block.pop_back();
    const auto m = make_matcher(pats, PatternSyntax::literal);
    const auto want = naive_literal_lines(pats, block, {});
    EXPECT_GE(want.size(), 43u);
    EXPECT_EQ(engine_lines(*m, block), want) << npat << " patterns";
  }
}

// Regex shapes: plain, anchored, classes that hold '\n' (confirmed per line),
// empty matches, flags, a Unicode class and an ungreedy flag (RE2 alone).
const std::vector<std::string> kShapes{
    "a+b",     "^b",         "a$",      "b[^b]*b", "(ab|ba)a", "^$",     "^\\s*$", "a\\s*b",  "[[:space:]]a",
    "\\bab\\b", "(?i)AB",     "x*",      "a.b",     "(?s)a.b",  "\\Wa",   "\\pL b", "(?U)a+b", "[^a]b$", "^ *$", "^a*$", " *$",
};

TEST(Engines, regex_sets_find_the_lines_re2_finds_on_each_line_alone) {
  std::mt19937 rng(3);
  const MatchFlags flag_sets[] = {{}, {true, false, false}, {false, true, false}, {false, false, true}};
  for (int round = 0; round < 600; ++round) {
    const MatchFlags& f = flag_sets[round % 4];
    std::vector<std::string> pats;
    const std::size_t npat = 1 + rng() % 4;
    for (std::size_t k = 0; k < npat; ++k) pats.push_back(kShapes[rng() % kShapes.size()]);
    std::string block = random_text(rng, rng() % 120, round % 2 ? "ab \n" : "aabB  \t\n\n");
    if (round % 3 == 0) block += std::string(1 + rng() % 3, '\n');  // trailing empty lines
    const auto m = make_matcher(pats, PatternSyntax::regex, f);
    std::vector<std::unique_ptr<RE2>> each;
    for (const auto& p : pats) each.push_back(std::make_unique<RE2>(p, test::reference_regex_options(f)));
    const auto want = test::reference_regex_lines(each, block, f);
    std::string all;
    for (const auto& p : pats) all += p + "  ";
    ASSERT_EQ(engine_lines(*m, block), want)
        << "patterns " << all << "i=" << f.ignore_case << " w=" << f.word << " x=" << f.line << " block '" << block
        << "'";
  }
}

TEST(Engines, first_only_reports_the_first_matching_line) {
  const auto m = make_matcher({"b$", "(?U)zz+"}, PatternSyntax::regex);
  const std::string block = "a\nab\nzzz\nb";
  std::vector<std::size_t> out;
  m->matching_lines(block.data(), block.data() + block.size(), out, true);
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.front(), 2u);
}

TEST(Engines, an_empty_last_line_is_matched_by_a_pattern_that_matches_empty_lines) {
  for (const char* raw : {"^$", "^\\s*$", "x*"}) {
    const std::string p = raw;
    const auto m = make_matcher({p}, PatternSyntax::regex);
    // Lines "a", "", "" : the block ends where the last (empty) line does.
    const std::string block = "a\n\n";
    const std::vector<std::size_t> want = p == "x*" ? std::vector<std::size_t>{0, 2, 3} : std::vector<std::size_t>{2, 3};
    EXPECT_EQ(engine_lines(*m, block), want) << p;
  }
}

TEST(Engines, patterns_vectorscan_rejects_or_reads_otherwise_run_on_re2) {
  const VectorscanMatcher m({"(?U)a+b", "^\\pL$", "c[^d]e", "fg"}, PatternSyntax::regex, {});
  const auto plan = m.plan();
  EXPECT_EQ(plan.re2_only, 2u);
  EXPECT_EQ(plan.vectorscan, 2u);
  EXPECT_EQ(plan.confirmed, 1u);
  // "c\ne1": c[^d]e's hit across the line end is confirmed away.
  EXPECT_EQ(engine_lines(m, "xx\naab\n\xe9\nc\ne1\ncxe\nfg"), (std::vector<std::size_t>{3, 7, 9, 14, 18}));
}

TEST(Engines, word_matches_are_reported_without_the_bytes_around_them) {
  const auto m = make_matcher({"foo"}, PatternSyntax::literal, {false, true, false});
  const std::string line = "foo,foo xfoo foo_ (foo)";
  std::vector<Match> all;
  m->all_in_line(line.data(), line.data() + line.size(), all);
  std::vector<std::ptrdiff_t> cols;
  for (const Match& x : all) {
    cols.push_back(x.begin - line.data());
    EXPECT_EQ(x.length, 3u);
  }
  EXPECT_EQ(cols, (std::vector<std::ptrdiff_t>{0, 4, 19}));
}

TEST(Engines, a_regex_that_asks_for_a_newline_is_refused_with_its_position) {
  for (const char* raw : {"a\\nb", "x[\\n]", "\\x0a", "a\\x{a}", "a\\012", "a\\12b"}) {
    const std::string p = raw;
    try {
      make_matcher({p}, PatternSyntax::regex);
      ADD_FAILURE() << p << " was accepted";
    } catch (const PatternError& e) {
      EXPECT_NE(std::string(e.what()).find("'" + p + "'"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("never spans lines"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(make_matcher({"[\\na]", "[^\\n]", "\\\\n"}, PatternSyntax::regex));
}

// A '[' before ':' that opens no [:name:] is a member, as RE2 reads it, and the
// class ends at the next ']': the '\n' after it is refused like any other
// (it was taken for part of the class, and the pattern matched nothing).
TEST(Engines, a_newline_after_a_class_with_a_bare_bracket_colon_is_refused) {
  for (const char* raw : {"[[:a]\\n", "[[:a]\\x0a", "[^[:a]b[\\n]"}) {
    const std::string p = raw;
    EXPECT_THROW(make_matcher({p}, PatternSyntax::regex), PatternError) << p;
  }
  EXPECT_EQ(newline_literal_at("[[:a]\\n"), 5u);
  EXPECT_EQ(newline_literal_at("[]\\n]\\n"), 5u);  // a leading ']' is a member
  EXPECT_EQ(newline_literal_at("[[:alpha:]\\n]"), std::nullopt);
}

// RE2 looks for a ":]" to the end of the text after each "[:" in a class. Our
// passes know where the last one is: a pattern of 600,000 bytes of "[:x" is
// read once (the loops before took 35 s for 300,000 bytes).
TEST(RegexSyntax, many_bracket_colons_without_a_name_are_read_in_linear_time) {
  std::string p = "a[";
  for (int i = 0; i < 200000; ++i) p += "[:x";
  p += "]\\xe9";
  EXPECT_FALSE(may_match_newline(p));
  EXPECT_EQ(newline_literal_at(p), std::nullopt);
  const std::string s = self_contained(p);
  EXPECT_EQ(s.size(), p.size() + 200000);  // each bare '[' written \[
  EXPECT_EQ(s.substr(0, 8), "a[\\[:x\\[");
  // No Latin-1 letter in the class: copied, each bare '[' written \[ so that
  // RE2's parser does not look for a ":]" either; the \xe9 kept out of -i.
  EXPECT_EQ(re2_text(p, true), s.substr(0, s.size() - 4) + "(?-i:\\xe9{1})");
  EXPECT_EQ(re2_text("a[[:x]", false), "a[\\[:x]");
  EXPECT_EQ(re2_text("a[[:alpha:]]", false), "a[[:alpha:]]");
  // The whole search, RE2's compile included, takes no time for such a pattern.
  const auto m = make_matcher({p.substr(0, p.size() - 4)}, PatternSyntax::regex, {}, Engine::re2);
  EXPECT_EQ(engine_lines(*m, "b\na:\n"), (std::vector<std::size_t>{2}));
}

// The lines of `block` that each engine finds for `pats`: they must agree.
std::vector<std::size_t> lines_on_every_engine(const std::vector<std::string>& pats, PatternSyntax syntax,
                                               const MatchFlags& f, const std::string& block) {
  const auto want = engine_lines(*make_matcher(pats, syntax, f, Engine::automatic), block);
  EXPECT_EQ(engine_lines(*make_matcher(pats, syntax, f, Engine::vectorscan), block), want) << pats[0];
  EXPECT_EQ(engine_lines(*make_matcher(pats, syntax, f, Engine::re2), block), want) << pats[0];
  return want;
}

// A range that spans '\n' is searched on a block of lines by Vectorscan: its
// hits must be confirmed line by line, or "a\nb" is found across the line end.
TEST(Engines, a_class_range_over_the_line_end_matches_inside_lines_only) {
  for (const char* raw : {"a[\\x01-\\x7f]b", "a[\\0-z]b", "a[\\t-\\r]b"}) {
    const std::string p = raw;
    EXPECT_TRUE(may_match_newline(p)) << p;
    EXPECT_EQ(lines_on_every_engine({p}, PatternSyntax::regex, {}, "a\nb\na\x0b" "b\n"), (std::vector<std::size_t>{4}))
        << p;
  }
}

// Vectorscan reads \v, \s and \S as PCRE does: \v is vertical white space
// ('\n' included) where RE2's is the vertical tab, and PCRE's \s holds the
// vertical tab where RE2's does not. Every engine must find RE2's lines: before,
// a[\v]b found "a" and "b" across a line end on Vectorscan, and a\Sb, a[^\s]b
// missed "a\vb" there.
TEST(Engines, v_s_and_S_escapes_mean_what_re2_means_on_every_engine) {
  // Lines at 0 "a", 2 "b", 4 "a\vb", 8 "a b", 12 "a\x85b".
  const std::string block = "a\nb\na\x0b" "b\na b\na\x85" "b\n";
  struct Case {
    const char* pattern;
    std::vector<std::size_t> want;
  };
  const Case cases[] = {
      {"a\\vb", {4}},           {"a[\\v]b", {4}},      {"a[\\v-\\v]b", {4}}, {"a[\\t-\\v]b", {4}},
      {"a\\sb", {8}},           {"a[\\s]b", {8}},      {"a\\Sb", {4, 12}},   {"a[^\\s]b", {4, 12}},
      {"a[\\S]b", {4, 12}},     {"a[^\\S]b", {8}},     {"a[^\\S\\n]b", {8}}, {"a[\\Sz]b", {4, 12}},
      {"a[[:space:]]b", {4, 8}},  {"a\\\\vb", {}},
  };
  for (const Case& c : cases)
    EXPECT_EQ(lines_on_every_engine({c.pattern}, PatternSyntax::regex, {}, block), c.want) << c.pattern;
  // The text every engine compiles: escaped backslashes and \Q..\E left alone.
  EXPECT_EQ(self_contained("a\\v[\\v\\s]\\S\\\\s\\Q\\s\\E"),
            "a\\x0b[\\x0b\\t\\n\\f\\r\\x20][^\\t\\n\\f\\r\\x20]\\\\s\\Q\\s\\E");
  EXPECT_FALSE(may_match_newline(self_contained("a[\\v]\\v")));  // exact now: no confirmation needed
}

// -i folds ASCII letters only, as grep in the C locale: RE2 in Latin-1 mode
// would also fold É with é (found by fuzz_match_engines; match/re2_text.hpp).
TEST(Engines, ignore_case_folds_ascii_letters_only_on_every_engine) {
  const MatchFlags i{true, false, false};
  // Lines: ÉTÉ, été, Été, éTé.
  const std::string block = "\xc9T\xc9\n\xe9t\xe9\n\xc9t\xe9\n\xe9T\xe9";
  for (const PatternSyntax syntax : {PatternSyntax::literal, PatternSyntax::regex})
    EXPECT_EQ(lines_on_every_engine({"\xe9t\xe9"}, syntax, i, block), (std::vector<std::size_t>{4, 12}));
  EXPECT_EQ(lines_on_every_engine({"(?i)\xe9t\xe9"}, PatternSyntax::regex, {}, block),
            (std::vector<std::size_t>{4, 12}));
}

TEST(Engines, ascii_only_folding_follows_groups_classes_and_escapes) {
  const MatchFlags i{true, false, false};
  struct Case {
    const char* pattern;
    MatchFlags flags;
    const char* block;
    std::vector<std::size_t> want;
  };
  const Case cases[] = {
      // A class of Latin-1 letters: no other case; its ASCII letters still fold.
      {"^[\xe0-\xfe]x$", i, "\xc9X\n\xe9X", {3}},
      {"^[a\xe9]$", i, "A\n\xc9\n\xe9", {0, 4}},
      // Negated: É is not é.
      {"^[^\xe9]$", i, "\xc9\n\xe9\nA", {0, 4}},
      // Folding on only inside (?i:...) or up to the end of (?i)'s group: the
      // class after it must not take 'A'.
      {"^(?i:x)[a\xe9]$", {}, "XA\nXa\nx\xe9\nX\xc9", {3, 6}},
      {"^(?:(?i)x)[a\xe9]$", {}, "XA\nXa\nx\xe9\nX\xc9", {3, 6}},
      {"^(?i)a(?-i:b)\xe9$", {}, "Ab\xe9\nAB\xe9\nab\xc9", {0}},
      // Escapes and quoted text name the byte, not its other case.
      {"^\\xe9$", i, "\xc9\n\xe9", {2}},
      {"^\\351$", i, "\xc9\n\xe9", {2}},
      {"^\\Q\xe9.\\E$", i, "\xc9.\n\xe9.\n\xe9x", {3}},
      // POSIX names fold as RE2 folds them: [:upper:] takes a, [:^lower:] no letter.
      {"^[[:upper:]\xe9]$", i, "a\n\xc9\n\xe9", {0, 4}},
      {"^[[:^lower:]\xe9]$", i, "A\n1\n\xc9\n\xe9", {2, 4, 6}},
  };
  for (const Case& c : cases)
    EXPECT_EQ(lines_on_every_engine({c.pattern}, PatternSyntax::regex, c.flags, c.block), c.want) << c.pattern;
}

// Each pattern of a set means what it means alone. RE2 reads an unclosed \Q,
// and a class's "[:", up to the end of the whole expression, so the next
// pattern of the alternation (or the group around every pattern, -x's and
// -w's wrapping) was read into them and a valid set refused (found by
// fuzz_match_engines; regex_syntax.hpp, self_contained()).
TEST(Engines, every_pattern_of_a_set_means_what_it_means_alone) {
  const MatchFlags plain{}, line{false, false, true}, word{false, true, false};
  // Lines at offsets 0 "ab", 3 "q:]", 7 "[", 9 "xa\Qb)", 16 "c", 18 "x".
  const std::string block = "ab\nq:]\n[\nxa\\Qb)\nc\nx";
  // a\Qb is "ab": the quote ends with the pattern.
  for (const MatchFlags& f : {plain, line, word}) {
    EXPECT_EQ(lines_on_every_engine({"a\\Qb"}, PatternSyntax::regex, f, block), (std::vector<std::size_t>{0}));
    EXPECT_EQ(lines_on_every_engine({"a\\Qb", "c"}, PatternSyntax::regex, f, block),
              (std::vector<std::size_t>{0, 16}));
  }
  // [[:x] is the class of '[', ':' and 'x' (no ":]" in it), whatever follows.
  EXPECT_EQ(lines_on_every_engine({"[[:x]", "q:]"}, PatternSyntax::regex, plain, block),
            (std::vector<std::size_t>{3, 7, 9, 18}));
  EXPECT_EQ(lines_on_every_engine({"[[:x]", "q:]"}, PatternSyntax::regex, line, block),
            (std::vector<std::size_t>{3, 7, 18}));
  EXPECT_EQ(lines_on_every_engine({"q:]", "[^[:a]"}, PatternSyntax::regex, line, block),
            (std::vector<std::size_t>{3, 16, 18}));
}

// Columns (--json, all_in_line()) are the same whichever engine runs: a
// literal's every occurrence, overlapping ones too, and an empty literal once
// at the line start; a regex's own non-overlapping matches. Before, a literal
// run through RE2 (--engine re2, or -i/-w on the other engines) reported "aa"
// once in "aaa" and an empty literal at every byte.
TEST(Engines, columns_are_the_same_on_every_engine) {
  const std::string block = "aaa\nxaAa\naa-aa\n\nb";
  struct Case {
    std::vector<std::string> pats;
    PatternSyntax syntax;
    MatchFlags flags;
    std::vector<test::Column> want;
  };
  const MatchFlags plain{}, i{true, false, false}, w{false, true, false};
  const Case cases[] = {
      // Lines at 0 "aaa", 4 "xaAa", 9 "aa-aa", 15 "", 16 "b".
      {{"aa"}, PatternSyntax::literal, plain, {{0, 2, 0}, {1, 2, 0}, {9, 2, 0}, {12, 2, 0}}},
      {{"aa"}, PatternSyntax::literal, i, {{0, 2, 0}, {1, 2, 0}, {5, 2, 0}, {6, 2, 0}, {9, 2, 0}, {12, 2, 0}}},
      {{"aa"}, PatternSyntax::literal, w, {{9, 2, 0}, {12, 2, 0}}},
      {{"", "b"}, PatternSyntax::literal, plain, {{0, 0, 0}, {4, 0, 0}, {9, 0, 0}, {15, 0, 0}, {16, 0, 0}, {16, 1, 1}}},
      {{"aa"}, PatternSyntax::regex, plain, {{0, 2, 0}, {9, 2, 0}, {12, 2, 0}}},
      // Regexes that are each one string run on the literal engines (make_matcher)
      // and still report a regex set's columns: each pattern's own
      // non-overlapping matches ("aa" at 0, not at 1).
      {{"aa", "a"},
       PatternSyntax::regex,
       plain,
       {{0, 2, 0}, {0, 1, 1}, {1, 1, 1}, {2, 1, 1}, {5, 1, 1}, {7, 1, 1}, {9, 2, 0}, {9, 1, 1}, {10, 1, 1}, {12, 2, 0},
        {12, 1, 1}, {13, 1, 1}}},
      {{"a\\-a"}, PatternSyntax::regex, plain, {{10, 3, 0}}},
      {{"aa", "a"},
       PatternSyntax::regex,
       i,
       {{0, 2, 0}, {0, 1, 1}, {1, 1, 1}, {2, 1, 1}, {5, 2, 0}, {5, 1, 1}, {6, 1, 1}, {7, 1, 1}, {9, 2, 0}, {9, 1, 1},
        {10, 1, 1}, {12, 2, 0}, {12, 1, 1}, {13, 1, 1}}},
  };
  for (const Case& c : cases) {
    std::vector<test::Column> got[3];
    int e = 0;
    for (const Engine engine : {Engine::automatic, Engine::vectorscan, Engine::re2}) {
      const auto m = make_matcher(c.pats, c.syntax, c.flags, engine);
      got[e++] = test::engine_columns(*m, block, engine_lines(*m, block));
    }
    if (c.syntax == PatternSyntax::literal && !c.pats[0].empty()) {
      const auto lines = engine_lines(*make_matcher(c.pats, c.syntax, c.flags), block);
      EXPECT_EQ(test::naive_literal_columns(c.pats, block, c.flags, lines), c.want) << c.pats[0] << " naive";
    }
    EXPECT_EQ(got[0], c.want) << c.pats[0] << " automatic";
    EXPECT_EQ(got[1], c.want) << c.pats[0] << " vectorscan";
    EXPECT_EQ(got[2], c.want) << c.pats[0] << " re2";
  }
}

// Vectorscan 5.4.9 misses some matches that end in the last 32 bytes of the
// data: a pattern like ^x beside another one, and a one-byte pattern that is
// the prefix of another (x beside xy). A block ends on its last line's last
// byte, so the last line "}" of a file was not found by -E -e '^}' -e foo, nor
// "aa...x" by -F -e x -e xy on Vectorscan (found by fuzz_match_engines, with
// -x, and by fuzz_keyword_filter; the matcher now scans its last lines again
// with padding, vectorscan_matcher.cpp).
TEST(Engines, a_one_byte_line_at_the_end_of_a_block_is_found_beside_other_patterns) {
  struct Case {
    std::vector<std::string> pats;
    PatternSyntax syntax;
    MatchFlags flags;
    const char* last;  // the block's last line
  };
  const Case cases[] = {
      {{"foo", "^}"}, PatternSyntax::regex, {}, "}"},
      {{"foo", "^[xy]+$"}, PatternSyntax::regex, {}, "x"},
      {{"foo?", "x"}, PatternSyntax::literal, {false, false, true}, "x"},
      {{"foo", "x"}, PatternSyntax::literal, {false, true, false}, "x"},
      {{"xy", "x"}, PatternSyntax::literal, {}, "aaax"},
      {{"xy", "x"}, PatternSyntax::regex, {}, "aaax"},
      {{"KEY", "k", "foo", "bar"}, PatternSyntax::literal, {true, false, false}, "aK"},
  };
  for (const Case& c : cases) {
    const auto vs = make_matcher(c.pats, c.syntax, c.flags, Engine::vectorscan);
    for (std::size_t n = 0; n <= 200; ++n) {
      std::string block = std::string(n, 'a') + "\n" + c.last;
      EXPECT_EQ(engine_lines(*vs, block), (std::vector<std::size_t>{n + 1})) << c.pats[1] << " after " << n << " bytes";
      // The same block with the bytes after it lent (the line scanner's way,
      // matching_lines_padded()): found, and the lent bytes given back as they
      // were. Here they hold word bytes: what follows the block must not
      // count as its last line's continuation ($, -w, -x).
      const std::string after(Matcher::kWritableAfter, 'q');
      std::string buffer = block + after;
      std::vector<std::size_t> lines;
      vs->matching_lines_padded(buffer.data(), buffer.data() + block.size(), lines, false);
      EXPECT_EQ(lines, (std::vector<std::size_t>{n + 1})) << c.pats[1] << " after " << n << " bytes, padded";
      EXPECT_EQ(buffer, block + after) << c.pats[1] << " after " << n << " bytes: the lent bytes changed";
    }
  }
  // A last line of several megabytes (past the copy a tail scan makes) whose
  // match ends in its last bytes, scanned in place.
  const auto vs = make_matcher({"xy", "x"}, PatternSyntax::literal, {}, Engine::vectorscan);
  std::string big = std::string(3 << 20, 'a') + "x";
  big.append(Matcher::kWritableAfter, 'q');
  std::vector<std::size_t> lines;
  vs->matching_lines_padded(big.data(), big.data() + (3 << 20) + 1, lines, false);
  EXPECT_EQ(lines, (std::vector<std::size_t>{0}));
  EXPECT_EQ(big.substr((3 << 20) + 1), std::string(Matcher::kWritableAfter, 'q'));
}

// Vectorscan reads a regex as a C string: one with a raw NUL byte ran on it cut
// short, so a\Qb<NUL>c (the literal "ab<NUL>c") matched every line with "ab"
// (found by fuzz_match_engines). Such a regex runs on RE2 alone.
TEST(Engines, a_regex_with_a_nul_byte_is_searched_whole) {
  const std::string nul(1, '\0');
  const std::string block = "ab\nab" + nul + "c\nxab" + nul + "cd";
  for (const std::string& p : {"a\\Qb" + nul + "c", "ab" + nul + "c", "ab[" + nul + "]c"})
    EXPECT_EQ(lines_on_every_engine({p, "zz"}, PatternSyntax::regex, {}, block), (std::vector<std::size_t>{3, 8})) << p;
}

// Every line is searched alone, as in grep: \A and \z, and ^ and $ under
// (?-m), are a line's start and end on every engine. Before, they meant the
// start and end of the block a line came in (which depends on how a file is
// read), and on an empty block RE2 found \A where Vectorscan did not (found
// by fuzz_match_engines).
TEST(Engines, text_anchors_are_line_anchors_on_every_engine) {
  // Lines at 0 "foo", 4 "xfoo", 9 "foox", 14 "foo".
  const std::string block = "foo\nxfoo\nfoox\nfoo";
  struct Case {
    const char* pattern;
    std::vector<std::size_t> want;
  };
  const Case cases[] = {
      {"\\Afoo", {0, 9, 14}},      {"foo\\z", {0, 4, 14}},        {"(?-m)^foo$", {0, 14}},
      {"(?i-m:^FOO$)", {0, 14}},     {"(?-m:^)x", {4}},               {"\\Qfoo\\A\\E|^x", {4}},
  };
  for (const Case& c : cases)
    EXPECT_EQ(lines_on_every_engine({c.pattern, "zz"}, PatternSyntax::regex, {}, block), c.want) << c.pattern;
  EXPECT_EQ(lines_on_every_engine({"\\A", "zz"}, PatternSyntax::regex, {}, ""), (std::vector<std::size_t>{0}));
  EXPECT_EQ(lines_on_every_engine({"\\z", "zz"}, PatternSyntax::regex, {}, "a\n\n\n"),
            (std::vector<std::size_t>{0, 2, 3, 4}));
}

// -w's prefix is "a line start or a non-word byte", and the byte is part of
// RE2's match. At byte 0 both begin there and RE2 reports the first only, so a
// word of non-word bytes at byte 1 ("-" in "---") was missed after the one at
// byte 0, in columns and by -o (found by fuzz_match_engines, a NUL byte).
TEST(Engines, a_word_at_byte_one_after_a_word_at_the_line_start_is_found) {
  const MatchFlags w{false, true, false};
  for (const PatternSyntax syntax : {PatternSyntax::literal, PatternSyntax::regex}) {
    for (const Engine engine : {Engine::automatic, Engine::vectorscan, Engine::re2}) {
      const auto m = make_matcher({"-"}, syntax, w, engine);
      EXPECT_EQ(test::engine_columns(*m, "---", {0}), (std::vector<test::Column>{{0, 1, 0}, {1, 1, 0}, {2, 1, 0}}));
      const std::string line = "---";
      const auto second = m->next_match(line.data(), line.data() + 1, line.data() + line.size());
      ASSERT_TRUE(second.has_value());
      EXPECT_EQ(second->begin, line.data() + 1);
    }
  }
}

// RE2 20220601 (Debian 12) factors the common leading literal of an
// alternation's branches into a literal that loses Latin-1 mode, so the two
// UTF-8 patterns café1 and café2 ("caf\xc3\xa9" in common) found no line on
// RE2, and -o printed nothing for lines Vectorscan had taken (found by
// fuzz_match_engines; match/re2_text.hpp writes bytes >= 0x80 as repeats).
TEST(Engines, patterns_that_share_a_leading_byte_above_0x7f_match_on_every_engine) {
  // Lines at 0 "café1", 7 "café2", 14 "\x80b", 17 "cafe1".
  const std::string block = "caf\xc3\xa9" "1\ncaf\xc3\xa9" "2\n\x80" "b\ncafe1";
  const MatchFlags plain{}, i{true, false, false};
  for (const MatchFlags& f : {plain, i}) {
    EXPECT_EQ(lines_on_every_engine({"caf\xc3\xa9" "1", "caf\xc3\xa9" "2"}, PatternSyntax::literal, f, block),
              (std::vector<std::size_t>{0, 7}));
    EXPECT_EQ(lines_on_every_engine({"\xc3\xa9" "1|\xc3\xa9" "2"}, PatternSyntax::regex, f, block),
              (std::vector<std::size_t>{0, 7}));
    EXPECT_EQ(lines_on_every_engine({"[\\x80]a|[\\x80]b", "\\Q\x80\\Ea|\\x{80}c"}, PatternSyntax::regex, f, block),
              (std::vector<std::size_t>{14}));
    // Columns (-o, --json) come from RE2 on every engine.
    const auto m = make_matcher({"\xc3\xa9" "1|\xc3\xa9" "2"}, PatternSyntax::regex, f);
    EXPECT_EQ(test::engine_columns(*m, block, {0, 7}), (std::vector<test::Column>{{3, 3, 0}, {10, 3, 0}}));
  }
}

TEST(Engines, a_clone_finds_what_the_original_finds_after_it_is_gone) {
  auto original = make_matcher({"b[^c]*d", "zz", "(?U)q+"}, PatternSyntax::regex, {true, false, false});
  auto copy = original->clone();
  original.reset();
  EXPECT_EQ(engine_lines(*copy, "B\nd\nbxD\nZZ\nq"), (std::vector<std::size_t>{4, 8, 11}));
}

TEST(RegexSyntax, may_match_newline_is_false_only_where_no_newline_can_match) {
  for (const char* r : {"abc", "a.b", "[a-z]+", "\\d\\w\\b", "\\x41", "[[:alpha:]]", "\\.\\*", "(?i)ab", "\\Qa[^b\\E",
                        "[]a]", "a{2,3}", "[\\x0b-\\x7f]", "[[:x]", "[\\x01]",
                        // One byte, read as the class reader reads it: RE2's \v is the
                        // vertical tab (Vectorscan gets \x0b: self_contained()).
                        "\\v", "\\101", "\\11", "\\0", "\\t\\r\\f\\a", "\\-"})
    EXPECT_FALSE(may_match_newline(r)) << r;
  for (const char* r : {"\\s", "[^a]", "(?s).", "(?is)x", "\\W", "\\D", "\\S", "[[:space:]]", "\\x0a", "\\x{a}",
                        "\\n", "\\pL", "\\012", "\\12", "\\x{100}", "[\t-\r]", "[\\x01-\\x7f]", "[ -~\\t-\\r]",
                        "[[:^alpha:]]"})
    EXPECT_TRUE(may_match_newline(r)) << r;
}

TEST(RegexSyntax, newline_only_last_holds_for_a_one_line_token_ended_by_a_class_or_the_end) {
  for (const char* r : {"tk_[a-z]{4}(?:[^a-z]|$)", "\\b(x[0-9]+)(?:[\"'\\s;]|$)", "a(?:\\s|\\z)", "(?i)k(?:[^\\]]|$)",
                        "(?:^|[^a\\n])tk(?:\\W|$)", "x?(?:[^a-y]|$)"})
    EXPECT_TRUE(newline_only_last(r)) << r;
  for (const char* r : {"abc", "tk(?:[^a]|$)x",            // the group is not the end
                        "a\\s*=(?:[^a]|$)", "(?:^|[^a])tk(?:\\W|$)",  // a '\n' may come before it
                        "(a(?:[^a]|$))", "a(?:[^a]|$)+",     // inside a group, repeated
                        "a(?:[^a]|b)", "a(?:[^a][^b]|$)", "a(?:\\n\\n|$)", "a(?:x|$)", "a\\(?:[^a]|$)",
                        "a[(?:][^a]|$)", "(?s)a.(?:[^a]|$)"})
    EXPECT_FALSE(newline_only_last(r)) << r;
}

TEST(RegexSyntax, self_contained_closes_a_quote_and_escapes_a_class_bracket_no_name_follows) {
  struct Case {
    const char* regex;
    const char* want;
  };
  const Case cases[] = {
      {"a\\Qb", "a\\Qb\\E"},
      {"a\\Qb\\Ec", "a\\Qb\\Ec"},
      {"\\Qa\\", "\\Qa\\\\E"},  // the trailing backslash stays a quoted byte
      {"\\Q[[:\\E", "\\Q[[:\\E"},  // quoted: no class
      {"[[:x]", "[\\[:x]"},
      {"[^[:x]", "[^\\[:x]"},
      {"[][:x]", "[]\\[:x]"},      // a leading ']' is a member, not the end
      {"[[:alpha:]x]", "[[:alpha:]x]"},
      {"[[:x]y:]", "[[:x]y:]"},      // ":]" within the pattern: RE2 reads a (bad) name either way
      {"\\[[:x]", "\\[[:x]"},    // \[ is no class; the next '[' opens one without a "[:"
      {"[\\[:x]", "[\\[:x]"},
      {"a(b)[c]", "a(b)[c]"},
  };
  for (const Case& c : cases) EXPECT_EQ(self_contained(c.regex), c.want) << c.regex;
  // Alone, the rewrite means what the pattern meant (RE2 agrees on every line).
  const std::string lines[] = {"ab", "a\\Qb", "a\\", "[", ":", "x", "y:]", "[[:", "c", "abc", "a\\b"};
  for (const Case& c : cases) {
    const RE2 before(c.regex, RegexMatcher::options({}));
    const RE2 after(self_contained(c.regex), RegexMatcher::options({}));
    ASSERT_EQ(before.ok(), after.ok()) << c.regex;
    if (!before.ok()) continue;
    for (const std::string& l : lines)
      EXPECT_EQ(RE2::PartialMatch(l, before), RE2::PartialMatch(l, after)) << c.regex << " on " << l;
  }
}

TEST(RegexSyntax, self_contained_turns_text_anchors_into_line_anchors_outside_classes_and_quotes) {
  EXPECT_EQ(self_contained("\\Afoo\\z"), "^foo$");
  EXPECT_EQ(self_contained("\\Q\\A\\E\\A[\\A\\z]"), "\\Q\\A\\E^[\\A\\z]");
  EXPECT_EQ(self_contained("(?-m)^a$"), "^a$");
  EXPECT_EQ(self_contained("(?i-m)a"), "(?i)a");
  EXPECT_EQ(self_contained("(?-mi:a)"), "(?-i:a)");
  EXPECT_EQ(self_contained("(?s-m:a)"), "(?s:a)");
  EXPECT_EQ(self_contained("(?-m:a)"), "(?:a)");
  for (const char* same : {"(?i)a", "(?m)a", "(?:a)", "(?P<n>a)", "\\\\A", "[[:alpha:]\\]]\\b"})
    EXPECT_EQ(self_contained(same), same) << same;
}

TEST(RegexSyntax, literal_of_regex_reads_a_regex_that_is_one_string_and_nothing_else) {
  EXPECT_EQ(literal_of_regex("foo"), "foo");
  EXPECT_EQ(literal_of_regex("a\\.b\\-c\\/d"), "a.b-c/d");
  EXPECT_EQ(literal_of_regex("caf\xc3\xa9 = 1"), "caf\xc3\xa9 = 1");
  for (const char* regex : {"a.b", "fo+", "foo|bar", "^x", "x$", "[ab]", "a{2}", "(a)", "a?", "\\d", "\\x41", "\\Qa\\E",
                            "\\", "a\\ b", "\\n"})
    EXPECT_EQ(literal_of_regex(regex), std::nullopt) << regex;
  // Random regexes over letters, metacharacters and escapes: each one read as
  // a literal is a regex that matches that string and no other (RE2's range of
  // possible matches is that one string).
  std::mt19937 rng(17);
  const std::string alphabet = "ab-/ =.|+*?()[]{}^$";
  int literals = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string regex;
    const std::size_t n = 1 + rng() % 8;
    for (std::size_t k = 0; k < n; ++k) {
      if (rng() % 3 == 0) regex += '\\';
      regex += alphabet[rng() % alphabet.size()];
    }
    const auto lit = literal_of_regex(regex);
    if (!lit) continue;
    ++literals;
    const RE2 re(regex, RegexMatcher::options({}));
    ASSERT_TRUE(re.ok()) << regex << ": " << re.error();
    EXPECT_TRUE(RE2::FullMatch(*lit, re)) << regex;
    std::string min, max;
    ASSERT_TRUE(re.PossibleMatchRange(&min, &max, 64)) << regex;
    EXPECT_EQ(min, *lit) << regex;
    EXPECT_EQ(max, *lit) << regex;
  }
  EXPECT_GT(literals, 100);
}

TEST(RegexSyntax, escape_literal_matches_exactly_the_bytes_of_the_literal) {
  std::mt19937 rng(9);
  for (int round = 0; round < 500; ++round) {
    std::string lit;
    const std::size_t n = 1 + rng() % 12;
    for (std::size_t i = 0; i < n; ++i) {
      char c = static_cast<char>(rng() % 256);
      if (c == '\n') c = 'n';
      lit += c;
    }
    const RE2 re(escape_literal(lit), RegexMatcher::options({}));
    ASSERT_TRUE(re.ok()) << re.error();
    EXPECT_TRUE(RE2::FullMatch(lit, re));
    EXPECT_FALSE(may_match_newline(escape_literal(lit)));
  }
}

}  // namespace
}  // namespace engine_test
}  // namespace stealscan

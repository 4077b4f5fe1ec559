// Unicode mode (match/unicode_syntax.hpp): the byte superset Vectorscan runs
// holds every line the Unicode regex matches and is exact on ASCII lines; every
// engine finds the same lines and columns on text mixing ASCII, Greek, CJK,
// combining marks and invalid UTF-8; the edge \b's that become -w's wrappers;
// and what has no Unicode form is refused by name. ripgrep is the reference in
// e2e_unicode_test.cpp.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <random>
#include <string>
#include <vector>

#include "match/matcher.hpp"
#include "match/regex_matcher.hpp"
#include "match/regex_syntax.hpp"
#include "match/unicode_syntax.hpp"
#include "support/naive_grep.hpp"
#include "support/test_support.hpp"  // tests/support: sptest::scaled()

namespace stealscan {
// Named after the file: test binaries compile several files as one unit.
namespace unicode_test {
namespace {

// Pieces of text: ASCII words and punctuation, Latin-1 letters, Greek (final
// sigma too), CJK, a combining acute, the Kelvin sign and long s, no-break and
// ideographic spaces, Arabic-Indic and fullwidth digits, an em dash, and
// invalid UTF-8 (a stray continuation, a truncated sequence, 0xff).
const char* const kPieces[] = {
    "na", "ve", "foo", "Bar", "_t", "int", " ", "-", ".", "x1", "k", "S", "a", "b",
    "\xc3\xaf",                  // ï
    "caf\xc3\xa9",               // café
    "CAF\xc3\x89",               // CAFÉ
    "\xcf\x83\xce\xaf\xcf\x83",  // σίσ
    "\xce\xa3\xce\x8a\xce\xa3",  // ΣΊΣ
    "\xcf\x82",                  // ς
    "\xe8\xaa\x9e",              // 語
    "e\xcc\x81",                 // e + combining acute
    "\xe2\x84\xaa",              // Kelvin sign
    "\xc5\xbf",                  // long s
    "\xc2\xa0",                  // no-break space
    "\xe3\x80\x80",              // ideographic space
    "\xd9\xa3",                  // Arabic-Indic three
    "\xef\xbc\x93",              // fullwidth three
    "\xe2\x80\x94",              // em dash
    "\x80",                      // stray continuation byte
    "\xe2\x84",                  // truncated sequence
    "\xff",
};

std::string random_unicode_block(std::mt19937& rng, std::size_t lines) {
  std::string s;
  for (std::size_t l = 0; l < lines; ++l) {
    const std::size_t n = rng() % 9;
    for (std::size_t k = 0; k < n; ++k) s += kPieces[rng() % std::size(kPieces)];
    if (l + 1 < lines) s += '\n';
  }
  return s;
}

const char* const kPatterns[] = {
    "\\w+",      "\\w+_t\\b", "\\bna\\b",  "a.b",       "n.",       "[^a ]+",   "\\d+",       "\\s\\S",
    "\\W+",      "[\\w-]+",   "\\D\\d",    "[^\\s]+",   "caf\xc3\xa9", "\xce\xa3", "(?i)\xcf\x83", "\\x{3c3}",
    "k",         "[ks]+",     "\\bfoo",    "Bar\\b",    "\\b(na|foo)\\b", "e\\pM", "\\p{Greek}+", "[[:alpha:]]+",
    "\\xff",     ".",         "\\b\\w",    "\\w\\b",    "(?:na|ve)+",     "[\xc3\xaf\xc3\xa9]",
};

std::vector<std::string_view> lines_of(std::string_view block) {
  std::vector<std::string_view> out;
  for (std::size_t p = 0;;) {
    const std::size_t nl = block.find('\n', p);
    out.push_back(block.substr(p, nl == std::string_view::npos ? std::string_view::npos : nl - p));
    if (nl == std::string_view::npos) return out;
    p = nl + 1;
  }
}

MatchFlags unicode_flags(bool ignore_case, bool word) {
  MatchFlags f;
  f.unicode = true;
  f.ignore_case = ignore_case;
  f.word = word;
  return f;
}

bool has_high(std::string_view line) { return has_high_byte(line.data(), line.size()); }

TEST(UnicodeSyntax, the_byte_form_matches_every_line_the_unicode_form_matches_and_the_same_ascii_lines) {
  std::mt19937 rng(21);
  const std::string block = random_unicode_block(rng, 3000);
  const std::vector<std::string_view> lines = lines_of(block);
  for (const bool icase : {false, true}) {
    for (const bool word : {false, true}) {
      const MatchFlags f = unicode_flags(icase, word);
      for (const char* p : kPatterns) {
        const EngineForms forms = engine_forms(p, PatternSyntax::regex, f);
        if (forms.re2_only) continue;
        MatchFlags bytes_flags = f;
        bytes_flags.unicode = false;
        const RE2 unicode(forms.re2, RegexMatcher::options(f));
        const RE2 bytes(forms.bytes, RegexMatcher::options(bytes_flags));
        ASSERT_TRUE(unicode.ok()) << p << ": " << unicode.error();
        ASSERT_TRUE(bytes.ok()) << p << ": " << bytes.error() << " in " << forms.bytes;
        for (const std::string_view line : lines) {
          const bool u = RE2::PartialMatch(line, unicode);
          const bool b = RE2::PartialMatch(line, bytes);
          if (u) {
            EXPECT_TRUE(b) << "'" << p << "' i=" << icase << " w=" << word << " line '" << line << "'";
          }
          if (!has_high(line)) {
            EXPECT_EQ(u, b) << "'" << p << "' i=" << icase << " w=" << word << " ASCII line '" << line << "'";
          } else if (u != b) {
            EXPECT_TRUE(forms.widened) << "'" << p << "' differs on a line but is not marked widened";
          }
        }
      }
    }
  }
}

TEST(Unicode, every_engine_finds_the_same_lines_and_columns_on_mixed_text) {
  std::mt19937 rng(22);
  // Each case compiles three matchers: fewer rounds under the sanitizers.
  for (std::size_t round = 0; round < sptest::scaled(3, 1); ++round) {
    const std::string block = random_unicode_block(rng, 300);
    for (const bool icase : {false, true}) {
      for (const bool word : {false, true}) {
        const MatchFlags f = unicode_flags(icase, word);
        for (const char* p : kPatterns) {
          std::vector<test::Column> got[3];
          std::vector<std::size_t> lines[3];
          int e = 0;
          for (const Engine engine : {Engine::automatic, Engine::vectorscan, Engine::re2}) {
            const auto m = make_matcher({p}, PatternSyntax::regex, f, engine);
            lines[e] = test::engine_lines(*m, block);
            got[e] = test::engine_columns(*m, block, lines[e]);
            ++e;
          }
          EXPECT_EQ(lines[0], lines[2]) << "'" << p << "' i=" << icase << " w=" << word << " automatic vs re2";
          EXPECT_EQ(lines[1], lines[2]) << "'" << p << "' i=" << icase << " w=" << word << " vectorscan vs re2";
          EXPECT_EQ(got[0], got[2]) << "'" << p << "' i=" << icase << " w=" << word << " columns";
          EXPECT_EQ(got[1], got[2]) << "'" << p << "' i=" << icase << " w=" << word << " columns";
        }
      }
    }
  }
}

// Vectorscan's hit is taken without RE2 where the line is ASCII up to the byte
// after the hit (a line's far end may be 100 MB away); a byte >= 0x80 there
// (a letter that continues the word, so no \b) sends it to RE2.
TEST(Unicode, a_hit_is_exact_where_its_line_is_ascii_up_to_the_byte_after_it) {
  MatchFlags u;
  u.unicode = true;
  const std::string far(100'000, 'x');
  const std::vector<std::string> block_lines{
      "abc_t\xc3\xa9",                             // _té: no boundary after _t
      "abc_t \xc3\xa9",                            // a space first: a match
      "abc_t " + far + "\xc3\xa9",                 // non-ASCII far after the match
      "\xc3\xa9 abc_t",                            // non-ASCII before it
      "abc_t\xe2\x80\x8d",                         // a zero-width joiner: a word character
      far + " abc_t\xc3\xa9 " + far + " def_t.",  // the first hit rejected, a later one taken
      "abc_tt",                                    // no boundary (ASCII)
  };
  std::string block;
  for (const std::string& l : block_lines) block += l + "\n";
  for (const char* p : {"\\w+_t\\b", "_t\\b", "c_t$"}) {
    const auto vs = make_matcher({p}, PatternSyntax::regex, u, Engine::vectorscan);
    const auto re2 = make_matcher({p}, PatternSyntax::regex, u, Engine::re2);
    EXPECT_EQ(test::engine_lines(*vs, block), test::engine_lines(*re2, block)) << p;
  }
  const auto m = make_matcher({"\\w+_t\\b"}, PatternSyntax::regex, u, Engine::vectorscan);
  std::vector<std::size_t> want;  // the lines' starts: 2nd, 3rd, 4th and 6th
  std::size_t at = 0;
  for (std::size_t i = 0; i < block_lines.size(); ++i) {
    if (i == 1 || i == 2 || i == 3 || i == 5) want.push_back(at);
    at += block_lines[i].size() + 1;
  }
  EXPECT_EQ(test::engine_lines(*m, block), want);
}

// One pattern on one line: whether it matches, and its first match.
std::string first_match(const std::string& pattern, std::string_view line, MatchFlags f,
                        PatternSyntax syntax = PatternSyntax::regex) {
  const auto m = make_matcher({pattern}, syntax, f);
  const auto hit = m->next_match(line.data(), line.data(), line.data() + line.size());
  return hit ? std::string(hit->begin, hit->length) : std::string("<none>");
}

TEST(Unicode, word_characters_digits_spaces_and_case_are_unicodes) {
  MatchFlags u;
  u.unicode = true;
  EXPECT_EQ(first_match("\\w+", "-na\xc3\xafve-", u), "na\xc3\xafve");
  EXPECT_EQ(first_match("\\w+_t\\b", "x \xe8\xaa\x9e_t;", u), "\xe8\xaa\x9e_t");
  EXPECT_EQ(first_match("\\d+", "n=\xd9\xa3\xef\xbc\x93!", u), "\xd9\xa3\xef\xbc\x93");
  EXPECT_EQ(first_match("a\\sb", "a\xe3\x80\x80" "b", u), "a\xe3\x80\x80" "b");
  EXPECT_EQ(first_match("e\\w", "e\xcc\x81", u), "e\xcc\x81");  // a combining mark is a word character
  MatchFlags w = u;
  w.word = true;
  EXPECT_EQ(first_match("na", "na\xc3\xafve", w), "<none>");
  EXPECT_EQ(first_match("na", "\xc2\xa0na\xe2\x80\x94", w), "na");
  EXPECT_EQ(first_match("\\bna\\b", "na\xc3\xafve na", u), "na");
  EXPECT_EQ(first_match("\\bna", "\xc3\xafna", u), "<none>");
  EXPECT_EQ(first_match("\\b\\w", "_\xe8\xaa\x9e_t", u), "_");  // no boundary between word characters
  const auto m = make_matcher({"\\b\\w"}, PatternSyntax::regex, u);
  const std::string line = "\xe8\xaa\x9e_t";
  std::vector<Match> all;
  m->all_in_line(line.data(), line.data() + line.size(), all);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(std::string(all[0].begin, all[0].length), "\xe8\xaa\x9e");
  MatchFlags i = u;
  i.ignore_case = true;
  EXPECT_EQ(first_match("CAF\xc3\x89", "un caf\xc3\xa9", i), "caf\xc3\xa9");
  EXPECT_EQ(first_match("\xce\xa3\xce\x8a\xce\xa3\xce\xa5\xce\xa6\xce\x9f\xce\xa3",
                        "\xcf\x83\xce\xaf\xcf\x83\xcf\x85\xcf\x86\xce\xbf\xcf\x82", i),
            "\xcf\x83\xce\xaf\xcf\x83\xcf\x85\xcf\x86\xce\xbf\xcf\x82");
  EXPECT_EQ(first_match("kelvin", "\xe2\x84\xaa" "elvin", i), "\xe2\x84\xaa" "elvin");  // regex, on RE2
  EXPECT_EQ(first_match("kelvin", "\xe2\x84\xaa" "elvin", i, PatternSyntax::literal), "\xe2\x84\xaa" "elvin");
  EXPECT_EQ(first_match("error", "An ERROR", i, PatternSyntax::literal), "ERROR");  // the ASCII fast path
}

TEST(Unicode, a_dot_and_a_negated_class_match_a_code_point_and_never_an_invalid_byte) {
  MatchFlags u;
  u.unicode = true;
  EXPECT_EQ(first_match("a.b", "a\xe8\xaa\x9e" "b", u), "a\xe8\xaa\x9e" "b");
  EXPECT_EQ(first_match("a.b", "a\xff" "b", u), "<none>");
  EXPECT_EQ(first_match("a[^x]b", "a\xcf\x83" "b", u), "a\xcf\x83" "b");
  EXPECT_EQ(first_match("a[^x]b", "a\x80" "b", u), "<none>");
  EXPECT_EQ(first_match("\\xff", "\xc3\xbf", u), "\xc3\xbf");  // \xff is U+00FF
  MatchFlags bytes;
  EXPECT_EQ(first_match("a.b", "a\xff" "b", bytes), "a\xff" "b");
  EXPECT_EQ(first_match("a.b", "a\xcf\x83" "b", bytes), "<none>");
}

TEST(Unicode, a_pattern_that_is_not_utf8_is_matched_as_bytes) {
  MatchFlags u;
  u.unicode = true;
  EXPECT_EQ(first_match("caf\xe9", "un caf\xe9 noir", u), "caf\xe9");
  EXPECT_EQ(first_match("caf\xe9.", "caf\xe9\xff", u), "caf\xe9\xff");  // the whole set is bytes
}

TEST(Unicode, a_leading_bytes_flag_turns_unicode_off_for_the_set_as_in_ripgrep) {
  MatchFlags u;
  u.unicode = true;
  EXPECT_EQ(first_match("(?-u)a.b", "a\xff" "b", u), "a\xff" "b");
  EXPECT_EQ(first_match("(?-u)\\w+", "na\xc3\xafve", u), "na");
  EXPECT_THROW((void)make_matcher({"(?-u)a", "b."}, PatternSyntax::regex, u), PatternError);
  EXPECT_EQ(first_match("(?-u)a", "x(?-u)a", u, PatternSyntax::literal), "(?-u)a");  // a literal is a literal
}

TEST(UnicodeSyntax, edge_word_boundaries_become_word_wrappers_and_others_stay) {
  struct Case {
    const char* pattern;
    bool before, after;
  };
  const Case cases[] = {
      {"\\bfoo\\b", true, true},      {"\\bfoo", true, false},          {"foo\\b", false, true},
      {"\\w+\\b", false, true},       {"\\b[A-Z]\\w*", true, false},    {"\\b(foo|bar)\\b", true, true},
      {"\\b\\w*", false, false},      {"\\w*\\b", false, false},        {"\\bfoo|bar\\b", false, false},
      {"\\b.foo", false, false},      {"foo.\\b", false, false},        {"\\b(foo|-)", false, false},
      {"foo\\\\b", false, false},     {"\\b[a-z.]+", false, false},     {"(foo)?\\b", false, false},
      {"\\b\\d{2,}", true, false},    {"\\b\\d{0,2}", false, false},    {"\\Q\\bx\\E", false, false},
  };
  for (const Case& c : cases) {
    const UnicodeForms f = unicode_forms(c.pattern, false);
    EXPECT_EQ(f.word_before, c.before) << c.pattern;
    EXPECT_EQ(f.word_after, c.after) << c.pattern;
  }
}

TEST(UnicodeSyntax, a_complemented_perl_class_beside_other_members_is_refused_naming_no_unicode) {
  for (const char* p : {"[\\W_]", "[a\\D]", "[^\\Sx]"}) {
    try {
      (void)unicode_forms(p, false);
      ADD_FAILURE() << p << " was accepted";
    } catch (const PatternError& e) {
      EXPECT_NE(std::string(e.what()).find("--no-unicode"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW((void)unicode_forms("[\\W]", false));
  EXPECT_NO_THROW((void)unicode_forms("[^\\D]", false));
}

TEST(UnicodeSyntax, utf8_validation_rejects_overlongs_surrogates_and_truncations) {
  EXPECT_TRUE(is_utf8("caf\xc3\xa9 \xe8\xaa\x9e \xf0\x9f\x98\x80"));
  for (const char* bad : {"\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x84", "\xff", "\x80"})
    EXPECT_FALSE(is_utf8(bad)) << static_cast<int>(static_cast<unsigned char>(bad[0]));
}

}  // namespace
}  // namespace unicode_test
}  // namespace stealscan

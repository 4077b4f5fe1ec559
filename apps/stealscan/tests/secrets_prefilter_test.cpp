// The regex prefilter (src/secrets/detect/regex_prefilter.hpp): rules without
// keywords go through one Vectorscan scan, and RE2 runs only on the lines it
// names (or over the whole text, for a regex that may span lines, when it
// names any). The findings must be exactly those of RE2 over every text: the
// same rules are run with the prefilter off, on generated texts that put
// matches everywhere, the last bytes of a text and lines' edges included.
// And which regexes the prefilter takes.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "secrets/detect/deferred_prefilter.hpp"
#include "secrets/detect/detector.hpp"
#include "secrets/detect/regex_prefilter.hpp"
#include "secrets/rules/config_loader.hpp"
#include "support/detector_run.hpp"

namespace stealscan::secrets {
// Named after the file: test binaries compile several files as one unit.
namespace secrets_prefilter_test {
namespace {

// "rule line:column-line:column=secret" per finding.
std::vector<std::string> scan(const Detector& d, const std::string& text) {
  std::vector<std::string> brief;
  for (const Finding& f : findings_in(d, text))
    brief.push_back(f.rule->id + " " + std::to_string(f.start_line) + ":" + std::to_string(f.start_column) + "-" +
                    std::to_string(f.end_line) + ":" + std::to_string(f.end_column) + "=" + f.secret);
  return brief;
}

// Rules without keywords: single-line ones, anchored ones, ones that may
// span lines, a large bounded repeat (approximated by the prefilter), one
// with an escaped byte >= 0x80 (\xe9: Latin-1 in RE2, a byte in
// Vectorscan, the same), an empty-matching one.
const std::string kRules = R"toml(
[[rules]]
id = "tok"
regex = '''tk_[a-z0-9]{6}'''
[[rules]]
id = "line-start"
regex = '''^key=([A-Z]{4})'''
[[rules]]
id = "line-end"
regex = '''([0-9]{3})x$'''
[[rules]]
id = "assign"
regex = '''(?i)(?:pass|secret)\s*[:=]\s*"([^"]{4,})"'''
[[rules]]
id = "block"
regex = '''BEGIN[\s\S]{0,40}?END'''
[[rules]]
id = "repeat"
regex = '''r9[a-c]{120,400}z'''
[[rules]]
id = "accent"
regex = '''caf\xe9_[0-9]{2}'''
[[rules]]
id = "maybe-empty"
regex = '''q?'''
secretGroup = 0
)toml";

// A random text of `lines` lines built from pieces that match, nearly match
// and do not match the rules above.
std::string random_text(std::mt19937& rng, std::size_t lines) {
  static const std::vector<std::string> pieces = {
      "tk_abc123", "tk_ab12", "TK_abc123", "key=ABCD", "key=abcd", " key=WXYZ", "123x", "12x", "123x ",
      "pass = \"hunter22\"", "Secret:\"ab\"", "SECRET: \"long enough\"", "BEGIN", "END", "BEGIN x END",
      std::string(130, 'a'), "r9" + std::string(150, 'b') + "z", "r9abz", "caf\xe9_42", "cafe_42", "q", " ", "\t",
      "zz", "\"", "=", "\r"};
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  std::uniform_int_distribution<int> count(0, 6);
  std::string text;
  for (std::size_t l = 0; l < lines; ++l) {
    for (int k = count(rng); k > 0; --k) text += pieces[pick(rng)];
    if (l + 1 < lines || rng() % 2 == 0) text += '\n';  // sometimes no newline at the end
  }
  return text;
}

TEST(SecretsPrefilter, finds_exactly_what_re2_over_every_text_finds) {
  DetectorOptions with;
  with.decode_depth = 1;
  DetectorOptions without = with;
  without.regex_prefilter = false;
  const Detector fast(rules_from(kRules), with);
  const Detector plain(rules_from(kRules), without);
  std::mt19937 rng(37);
  std::size_t findings = 0;
  for (int i = 0; i < 400; ++i) {
    const std::string text = random_text(rng, 1 + rng() % 12);
    const std::vector<std::string> want = scan(plain, text);
    const std::vector<std::string> got = scan(fast, text);
    if (got != want) {
      std::string diff;
      for (const std::string& f : got)
        if (std::find(want.begin(), want.end(), f) == want.end()) diff += "only with the prefilter: " + f + "\n";
      for (const std::string& f : want)
        if (std::find(got.begin(), got.end(), f) == got.end()) diff += "only without it: " + f + "\n";
      FAIL() << "text " << i << ":\n" << text << "\n" << (diff.empty() ? "in another order\n" : diff);
    }
    findings += want.size();
  }
  EXPECT_GT(findings, 1000U);  // the texts do hold matches
  // A match in the last bytes of a text, with and without a newline after it.
  for (const std::string& text : {std::string(200, '.') + "tk_zz9999", std::string(200, '.') + "\ntk_zz9999\n",
                                  std::string("q"), std::string(500, '-') + "pass=\"abcd\""})
    EXPECT_EQ(scan(fast, text), scan(plain, text)) << text;
}

// Rules with keywords: once the deferred prefilter holds every rule's regex
// (prefilter_all_after 0: from the first text), RE2 runs on the lines that
// hold a keyword and where the prefilter may match; a rule whose regex may
// span lines still keeps the matches that cover a keyword's line; a keyword
// may lie outside the match ("elsewhere"). Both keyword scopes, against RE2
// on the keywords' lines alone.
const std::string kKeywordRules = R"toml(
[[rules]]
id = "tok"
regex = '''tk_[a-z0-9]{6}'''
keywords = ["tk_"]
[[rules]]
id = "assign"
regex = '''(?i)(?:pass|secret)\s*[:=]\s*"([^"]{4,})"'''
keywords = ["pass", "secret"]
[[rules]]
id = "block"
regex = '''BEGIN[\s\S]{0,40}?END'''
keywords = ["end"]
[[rules]]
id = "line-end"
regex = '''([0-9]{3})x$'''
keywords = ["x"]
[[rules]]
id = "elsewhere"
regex = '''tk_([a-z]{3})'''
keywords = ["key="]
[[rules]]
id = "no-keywords"
regex = '''key=([A-Z]{4})'''
)toml";

TEST(SecretsPrefilter, rules_with_keywords_find_the_same_through_the_prefilter_of_every_rule) {
  for (const KeywordScope scope : {KeywordScope::line, KeywordScope::file}) {
    DetectorOptions all;
    all.decode_depth = 1;
    all.keyword_scope = scope;
    all.prefilter_all_after = 0;
    DetectorOptions none = all;
    none.regex_prefilter = false;
    const Detector fast(rules_from(kKeywordRules), all);
    const Detector plain(rules_from(kKeywordRules), none);
    std::mt19937 rng(38);
    std::size_t findings = 0;
    for (int i = 0; i < 400; ++i) {
      const std::string text = random_text(rng, 1 + rng() % 12);
      const std::vector<std::string> want = scan(plain, text);
      ASSERT_EQ(scan(fast, text), want) << "scope " << static_cast<int>(scope) << ", text " << i << ":\n" << text;
      findings += want.size();
    }
    EXPECT_GT(findings, 500U);
  }
}

// Every rule with keywords, in line scope: the prefilter reads only the
// lines that hold a keyword (copied together, RegexPrefilter::scan_lines())
// when they are under half the text. Rules that keep to one line, rules
// whose match may end in its line's newline (newline_only_last(): a token's
// end as "a byte that cannot continue it, or the end", with and without a
// class before the token), one that may span lines within a bounded length
// (the prefilter reads the lines that far around its keyword's lines), and
// one that may span lines without bound (the whole text is searched for it).
// Texts with few keyword lines between lines of filler.
struct SparseRule {
  const char* id;
  const char* regex;
  const char* keyword;
};
const SparseRule kSparse[] = {
    {"tok", R"(tk_[a-z0-9]{6})", "tk_"},
    {"tok-end", R"(\b(tk_[a-z0-9]{4,6})(?:[^a-z0-9_]|$))", "tk_"},
    {"tok-spaced", R"((?:^|[^a-z\n])(k9[A-Z]{3})(?:\s|\z))", "k9"},
    {"line-end", R"(([0-9]{3})x$)", "x"},
    {"assign", R"re((?i)(?:pass|secret)\s*[:=]\s*"([^"]{4,})")re", "pass"},
    {"block", R"re(creds\s{0,3}\{[^}]{0,40}?\bkey\s{0,2}=\s{0,2}"([^"\n]{3,12})")re", "key"},
};

// The rules of kSparse, or the one named `only`.
std::string sparse_rules(std::string_view only = {}) {
  std::string toml;
  for (const SparseRule& r : kSparse)
    if (only.empty() || only == r.id)
    toml += std::string("[[rules]]\nid = \"") + r.id + "\"\nregex = '''" + r.regex + "'''\nkeywords = [\"" +
            r.keyword + "\"]\n";
  return toml;
}

std::string sparse_text(std::mt19937& rng, std::size_t lines) {
  static const std::vector<std::string> pieces = {
      "tk_abc123", "tk_ab12", "tk_abcdefgh", "tk_-x", "TK_abc", "k9ABC", "xk9ABC ", "k9AB", "123x", "12x",
      "pass = \"hunter22\"", "PASS:\n\"long enough\"", " ", "\t", "=", "\r", "-", "creds {\n", "creds{", "}",
      " key=\"hunter\"", "key =\n\"abcd\"", "\n"};
  std::uniform_int_distribution<std::size_t> pick(0, pieces.size() - 1);
  std::string text;
  for (std::size_t l = 0; l < lines; ++l) {
    if (rng() % 4 != 0) {
      text += std::string(rng() % 60, static_cast<char>('a' + rng() % 3));  // filler: no keyword, no match
    } else {
      for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k) text += pieces[pick(rng)];
    }
    if (l + 1 < lines || rng() % 2 == 0) text += '\n';
  }
  return text;
}

// What line scope means, computed here with RE2 alone and none of the
// detector's code: each rule's leftmost matches over the whole text, kept
// when a line the match touches (a byte of it, or its newline) holds the
// rule's keyword, caselessly. "rule line=secret", sorted.
std::vector<std::string> line_scope_oracle(const std::string& text, std::string_view only = {}) {
  std::vector<std::size_t> starts{0};  // each line's first byte
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts.push_back(i + 1);
  const auto line_of = [&](std::size_t at) {
    return static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), at) - starts.begin());  // from 1
  };
  const auto line_text = [&](std::size_t line) {
    const std::size_t b = starts[line - 1];
    const std::size_t e = line < starts.size() ? starts[line] - 1 : text.size();
    std::string l = text.substr(b, e - b);
    for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return l;
  };
  std::vector<std::string> out;
  for (const SparseRule& r : kSparse) {
    if (!only.empty() && only != r.id) continue;
    const RE2 re(r.regex, RE2::Latin1);
    std::vector<re2::StringPiece> g(static_cast<std::size_t>(re.NumberOfCapturingGroups()) + 1);
    for (std::size_t pos = 0; pos <= text.size() && re.Match(text, pos, text.size(), RE2::UNANCHORED, g.data(),
                                                             static_cast<int>(g.size()));) {
      const auto begin = static_cast<std::size_t>(g[0].data() - text.data());
      const std::size_t end = begin + g[0].size();
      pos = end > begin ? end : end + 1;
      const std::size_t last = line_of(end > begin ? end - 1 : begin);
      bool keyword = false;
      for (std::size_t l = line_of(begin); l <= last && !keyword; ++l)
        keyword = line_text(l).find(r.keyword) != std::string::npos;
      if (!keyword) continue;
      const re2::StringPiece secret = g.size() > 1 ? g[1] : g[0];
      out.push_back(std::string(r.id) + " " + std::to_string(line_of(begin)) + "=" + std::string(secret));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> brief_lines(const Detector& d, const std::string& text) {
  std::vector<std::string> out;
  for (const Finding& f : findings_in(d, text))
    out.push_back(f.rule->id + " " + std::to_string(f.start_line) + "=" + f.secret);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SecretsPrefilter, reading_only_the_keyword_lines_finds_what_re2_over_the_text_finds_on_them) {
  DetectorOptions all;
  all.decode_depth = 0;
  all.keyword_scope = KeywordScope::line;
  all.prefilter_all_after = 0;
  DetectorOptions none = all;
  none.regex_prefilter = false;
  const Detector fast(rules_from(sparse_rules()), all);
  const Detector plain(rules_from(sparse_rules()), none);
  std::mt19937 rng(39);
  std::size_t findings = 0, at_line_end = 0, blocks = 0;
  for (int i = 0; i < 600; ++i) {
    const std::string text = sparse_text(rng, 1 + rng() % 24);
    const std::vector<std::string> want = line_scope_oracle(text);
    ASSERT_EQ(brief_lines(fast, text), want) << "text " << i << ":\n" << text;
    ASSERT_EQ(brief_lines(plain, text), want) << "text " << i << ":\n" << text;
    findings += want.size();
    for (const std::string& f : want) {
      at_line_end += text.find(f.substr(f.find('=') + 1) + "\n") != std::string::npos;
      blocks += f.starts_with("block ");
    }
  }
  EXPECT_GT(findings, 500U);
  EXPECT_GT(blocks, 25U);  // matches of the bounded rule across lines
  EXPECT_GT(at_line_end, 100U);  // tokens that end their line, whose match takes the newline
  // A token ending the text, with and without a newline after it; a keyword
  // line first and last.
  for (const std::string& text : {std::string(300, 'b') + "\ntk_abcd12", std::string(300, 'b') + "\ntk_abcd12\n",
                                  "k9ABC\n" + std::string(300, 'c'), std::string(300, 'c') + "\n=k9XYZ"}) {
    EXPECT_EQ(brief_lines(fast, text), line_scope_oracle(text)) << text;
    EXPECT_FALSE(line_scope_oracle(text).empty()) << text;
  }
  // Each rule alone too: Vectorscan compiles a database of one pattern
  // otherwise than one of several.
  for (const SparseRule& r : kSparse) {
    const Detector one(rules_from(sparse_rules(r.id)), all);
    for (int i = 0; i < 200; ++i) {
      const std::string text = sparse_text(rng, 1 + rng() % 24);
      ASSERT_EQ(brief_lines(one, text), line_scope_oracle(text, r.id)) << r.id << ", text " << i << ":\n" << text;
    }
  }
}

TEST(SecretsPrefilter, the_prefilter_of_every_rule_is_built_once_by_the_text_that_crosses_the_threshold) {
  const DeferredPrefilter d({"tk_[a-z0-9]{6}", "key=[A-Z]{4}"}, DatabaseCache{}, 1000);
  // Texts count as their bytes plus one: 10 texts of 99 bytes count [0, 1000),
  // the 11th holds 1000.
  for (int i = 0; i < 10; ++i) EXPECT_EQ(d.offer(99), nullptr) << "text " << i;
  const RegexPrefilter* built = d.offer(99);
  ASSERT_NE(built, nullptr);
  EXPECT_TRUE(built->covers(0) && built->covers(1));
  EXPECT_EQ(d.offer(0), built);
  const DeferredPrefilter first({"tk_"}, DatabaseCache{}, 0);
  EXPECT_NE(first.offer(0), nullptr);  // a threshold of 0: built by the first text, empty or not
}

TEST(SecretsPrefilter, workers_racing_past_the_threshold_build_one_prefilter_and_all_see_it) {
  // 8 threads offer texts at once around the threshold: exactly one call
  // builds (the others get null until it is published, then the same one).
  // Under ThreadSanitizer (label concurrency) this also checks that what the
  // builder wrote is published to the readers.
  for (int round = 0; round < 20; ++round) {
    const DeferredPrefilter d({"tk_[a-z0-9]{6}"}, DatabaseCache{}, 200);
    std::vector<std::vector<const RegexPrefilter*>> seen(8);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < seen.size(); ++t)
      threads.emplace_back([&d, &mine = seen[t]] {
        for (int k = 0; k < 50; ++k) mine.push_back(d.offer(3));
      });
    for (std::thread& t : threads) t.join();
    const RegexPrefilter* last = d.offer(0);
    ASSERT_NE(last, nullptr);
    RegexPrefilter::Scratch scratch(*last);  // the built prefilter is whole: it scans
    ASSERT_TRUE(last->scan("x tk_abc123\n", scratch));
    EXPECT_EQ(last->lines_for(0, scratch).size(), 1U);
    for (const auto& mine : seen) {
      bool after = false;
      for (const RegexPrefilter* p : mine) {
        EXPECT_TRUE(p == nullptr || p == last);
        if (after) {
          EXPECT_EQ(p, last) << "a worker that saw it lost it again";
        }
        after = after || p != nullptr;
      }
    }
  }
}

TEST(SecretsPrefilter, takes_the_rules_without_keywords_whose_regex_vectorscan_reads_as_re2_does) {
  EXPECT_TRUE(prefilter_eligible("tk_[a-z0-9]{6}"));
  EXPECT_TRUE(prefilter_eligible("BEGIN[\\s\\S]*END"));  // may span lines: whole texts, when it may match
  EXPECT_FALSE(prefilter_eligible("caf\xc3\xa9"));        // bytes >= 0x80: Latin-1 in RE2
  EXPECT_FALSE(prefilter_eligible("\\pL+"));              // a Unicode class
  EXPECT_FALSE(prefilter_eligible(std::string("a\0b", 3)));
  EXPECT_FALSE(prefilter_eligible(""));

  const RegexPrefilter p({"tk_[a-z0-9]{6}", "", "caf\xc3\xa9", "BEGIN[\\s\\S]*END"}, DatabaseCache{});
  EXPECT_TRUE(p.covers(0));
  EXPECT_FALSE(p.covers(1));  // a rule with keywords (its regex not offered)
  EXPECT_FALSE(p.covers(2));
  EXPECT_TRUE(p.covers(3));
  RegexPrefilter::Scratch s(p);
  ASSERT_TRUE(p.scan("a\nxx tk_abc123 yy\nb\ntk_q\nBEGIN\n..END\n", s));
  ASSERT_EQ(p.lines_for(0, s).size(), 1U);
  EXPECT_EQ(p.lines_for(0, s)[0].begin, 2U);  // the line "xx tk_abc123 yy"
  EXPECT_EQ(p.lines_for(0, s)[0].end, 17U);
  ASSERT_EQ(p.lines_for(3, s).size(), 1U);  // the whole text
  EXPECT_EQ(p.lines_for(3, s)[0].begin, 0U);
  ASSERT_TRUE(p.scan("nothing here\n", s));
  EXPECT_TRUE(p.lines_for(0, s).empty());
  EXPECT_TRUE(p.lines_for(3, s).empty());
}

}  // namespace
}  // namespace secrets_prefilter_test
}  // namespace stealscan::secrets

// The regex prefilter (src/secrets/detect/regex_prefilter.hpp): rules without
// keywords go through one Vectorscan scan, and RE2 runs only on the lines it
// names (or over the whole text, for a regex that may span lines, when it
// names any). The findings must be exactly those of RE2 over every text: the
// same rules are run with the prefilter off, on generated texts that put
// matches everywhere, the last bytes of a text and lines' edges included.
// And which regexes the prefilter takes.
#include <gtest/gtest.h>

#include <algorithm>
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
}  // namespace stealscan::secrets

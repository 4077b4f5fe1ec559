// Keyword scope (src/secrets/README.md, "Matching"): KeywordFilter finds the
// lines that hold each rule's keywords, and the Detector reports, by default,
// only the matches that cover such a line (in the file scope, gitleaks'
// semantics, every match in a file with a keyword). Both scopes checked
// against a reference written here on another regex engine (std::regex), on
// generated texts, for single-line and multi-line rules alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "secrets/detect/detector.hpp"
#include "secrets/detect/keyword_filter.hpp"
#include "secrets/rules/config_loader.hpp"
#include "support/detector_run.hpp"

namespace stealscan::secrets {
// Named after the file: test binaries compile several files as one unit.
namespace secrets_keywords_test {
namespace {

DetectorOptions scoped(KeywordScope scope) {
  DetectorOptions o;
  o.keyword_scope = scope;
  o.decode_depth = 0;
  return o;
}

// "rule line:column-line:column=secret", in report order.
std::vector<std::string> brief(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const Finding& f : fs)
    out.push_back(f.rule->id + " " + std::to_string(f.start_line) + ":" + std::to_string(f.start_column) + "-" +
                  std::to_string(f.end_line) + ":" + std::to_string(f.end_column) + "=" + f.secret);
  return out;
}

// The 1-based lines of `text` that hold `word` (lower case) in either case.
std::vector<std::uint64_t> lines_holding(const std::string& text, const std::string& word) {
  std::vector<std::uint64_t> out;
  std::uint64_t line = 1;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string l = text.substr(start, end - start);
    for (char& c : l)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (l.find(word) != std::string::npos) out.push_back(line);
    ++line;
    start = end + 1;
  }
  return out;
}

TEST(KeywordFilter, gives_the_lines_holding_a_keyword_in_either_case_in_order_consecutive_ones_as_one_span) {
  const std::vector<std::vector<std::string>> keywords = {{"tok"}, {"key", "pass"}, {}};
  KeywordFilter filter(keywords, DatabaseCache{});
  KeywordFilter::Scratch s(filter);
  const std::string text = "TOK tok\nnothing\nKey pass\r\n\nxx tOk";
  std::vector<std::size_t> rules;
  filter.rules_for(text, s, rules);
  EXPECT_EQ(rules, (std::vector<std::size_t>{0, 1, 2}));
  const auto as_text = [&](const std::vector<LineSpan>& spans) {
    std::vector<std::string> out;
    for (const LineSpan& l : spans) out.push_back(text.substr(l.begin, l.end - l.begin));
    return out;
  };
  EXPECT_EQ(as_text(filter.lines_for(0, s)), (std::vector<std::string>{"TOK tok", "xx tOk"}));
  EXPECT_EQ(as_text(filter.lines_for(1, s)), (std::vector<std::string>{"Key pass\r"}));
  EXPECT_FALSE(filter.has_keywords(2));
  EXPECT_TRUE(filter.lines_for(2, s).empty());

  // Consecutive lines are one span, also across a rule's keywords.
  const std::string runs = "key\nKEY\nx\npass\nkey pass\npass\n\nkey";
  filter.rules_for(runs, s, rules);
  std::vector<std::string> spans;
  for (const LineSpan& l : filter.lines_for(1, s)) spans.push_back(runs.substr(l.begin, l.end - l.begin));
  EXPECT_EQ(spans, (std::vector<std::string>{"key\nKEY", "pass\nkey pass\npass", "key"}));

  filter.rules_for("nothing to see\n", s, rules);
  EXPECT_EQ(rules, (std::vector<std::size_t>{2}));  // only the rule without keywords
  EXPECT_TRUE(filter.lines_for(0, s).empty());
}

// Vectorscan 5.4.9 misses a one-byte keyword that begins another one (k
// beside key) when it ends in the last 32 bytes of the text, in about 80% of
// the alignments (found by fuzz_keyword_filter); the filter scans the text's
// end again with padding after it.
TEST(KeywordFilter, a_one_byte_keyword_at_the_end_of_the_text_is_found_beside_a_longer_one_it_begins) {
  for (const std::vector<std::vector<std::string>>& keywords :
       {std::vector<std::vector<std::string>>{{"k", "key"}}, std::vector<std::vector<std::string>>{{"x"}, {"xy"}}}) {
    KeywordFilter filter(keywords, DatabaseCache{});
    KeywordFilter::Scratch s(filter);
    std::vector<std::size_t> rules;
    const std::string end = keywords[0][0] == "k" ? "K" : "x";
    for (std::size_t n = 0; n <= 300; ++n) {
      std::string text(n, 'a');
      if (n > 2) text[n / 2] = '\n';
      const std::size_t last_line = n > 2 ? n / 2 + 1 : 0;
      filter.rules_for(text + end, s, rules);
      ASSERT_EQ(rules, (std::vector<std::size_t>{0})) << n << " bytes before " << end;
      ASSERT_EQ(filter.lines_for(0, s).size(), 1u);
      EXPECT_EQ(filter.lines_for(0, s)[0].begin, last_line) << n;
      EXPECT_EQ(filter.lines_for(0, s)[0].end, n + 1) << n;
    }
  }
}

TEST(KeywordScope, a_single_line_rule_reports_only_matches_on_a_keyword_line) {
  const RuleSet rules = rules_from("[[rules]]\nid = 't'\nregex = 'tok_[a-z]+'\nkeywords = ['magic']\n");
  const std::string text = "MaGiC tok_one\ntok_two\nx tok_three MAGIC\n";
  const Detector line(rules, scoped(KeywordScope::line));
  EXPECT_EQ(brief(findings_in(line, text)), (std::vector<std::string>{"t 1:7-1:13=tok_one", "t 3:3-3:11=tok_three"}));
  const Detector file(rules, scoped(KeywordScope::file));
  EXPECT_EQ(brief(findings_in(file, text)),
            (std::vector<std::string>{"t 1:7-1:13=tok_one", "t 2:1-2:7=tok_two", "t 3:3-3:11=tok_three"}));
}

TEST(KeywordScope, a_multi_line_match_counts_when_any_line_it_covers_holds_a_keyword) {
  const RuleSet rules = rules_from("[[rules]]\nid = 'b'\nregex = 'BEGIN[\\s\\S]*?END'\nkeywords = ['magic']\n");
  // The first block has the keyword on its middle line, the second on none,
  // the third on its last line.
  const std::string text = "BEGIN\nmagic\nEND\nBEGIN\nplain\nEND\nBEGIN\nEND magic\n";
  const Detector line(rules, scoped(KeywordScope::line));
  const std::vector<Finding> found = findings_in(line, text);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].start_line, 1u);
  EXPECT_EQ(found[0].end_line, 3u);
  EXPECT_EQ(found[1].start_line, 7u);
  EXPECT_EQ(found[1].end_line, 8u);
  EXPECT_EQ(findings_in(Detector(rules, scoped(KeywordScope::file)), text).size(), 3u);
}

TEST(KeywordScope, anchors_and_word_bounds_see_the_bytes_around_a_keyword_line) {
  // $ without (?m) is the end of the file, not of the searched line; \b at a
  // line's first byte sees the newline before it.
  const RuleSet rules = rules_from(
      "[[rules]]\nid = 'end'\nregex = 'key_[a-z]+$'\nkeywords = ['key_']\n"
      "[[rules]]\nid = 'word'\nregex = '\\bkw[0-9]+'\nkeywords = ['kw']\n");
  const std::string text = "key_aa\nkw1 xkw2\nkey_bb";
  EXPECT_EQ(brief(findings_in(Detector(rules, scoped(KeywordScope::line)), text)),
            brief(findings_in(Detector(rules, scoped(KeywordScope::file)), text)));
  EXPECT_EQ(brief(findings_in(Detector(rules, scoped(KeywordScope::line)), text)),
            (std::vector<std::string>{"end 3:1-3:6=key_bb", "word 2:1-2:3=kw1"}));
}

// A reference written apart, on another regex engine: libstdc++'s std::regex
// (ECMAScript: leftmost-first, like RE2's default; `^` and `$` the text's
// edges). Each rule's leftmost non-overlapping matches over the whole text
// (an empty match moves on one byte), the secret its first group if it has
// one, the reported end before a trailing newline; in the line scope, kept
// when one of the lines the match covers holds one of the rule's keywords,
// in the file scope, when the text holds one anywhere.
struct RefRule {
  std::string id;
  std::regex re;
  std::vector<std::string> keywords;
};

std::vector<std::string> reference(const std::vector<RefRule>& rules, const std::string& text, KeywordScope scope) {
  const auto line_of = [&](std::size_t at) { return 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'); };
  const auto column_of = [&](std::size_t at) {
    const std::size_t nl = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
    return at - (nl == std::string::npos ? 0 : nl + 1) + 1;
  };
  std::vector<std::string> out;
  for (const RefRule& r : rules) {
    std::vector<std::uint64_t> keyword_lines;
    for (const std::string& k : r.keywords)
      for (const std::uint64_t l : lines_holding(text, k)) keyword_lines.push_back(l);
    for (std::size_t pos = 0; pos <= text.size();) {
      std::smatch m;
      const auto flags = pos > 0 ? std::regex_constants::match_prev_avail : std::regex_constants::match_default;
      if (!std::regex_search(text.cbegin() + static_cast<std::ptrdiff_t>(pos), text.cend(), m, r.re, flags)) break;
      const std::size_t b = pos + static_cast<std::size_t>(m.position(0));
      const std::size_t e = b + static_cast<std::size_t>(m.length(0));
      pos = e > b ? e : e + 1;
      const auto first = static_cast<std::uint64_t>(line_of(b));
      const auto last = static_cast<std::uint64_t>(line_of(e > b ? e - 1 : b));
      const bool kept = scope == KeywordScope::file
                            ? !keyword_lines.empty()
                            : std::any_of(keyword_lines.begin(), keyword_lines.end(),
                                          [&](std::uint64_t l) { return l >= first && l <= last; });
      if (!kept) continue;
      std::size_t end = e;
      while (end > b && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
      const std::size_t to = end > b ? end - 1 : b;
      const std::string secret = m.size() > 1 && m[1].matched ? m.str(1) : m.str(0);
      out.push_back(r.id + " " + std::to_string(line_of(b)) + ":" + std::to_string(column_of(b)) + "-" +
                    std::to_string(line_of(to)) + ":" + std::to_string(column_of(to)) + "=" + secret);
    }
  }
  return out;
}

// Random texts over a small alphabet that makes keywords, tokens and newlines
// common: both scopes' findings are the reference's.
TEST(KeywordScope, both_scopes_find_what_a_reference_on_another_regex_engine_finds) {
  const RuleSet rules = rules_from(
      "[[rules]]\nid = 'one'\nregex = 'ab[abc]{1,4}'\nkeywords = ['ca', 'bb']\n"
      "[[rules]]\nid = 'multi'\nregex = 'a[\\s\\S]{0,6}?c'\nkeywords = ['cc']\n"
      "[[rules]]\nid = 'edge'\nregex = '(?:^|[^b])(a+)(?:[^a]|$)'\nkeywords = ['bab']\n");
  const std::vector<RefRule> ref = {{"one", std::regex("ab[abc]{1,4}"), {"ca", "bb"}},
                                    {"multi", std::regex("a[\\s\\S]{0,6}?c"), {"cc"}},
                                    {"edge", std::regex("(?:^|[^b])(a+)(?:[^a]|$)"), {"bab"}}};
  const Detector line(rules, scoped(KeywordScope::line));
  const Detector file(rules, scoped(KeywordScope::file));
  std::mt19937 rng(14);
  const std::string alphabet = "abcAB\n\n ";
  std::size_t found = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string text(std::uniform_int_distribution<std::size_t>(0, 80)(rng), ' ');
    for (char& c : text) c = alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)];
    const std::vector<std::string> want = reference(ref, text, KeywordScope::line);
    ASSERT_EQ(brief(findings_in(line, text)), want) << "line scope, text: \"" << text << "\"";
    ASSERT_EQ(brief(findings_in(file, text)), reference(ref, text, KeywordScope::file)) << "file scope, text: \"" << text << "\"";
    found += want.size();
  }
  EXPECT_GT(found, 1000U);  // the texts do hold kept matches
}

}  // namespace
}  // namespace secrets_keywords_test
}  // namespace stealscan::secrets

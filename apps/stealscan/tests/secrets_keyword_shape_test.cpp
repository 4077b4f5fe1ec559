// What must follow a keyword in every match of a rule's regex
// (src/secrets/detect/keyword_shape.hpp), and the keyword scan that drops a
// hit no such match could hold: the shapes read from regexes, the regexes
// where no shape is plain, and findings that stay those of RE2 on the
// keywords' lines.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "secrets/detect/detector.hpp"
#include "secrets/detect/keyword_filter.hpp"
#include "secrets/detect/keyword_shape.hpp"
#include "secrets/rules/default_rules.hpp"
#include "support/detector_run.hpp"

namespace stealscan::secrets {
// Named after the file: test binaries compile several files as one unit.
namespace secrets_keyword_shape_test {
namespace {

TEST(SecretsKeywordShape, reads_the_class_repeated_right_after_the_keyword) {
  const std::optional<KeywordShape> sk = keyword_shape(R"(\b(SK[0-9a-f]{32})\b)", "sk");
  ASSERT_TRUE(sk);
  EXPECT_EQ(sk->count, 16U);  // capped
  EXPECT_TRUE(sk->next['a'] && sk->next['0'] && !sk->next['A'] && !sk->next['g'] && !sk->next['_']);
  const std::optional<KeywordShape> folded = keyword_shape(R"((?i)\b(tok_[a-f]{6,}))", "tok_");
  ASSERT_TRUE(folded);
  EXPECT_EQ(folded->count, 6U);
  EXPECT_TRUE(folded->next['A'] && folded->next['f']);  // (?i) folds the class
  const std::optional<KeywordShape> negated = keyword_shape(R"(key_[^ \n]{8,40})", "key_");
  ASSERT_TRUE(negated);
  EXPECT_TRUE(negated->next['x'] && !negated->next[' '] && !negated->next['\n']);
  // In groups without alternatives, a trailing (?:C|$) beside it.
  EXPECT_TRUE(keyword_shape(R"((?:x(pat[A-Za-z0-9]{14}))\.(?:[^a-z]|$))", "pat"));
  EXPECT_TRUE(keyword_shape(R"((?P<t>abc_[0-9]{5}))", "abc_"));
}

TEST(SecretsKeywordShape, gives_none_where_a_match_may_not_hold_the_keyword_and_its_shape) {
  for (const char* r : {
           R"((?:sk|rk)_[0-9a-f]{32})",     // an alternative beside it
           R"((?:rk|SK[0-9a-f]{32}))",      // before it
           R"(x|SK[0-9a-f]{32})",           // at the top level too
           R"((?:SK)?[0-9a-f]{32})",        // its group may be skipped
           R"((SK[0-9a-f]{32})*)",          // likewise
           R"(SK[0-9a-f]{3})",              // too short a repeat to be worth a check
           R"(SK[0-9a-f]+)",                // no count
           R"(SK[0-9a-f]{32}|SK[A-Z]{32})", // twice
           R"(SK\d{32})",                   // not a bracket class
           R"(S\K[0-9a-f]{32})",            // not literal bytes
           R"([SK][0-9a-f]{32})",           // in a class
           R"(abc)",                        // absent
       })
    EXPECT_FALSE(keyword_shape(r, "sk")) << r;
  EXPECT_FALSE(keyword_shape(R"(sg\.[A-Za-z]{22})", "sg."));  // a keyword with a regex byte: not read
}

TEST(SecretsKeywordShape, the_built_in_rules_shortest_keywords_have_shapes) {
  // The keywords that put a hit on most lines of code without one.
  std::vector<std::string> want = {"sk", "sk_", "pat"};
  for (const Rule& r : default_rule_set().rules)
    for (const std::string& k : r.keywords)
      if (k == "sk" || k == "sk_" || k == "pat") {
        EXPECT_TRUE(keyword_shape(r.regex, k)) << r.id << " " << k;
        std::erase(want, k);
      }
  EXPECT_TRUE(want.empty());  // each is still a built-in keyword
}

// Keyword lines as RE2 would want them: rules whose keywords have shapes,
// one sharing its keyword with a rule that has none (then every hit
// counts), on texts full of the keywords without their shapes.
const std::string kRules = R"toml(
[[rules]]
id = "sk-hex"
regex = '''\b(SK[0-9a-f]{8})\b'''
keywords = ["sk"]
[[rules]]
id = "pat-alnum"
regex = '''(?i)\b(pat_[a-z0-9]{6})'''
keywords = ["pat_"]
[[rules]]
id = "shared-shaped"
regex = '''tok_[0-9]{5}x'''
keywords = ["tok_"]
[[rules]]
id = "shared-unshaped"
regex = '''(?:a|b)tok_([a-z]{2})'''
keywords = ["tok_"]
)toml";

std::vector<std::string> brief(const Detector& d, const std::string& text) {
  std::vector<std::string> out;
  for (const Finding& f : findings_in(d, text)) out.push_back(f.rule->id + " " + std::to_string(f.start_line) + "=" + f.secret);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SecretsKeywordShape, dropping_hits_without_their_shape_finds_what_keeping_them_finds) {
  static const std::vector<std::string> pieces = {
      "SK0123abcd", "sk0123abcd", "SK0123ABCD", "sk_buff", "SKIP", "task", " ", "pat_abc123", "PAT_ABC123",
      "path", "pat_ab", "tok_12345x", "atok_zz", "tok_", "btok_qq", "\n", "=", "SK0123abc"};
  DetectorOptions on;
  on.decode_depth = 1;
  const Detector shaped(rules_from(kRules), on);
  // The same rules with their keywords spelt so that no shape is read: every hit counts.
  std::string plain_rules = kRules;
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"(SK[0-9a-f]{8})", "(S[K][0-9a-f]{8})"}, {"(pat_[a-z0-9]{6})", "(pat[_][a-z0-9]{6})"},
           {"'''tok_[0-9]{5}x'''", "'''tok[_][0-9]{5}x'''"}})
    plain_rules.replace(plain_rules.find(from), from.size(), to);
  const Detector plain(rules_from(plain_rules), on);
  std::mt19937 rng(7);
  std::size_t findings = 0;
  for (int i = 0; i < 500; ++i) {
    std::string text;
    for (int k = static_cast<int>(rng() % 30); k > 0; --k) text += pieces[rng() % pieces.size()];
    const std::vector<std::string> want = brief(plain, text);
    ASSERT_EQ(brief(shaped, text), want) << text;
    findings += want.size();
  }
  EXPECT_GT(findings, 1000U);
}

}  // namespace
}  // namespace secrets_keyword_shape_test
}  // namespace stealscan::secrets

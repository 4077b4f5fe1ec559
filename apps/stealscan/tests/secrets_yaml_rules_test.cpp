// Nosey Parker's and Kingfisher's rule format (src/secrets/rules/yaml_rules.*,
// regex_rewrite.*): their Rust-syntax patterns written for RE2 (verbose mode,
// comments, named groups), the YAML fields mapped to rules, a pattern RE2
// still refuses left out with a warning that names it, and `--check-rules`
// run on rules written here with their examples.
#include <gtest/gtest.h>

#include <re2/re2.h>

#include <string>
#include <vector>

#include "secrets/detect/detector.hpp"
#include "secrets/rules/regex_rewrite.hpp"
#include "secrets/rules/yaml_rules.hpp"
#include "support/run_process.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::secrets {
// Named after the file: test binaries compile several files as one unit.
namespace secrets_yaml_rules_test {
namespace {

TEST(RegexRewrite, verbose_mode_drops_whitespace_and_comments_everywhere_but_in_escapes) {
  EXPECT_EQ(rewrite_for_re2("(?x) ab  c # a comment\n d"), "abcd");
  EXPECT_EQ(rewrite_for_re2("(?x)a\\ b\\#c"), "a\\x20b#c");  // escaped: the characters themselves
  EXPECT_EQ(rewrite_for_re2("(?x)[ a - z ]"), "[a-z]");      // in a class too, as Rust reads it
  EXPECT_EQ(rewrite_for_re2("(?x)[\\ ]"), "[\\x20]");
  EXPECT_EQ(rewrite_for_re2("(?x)\\s+ \\n"), "\\s+\\n");
  EXPECT_EQ(rewrite_for_re2("a b # c"), "a b # c");  // not verbose: all kept
}

TEST(RegexRewrite, flags_keep_their_other_letters_and_their_scope) {
  EXPECT_EQ(rewrite_for_re2("(?xi) a b"), "(?i)ab");
  EXPECT_EQ(rewrite_for_re2("(?x)(?i) a"), "(?i)a");
  EXPECT_EQ(rewrite_for_re2("a b(?x: c d )e f"), "a b(?:cd)e f");   // scoped to the group
  EXPECT_EQ(rewrite_for_re2("(?x)a (?-x: b c ) d"), "a(?: b c )d");  // off inside, on again after
  EXPECT_EQ(rewrite_for_re2("(?x)( a )b c"), "(a)bc");
  EXPECT_EQ(rewrite_for_re2("(a (?x) b ) c d"), "(a b) c d");  // to the end of the enclosing group
  EXPECT_EQ(rewrite_for_re2("(?i-x)a b"), "(?i)a b");
}

TEST(RegexRewrite, comments_and_named_groups_in_re2s_syntax) {
  EXPECT_EQ(rewrite_for_re2("ab(?# the key )cd"), "abcd");
  EXPECT_EQ(rewrite_for_re2("(?<key>[a-z]+)"), "(?P<key>[a-z]+)");
  EXPECT_EQ(rewrite_for_re2("(?P<key>x)(?<=y)(?<!z)"), "(?P<key>x)(?<=y)(?<!z)");  // lookbehind left to RE2 to refuse
  EXPECT_EQ(rewrite_for_re2("[]a]b"), "[]a]b");  // a ']' first in a class is a character
  for (const char* p : {"(?x) \\b ( tok_ [a-z0-9]{8} ) \\b  # a token", "(?<t>tok_[a-z0-9]{8})"}) {
    const RE2 re(rewrite_for_re2(p));
    ASSERT_TRUE(re.ok()) << p << ": " << re.error();
    EXPECT_TRUE(RE2::PartialMatch("x tok_abcd1234 y", re)) << p;
  }
}

const std::string kYaml = R"yaml(
rules:
- name: Example Token
  id: ex.token.1
  pattern: |
    (?x)
    \b
    (ext_[a-z0-9]{12})   # the token
    \b
  min_entropy: 3.0
  confidence: high
  categories: [api, secret]
  examples:
  - 'key = ext_a1b2c3d4e5f6'
  negative_examples:
  - 'key = ext_a1b2'
- name: Helper Part
  id: ex.helper.1
  pattern: 'helper=(\w+)'
  visible: false
  examples: ['helper=abc']
- name: Not for RE2
  id: ex.lookahead.1
  pattern: 'foo(?=bar)'
- name: Empty Negatives
  id: ex.empty.1
  pattern: 'empty_(\d{4})'
  negative_examples:
)yaml";

TEST(YamlRules, fields_become_rules_and_a_pattern_re2_refuses_is_left_out_by_name) {
  ConfigWarnings w;
  const RuleSet s = parse_yaml_rules(kYaml, "ex.yml", w);
  ASSERT_EQ(s.rules.size(), 3u);
  const Rule& t = s.rules[0];
  EXPECT_EQ(t.id, "ex.token.1");
  EXPECT_EQ(t.description, "Example Token");
  EXPECT_EQ(t.regex, "\\b(ext_[a-z0-9]{12})\\b");
  EXPECT_EQ(t.entropy, 3.0);
  EXPECT_EQ(t.level(), Confidence::high);
  EXPECT_EQ(s.rules[1].level(), Confidence::medium);  // no confidence: medium
  EXPECT_EQ(t.family, "ex");                          // the file's name
  EXPECT_TRUE(t.keywords.empty());
  EXPECT_EQ(t.tags, (std::vector<std::string>{"api", "secret"}));
  EXPECT_EQ(t.examples, std::vector<std::string>{"key = ext_a1b2c3d4e5f6"});
  EXPECT_EQ(t.negative_examples, std::vector<std::string>{"key = ext_a1b2"});
  EXPECT_TRUE(s.rules[1].skip_report);  // visible: false
  EXPECT_EQ(s.rules[2].id, "ex.empty.1");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("ex.yml: rules[2] 'ex.lookahead.1': left out: its pattern cannot be used: ", 0), 0u) << w[0];
  // The rules find what their examples hold.
  const Detector d(s);
  Detector::Scratch scratch(d);
  std::vector<Finding> out;
  d.scan("f.txt", "key = ext_a1b2c3d4e5f6\nhelper=abc\n", scratch, out);
  ASSERT_EQ(out.size(), 1u);  // the helper is not reported alone
  EXPECT_EQ(out[0].secret, "ext_a1b2c3d4e5f6");
}

TEST(YamlRules, what_is_not_such_a_file_is_named) {
  ConfigWarnings w;
  const auto error = [&](const std::string& text) {
    try {
      parse_yaml_rules(text, "bad.yml", w);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error("name: x\n"), "bad.yml: not a rule file: no 'rules' list at the top");
  EXPECT_EQ(error("rules:\n- id: a\n"), "bad.yml: rules[0] 'a': 'pattern' is missing or empty");
  EXPECT_EQ(error("rules:\n- pattern: a\n"), "bad.yml: rules[0]: 'id' is missing or empty");
  EXPECT_EQ(error("rules:\n- id: a\n  pattern: b\n  examples: c\n"),
            "bad.yml: rules[0] 'a': 'examples' must be a list of strings");
  EXPECT_EQ(error("rules: [\n").rfind("bad.yml:", 0), 0u);
  EXPECT_NE(error("rules: [\n").find("not valid YAML"), std::string::npos);
}

TEST(CheckRules, names_each_example_a_rule_misses_and_each_negative_it_finds) {
  test::TempTree t;
  t.write("rules/a.yml", R"yaml(
rules:
- name: Good
  id: r.good
  pattern: '\b(good_[0-9]{6})\b'
  examples: ['good_123456']
  negative_examples: ['good_12345']
- name: Bad
  id: r.bad
  pattern: '\b(bad_[0-9]{6})\b'
  min_entropy: 2.0
  examples: ['bad_123456', 'bad_111111', 'nothing here']
  negative_examples: ['bad_654321']
)yaml");
  t.write("rules/sub/b.yaml", "rules:\n- name: Other\n  id: r.other\n  pattern: 'oth_[a-z]{4}'\n  examples: ['oth_abcd']\n");
  const test::ProcessResult r = test::run_process({STEALSCAN_BIN, "secrets", "--no-cache", "--check-rules", t.path("rules")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.out,
            "r.bad: example 2 is not found (matched, but its secret's entropy 1.77 is under the rule's 2.00): "
            "bad_111111\n"
            "r.bad: example 3 is not found (its pattern does not match it): nothing here\n"
            "r.bad: negative example 1 is found: bad_654321\n");
  EXPECT_NE(r.err.find("3 rules, 3 with examples: 3 of 5 examples found, 1 of 2 negative examples not found; 1 rule "
                       "failing"),
            std::string::npos)
      << r.err;
  const test::ProcessResult good = test::run_process({STEALSCAN_BIN, "secrets", "--check-rules", t.path("rules/sub/b.yaml")});
  EXPECT_EQ(good.status, 0) << good.err;
  EXPECT_EQ(good.out, "");
  const test::ProcessResult missing = test::run_process({STEALSCAN_BIN, "secrets", "--check-rules", t.path("none.yml")});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("none.yml"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace secrets_yaml_rules_test
}  // namespace stealscan::secrets

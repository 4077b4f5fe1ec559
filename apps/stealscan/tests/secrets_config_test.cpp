// The rule loader (src/secrets/rules/config_loader.*, detect/detector.* for regexes): every
// field of gitleaks' format is read, both spellings of allowlists, [extend];
// every error names the file, the rule, the field and the bad value.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "secrets/rules/allowlist_check.hpp"
#include "secrets/rules/config_loader.hpp"
#include "secrets/detect/detector.hpp"

namespace stealscan::secrets {
// Named after the file: test binaries compile several files as one unit.
namespace secrets_config_test {
namespace {

RuleSet load(const std::string& text) { return resolve_config(parse_config(text, "rules.toml"), default_rule_set()); }

// The ConfigError message that loading (and compiling) `text` raises.
std::string error_of(const std::string& text) {
  try {
    Detector d(load(text));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SecretsConfig, every_rule_field_is_read) {
  const RuleSet s = load(R"(
[[rules]]
id = "r1"
description = "a rule"
regex = '''key=(\w+)'''
secretGroup = 1
entropy = 3
keywords = ["Key="]
path = '''\.env$'''
tags = ["t1", "t2"]
)");
  ASSERT_EQ(s.rules.size(), 1u);
  const Rule& r = s.rules[0];
  EXPECT_EQ(r.id, "r1");
  EXPECT_EQ(r.description, "a rule");
  EXPECT_EQ(r.regex, "key=(\\w+)");
  EXPECT_EQ(r.secret_group, 1);
  EXPECT_EQ(r.entropy, 3.0);
  EXPECT_EQ(r.keywords, std::vector<std::string>{"key="});  // lower-cased
  EXPECT_EQ(r.path, "\\.env$");
  EXPECT_EQ(r.tags, (std::vector<std::string>{"t1", "t2"}));
}

TEST(SecretsConfig, allowlists_are_read_in_the_new_and_the_old_spelling) {
  const RuleSet s = load(R"(
[[rules]]
id = "r1"
regex = 'x'
  [[rules.allowlists]]
  regexes = ['a']
  regexTarget = "line"
  condition = "AND"
  paths = ['p']
  [[rules.allowlists]]
  stopwords = ["Foo"]
[[rules]]
id = "r2"
regex = 'y'
  [rules.allowlist]
  regexes = ['b']
  regexTarget = "match"

[allowlist]
regexes = ['c']
)");
  ASSERT_EQ(s.rules.size(), 2u);
  ASSERT_EQ(s.rules[0].allowlists.size(), 2u);
  EXPECT_EQ(s.rules[0].allowlists[0].target, RegexTarget::line);
  EXPECT_EQ(s.rules[0].allowlists[0].condition, Condition::all);
  EXPECT_EQ(s.rules[0].allowlists[1].stopwords, std::vector<std::string>{"foo"});
  ASSERT_EQ(s.rules[1].allowlists.size(), 1u);
  EXPECT_EQ(s.rules[1].allowlists[0].target, RegexTarget::match);
  ASSERT_EQ(s.allowlists.size(), 1u);
  EXPECT_EQ(s.allowlists[0].regexes, std::vector<std::string>{"c"});
  const RuleSet t = load("[[rules]]\nid = 'r1'\nregex = 'x'\n[[allowlists]]\ntargetRules = ['r1']\npaths = ['v/']\n");
  ASSERT_EQ(t.allowlists.size(), 1u);
  EXPECT_EQ(t.allowlists[0].target_rules, std::vector<std::string>{"r1"});
}

TEST(SecretsConfig, both_spellings_of_allowlists_in_one_table_are_refused) {
  // gitleaks refuses them together, at the top and in a rule.
  EXPECT_EQ(error_of("[[rules]]\nid = 'a'\nregex = 'x'\n[[allowlists]]\npaths = ['p']\n[allowlist]\npaths = ['q']\n"),
            "rules.toml: has both [allowlist] and [[allowlists]]: the older [allowlist] cannot be used beside the "
            "newer spelling; move it into [[allowlists]]");
  EXPECT_EQ(error_of("[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.allowlists]]\npaths = ['p']\n[rules.allowlist]\n"
                     "paths = ['q']\n"),
            "rules.toml: rules[0] 'a': has both [rules.allowlist] and [[rules.allowlists]]: the older "
            "[rules.allowlist] cannot be used beside the newer spelling; move it into [[rules.allowlists]]");
}

TEST(SecretsConfig, a_duplicate_id_replaces_the_earlier_rule_with_a_warning_naming_both) {
  ConfigWarnings warnings;
  const RuleSet s = resolve_config(
      parse_config("[[rules]]\nid = 'a'\nregex = 'x'\n[[rules]]\nid = 'b'\nregex = 'z'\n[[rules]]\nid = 'a'\n"
                   "regex = 'y'\n",
                   "rules.toml"),
      default_rule_set(), &warnings);
  ASSERT_EQ(s.rules.size(), 2u);
  EXPECT_EQ(s.rules[0].id, "a");
  EXPECT_EQ(s.rules[0].regex, "y");
  EXPECT_EQ(warnings, std::vector<std::string>{"rules.toml: rules[2] 'a': the id is used again: this rule replaces "
                                               "rules.toml: rules[0] 'a'"});
}

// `confidence` (ours, Kingfisher's levels): absent is medium; an extending
// rule's replaces the base's; a rule's family is its file's name.
TEST(SecretsConfig, confidence_is_read_and_merged_and_the_family_is_the_files_name) {
  const RuleSet base = resolve_config(
      parse_config("[[rules]]\nid = 'a'\nregex = 'a'\nconfidence = 'low'\n[[rules]]\nid = 'b'\nregex = 'b'\n"
                   "[[rules]]\nid = 'c'\nregex = 'c'\nconfidence = 'high'\n",
                   "dir/team.rules.toml"),
      RuleSet{});
  ASSERT_EQ(base.rules.size(), 3u);
  EXPECT_EQ(base.rules[0].level(), Confidence::low);
  EXPECT_EQ(base.rules[1].level(), Confidence::medium);
  EXPECT_EQ(base.rules[0].family, "team");
  const RuleSet merged = resolve_config(
      parse_config("[extend]\npath = 'x'\n[[rules]]\nid = 'a'\nconfidence = 'high'\n[[rules]]\nid = 'c'\n", "top.toml"),
      base);
  EXPECT_EQ(merged.rules[0].level(), Confidence::high);
  EXPECT_EQ(merged.rules[2].level(), Confidence::high);  // not set: the base's
  EXPECT_EQ(merged.rules[0].family, "team");               // the base's file
}

TEST(SecretsConfig, a_rule_with_a_base_rules_id_merges_into_it) {
  // Set fields replace the base's; keywords, tags, allowlists and required
  // parts are appended (gitleaks' Config.extend).
  const std::string base_text = R"(
[[rules]]
id = "k"
description = "base"
regex = 'tok_([a-z]{8})'
entropy = 2.0
keywords = ["tok_"]
tags = ["t1"]
  [[rules.allowlists]]
  stopwords = ["aaaa"]
[[rules]]
id = "other"
regex = 'o'
)";
  const RuleSet base = resolve_config(parse_config(base_text, "base.toml"), RuleSet{});
  const RuleSet keep = resolve_config(
      parse_config("[extend]\npath = 'base.toml'\n[[rules]]\nid = 'k'\ntags = ['t2']\nkeywords = ['TOKEN']\n"
                   "[[rules.allowlists]]\nstopwords = ['bbbb']\n",
                   "top.toml"),
      base);
  ASSERT_EQ(keep.rules.size(), 2u);
  const Rule& k = keep.rules[0];
  EXPECT_EQ(k.id, "k");
  EXPECT_EQ(k.description, "base");
  EXPECT_EQ(k.regex, "tok_([a-z]{8})");
  EXPECT_EQ(k.entropy, 2.0);
  EXPECT_EQ(k.keywords, (std::vector<std::string>{"tok_", "token"}));
  EXPECT_EQ(k.tags, (std::vector<std::string>{"t1", "t2"}));
  ASSERT_EQ(k.allowlists.size(), 2u);
  EXPECT_EQ(k.allowlists[1].stopwords, std::vector<std::string>{"bbbb"});
  const RuleSet over = resolve_config(
      parse_config("[extend]\npath = 'base.toml'\n[[rules]]\nid = 'k'\ndescription = 'mine'\nregex = 'x(y)'\n"
                   "entropy = 3.5\nsecretGroup = 1\npath = 'p'\n",
                   "top.toml"),
      base);
  EXPECT_EQ(over.rules[0].description, "mine");
  EXPECT_EQ(over.rules[0].regex, "x(y)");
  EXPECT_EQ(over.rules[0].entropy, 3.5);
  EXPECT_EQ(over.rules[0].secret_group, 1);
  EXPECT_EQ(over.rules[0].path, "p");
  // A new id still needs a regex or a path; one without [extend] too.
  EXPECT_EQ(error_of("[extend]\nuseDefault = true\n[[rules]]\nid = 'no-such-rule'\ntags = ['x']\n"),
            "rules.toml: rules[0] 'no-such-rule': has neither 'regex' nor 'path' (nor extends a rule of that id)");
  // The defaults' rules merge the same way.
  const RuleSet d = load("[extend]\nuseDefault = true\n[[rules]]\nid = 'github-pat'\nentropy = 4.5\n");
  EXPECT_EQ(d.rules.size(), default_rule_set().rules.size());
  const auto pat = std::find_if(d.rules.begin(), d.rules.end(), [](const Rule& r) { return r.id == "github-pat"; });
  ASSERT_NE(pat, d.rules.end());
  EXPECT_EQ(pat->entropy, 4.5);
  EXPECT_FALSE(pat->regex.empty());
}

TEST(SecretsConfig, an_entropy_over_8_is_taken_with_a_warning_and_a_negative_one_refused) {
  ConfigWarnings w;
  const RuleSet s = resolve_config(parse_config("[[rules]]\nid = 'a'\nregex = 'x'\nentropy = 999\n", "rules.toml"),
                                   RuleSet{}, &w);
  EXPECT_EQ(s.rules[0].entropy, 999.0);
  EXPECT_EQ(w, std::vector<std::string>{"rules.toml: rules[0] 'a': 'entropy' is 999, above the 8 bits a byte can "
                                        "hold: the rule reports nothing"});
  EXPECT_EQ(error_of("[[rules]]\nid = 'a'\nregex = 'x'\nentropy = -1\n"),
            "rules.toml: rules[0] 'a': 'entropy' must be 0 or more bits per byte, got -1");
}

// entropyHex (stealscan's): the floor for a secret of hex digits only, 0 to 4
// bits a byte; an extending rule may set it.
TEST(SecretsConfig, entropy_hex_is_read_checked_and_merged) {
  const RuleSet s = resolve_config(
      parse_config("[[rules]]\nid = 'a'\nregex = 'x'\nentropy = 3.7\nentropyHex = 3.2\n", "rules.toml"), RuleSet{},
      nullptr);
  EXPECT_EQ(s.rules[0].entropy_hex, 3.2);
  EXPECT_EQ(error_of("[[rules]]\nid = 'a'\nregex = 'x'\nentropyHex = 4.5\n"),
            "rules.toml: rules[0] 'a': 'entropyHex' must be between 0 and 4 bits per byte (16 symbols), got 4.5");
  const RuleSet base = resolve_config(parse_config("[[rules]]\nid = 'a'\nregex = 'x'\n", "base.toml"), RuleSet{}, nullptr);
  const RuleSet ext = resolve_config(
      parse_config("[extend]\nuseDefault = true\n[[rules]]\nid = 'a'\nentropyHex = 2.5\n", "ext.toml"), base, nullptr);
  EXPECT_EQ(ext.rules[0].entropy_hex, 2.5);
}

TEST(SecretsConfig, composite_rules_read_their_required_parts_and_skip_report) {
  const RuleSet s = load(R"toml(
[[rules]]
id = "pass"
regex = 'password="([^"]+)"'
  [[rules.required]]
  id = "user"
  withinLines = 2
  [[rules.required]]
  id = "host"
  withinColumns = 40
[[rules]]
id = "user"
regex = 'user="([^"]+)"'
skipReport = true
[[rules]]
id = "host"
regex = 'host="([^"]+)"'
)toml");
  ASSERT_EQ(s.rules[0].required.size(), 2u);
  EXPECT_EQ(s.rules[0].required[0].id, "user");
  EXPECT_EQ(s.rules[0].required[0].within_lines, 2);
  EXPECT_FALSE(s.rules[0].required[0].within_columns);
  EXPECT_EQ(s.rules[0].required[1].within_columns, 40);
  EXPECT_TRUE(s.rules[1].skip_report);
  EXPECT_FALSE(s.rules[2].skip_report);
  EXPECT_EQ(error_of("[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.required]]\nid = 'zz'\n"),
            "rules.toml: rules[0] 'a': required[0]: 'id' names no rule: \"zz\"");
  EXPECT_EQ(error_of("[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.required]]\nwithinLines = 1\n"),
            "rules.toml: rules[0] 'a': required[0]: 'id' is missing or empty");
  EXPECT_EQ(error_of("[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.required]]\nid = 'a'\nwithinLines = -1\n"),
            "rules.toml: rules[0] 'a': required[0]: 'withinLines' must be between 0 and 1000000, got -1");
}

TEST(SecretsConfig, extend_use_default_adds_the_defaults_less_the_disabled_ones) {
  const std::size_t defaults = default_rule_set().rules.size();
  const RuleSet s = load(R"(
[extend]
useDefault = true
disabledRules = ["jwt", "generic-secret"]
[[rules]]
id = "mine"
regex = 'x'
[[rules]]
id = "github-pat"
regex = 'ghp_mine'
)");
  EXPECT_EQ(s.rules.size(), defaults - 2 + 1);  // github-pat replaced, not added
  int github = 0;
  for (const Rule& r : s.rules) {
    EXPECT_NE(r.id, "jwt");
    if (r.id == "github-pat") {
      ++github;
      EXPECT_EQ(r.regex, "ghp_mine");
    }
  }
  EXPECT_EQ(github, 1);
}

TEST(SecretsConfig, without_extend_only_the_files_rules_are_used) {
  EXPECT_EQ(load("[[rules]]\nid = 'a'\nregex = 'x'\n").rules.size(), 1u);
}

TEST(SecretsConfig, a_wrong_type_names_file_rule_field_and_value) {
  EXPECT_EQ(error_of("[[rules]]\nid='a'\nregex='x'\n[[rules]]\nid='b'\nregex='x'\n[[rules]]\nid='c'\nregex='x'\n"
                     "[[rules]]\nid = 'aws-key'\nregex = 'x'\nentropy = \"high\"\n"),
            "rules.toml: rules[3] 'aws-key': 'entropy' must be a number, got \"high\"");
  EXPECT_EQ(error_of("[[rules]]\nid = 'k'\nregex = 'x'\nkeywords = 'one'\n"),
            "rules.toml: rules[0] 'k': 'keywords' must be an array of strings, got \"one\"");
  EXPECT_EQ(error_of("[[rules]]\nid = 'k'\nregex = 'x'\nsecretGroup = 1.5\n"),
            "rules.toml: rules[0] 'k': 'secretGroup' must be a whole number, got 1.5");
  EXPECT_EQ(error_of("[[rules]]\nid = 'k'\nregex = 'x'\n[[rules.allowlists]]\nregexTarget = 'all'\nregexes=['a']\n"),
            "rules.toml: rules[0] 'k': allowlists[0]: 'regexTarget' must be \"secret\", \"match\" or \"line\", "
            "got \"all\"");
  EXPECT_EQ(error_of("[[rules]]\nid = 'k'\nregex = 'x'\n[rules.allowlist]\ncondition = 'XOR'\nregexes=['a']\n"),
            "rules.toml: rules[0] 'k': allowlist: 'condition' must be \"OR\" or \"AND\", got \"XOR\"");
}

TEST(SecretsConfig, an_invalid_regex_names_the_rule_and_the_field) {
  EXPECT_EQ(error_of("[[rules]]\nid = 'bad'\nregex = 'a(b'\n"),
            "rules.toml: rules[0] 'bad': 'regex' is not a valid regular expression: a(b: missing ): a(b");
  EXPECT_NE(error_of("[[rules]]\nid = 'p'\nregex = 'x'\npath = '[z'\n").find("rules[0] 'p': 'path' is not a valid"),
            std::string::npos);
  EXPECT_NE(error_of("[[rules]]\nid = 'p'\nregex = 'x'\n[[rules.allowlists]]\nregexes = ['*']\n")
                .find("rules[0] 'p': allowlists[0]: 'regexes' is not a valid"),
            std::string::npos);
}

// RE2 20220601 (Debian 12) factors the common leading literal of an
// alternation's branches into a literal that loses Latin-1 mode: "café1|café2"
// (UTF-8: the branches share "caf\xc3\xa9") then matched nothing. Rule and
// allowlist regexes go through re2_text() as the search's regexes do.
TEST(SecretsConfig, a_rule_whose_branches_share_a_non_ascii_prefix_finds_each_branch) {
  const Detector d(load(R"(
[[rules]]
id = "cafe"
regex = '''café1|café2'''
keywords = ["caf"]
[[rules]]
id = "allowed"
regex = '''tok_[a-z]+'''
keywords = ["tok_"]
[rules.allowlist]
regexTarget = "line"
regexes = ['''naïve1|naïve2''']
)"));
  Detector::Scratch scratch(d);
  for (const std::string text : {"x café1 y\n", "x café2 y\n"}) {
    std::vector<Finding> out;
    d.scan("a.txt", text, scratch, out);
    ASSERT_EQ(out.size(), 1u) << text;
    EXPECT_EQ(out[0].rule->id, "cafe") << text;
  }
  for (const std::string text : {"tok_abc naïve1\n", "tok_abc naïve2\n"}) {
    std::vector<Finding> out;
    d.scan("a.txt", text, scratch, out);
    EXPECT_TRUE(out.empty()) << text << ": the allowlist's second branch must allow it";
  }
  std::vector<Finding> out;
  d.scan("a.txt", "tok_abc plain\n", scratch, out);
  EXPECT_EQ(out.size(), 1u) << "not allowed without the allowlist's text";
}

TEST(SecretsConfig, structural_mistakes_are_named) {
  EXPECT_EQ(error_of("[[rules]]\nregex = 'x'\n"), "rules.toml: rules[0]: 'id' is missing or empty");
  EXPECT_EQ(error_of("[[rules]]\nid = 'a'\n"),
            "rules.toml: rules[0] 'a': has neither 'regex' nor 'path' (nor extends a rule of that id)");
  EXPECT_EQ(error_of("[[rules]]\nid = 'a'\nregex = '(x)'\nsecretGroup = 2\n"),
            "rules.toml: rules[0] 'a': 'secretGroup' is 2 but 'regex' has 1 capture group");
  EXPECT_EQ(error_of("[[rules]]\nid = 'a'\nregex = 'x'\n[[allowlists]]\ntargetRules = ['b']\npaths = ['p']\n"),
            "rules.toml: allowlists[0]: 'targetRules' names no rule: \"b\"");
  EXPECT_EQ(error_of("[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.allowlists]]\ndescription = 'empty'\n"),
            "rules.toml: rules[0] 'a': allowlists[0]: has none of 'regexes', 'paths', 'stopwords', 'commits'");
  EXPECT_EQ(error_of("[extend]\nuseDefault = true\npath = 'base.toml'\n"),
            "rules.toml: [extend]: 'path' cannot be given with useDefault = true (got \"base.toml\"): extend one or "
            "the other");
  EXPECT_EQ(error_of("[[rules]]\nid = 'a'\nregex = 'x'\nkeywords = ['']\n"),
            "rules.toml: rules[0] 'a': 'keywords' holds an empty string");
}

TEST(SecretsConfig, an_and_allowlist_that_lists_commits_allows_nothing_outside_git) {
  // As gitleaks: outside git there is no commit, so the commits check misses
  // and an AND fails; an OR allowlist still allows by its other checks.
  const std::string commit(40, 'a');
  Allowlist both;
  both.where = "t";
  both.condition = Condition::all;
  both.commits = {commit};
  both.paths = {"^vendor/"};
  const AllowlistCheck and_check(both);
  EXPECT_FALSE(and_check.allows(Candidate{"vendor/x.txt", "m", "s", "l"}));
  EXPECT_TRUE(and_check.allows(Candidate{"vendor/x.txt", "m", "s", "l", commit}));
  EXPECT_FALSE(and_check.allows(Candidate{"vendor/x.txt", "m", "s", "l", std::string(40, 'b')}));
  Allowlist either = both;
  either.condition = Condition::any;
  const AllowlistCheck or_check(either);
  EXPECT_TRUE(or_check.allows(Candidate{"vendor/x.txt", "m", "s", "l"}));
  Allowlist commits_only;
  commits_only.where = "t";
  commits_only.commits = {commit};
  EXPECT_FALSE(AllowlistCheck(commits_only).allows(Candidate{"vendor/x.txt", "m", "s", "l"}));
  EXPECT_TRUE(AllowlistCheck(commits_only).allows(Candidate{"a.txt", "m", "s", "l", commit}));
}

// [extend] path: files written into a temporary directory.
class ExtendPath : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/stealscan-extend.XXXXXX";
    ASSERT_NE(::mkdtemp(templ), nullptr);
    dir_ = templ;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string p = dir_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(p).parent_path());
    std::ofstream(p) << text;
    return p;
  }
  std::vector<std::string> ids(const RuleSet& s) {
    std::vector<std::string> out;
    for (const Rule& r : s.rules) out.push_back(r.id);
    return out;
  }
  std::string error_loading(const std::string& path) {
    try {
      load_config_file(path, default_rule_set());
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "(no error)";
  }
  std::string dir_;
};

TEST_F(ExtendPath, a_file_extends_another_relative_to_itself_overriding_and_disabling_its_rules) {
  write("base/base.toml",
        "[[rules]]\nid = 'a'\nregex = 'aaa'\n[[rules]]\nid = 'b'\nregex = 'bbb'\n[[rules]]\nid = 'c'\nregex = "
        "'ccc'\n[[allowlists]]\npaths = ['vendor/']\n");
  const std::string top = write("base/top.toml",
                                "[extend]\npath = 'base.toml'\ndisabledRules = ['b']\n[[rules]]\nid = 'c'\nregex = "
                                "'CCC'\n[[rules]]\nid = 'd'\nregex = 'ddd'\n");
  const RuleSet s = load_config_file(top, default_rule_set());
  EXPECT_EQ(ids(s), (std::vector<std::string>{"a", "c", "d"}));
  EXPECT_EQ(s.rules[1].regex, "CCC");
  ASSERT_EQ(s.allowlists.size(), 1u);
  EXPECT_EQ(s.allowlists[0].paths, std::vector<std::string>{"vendor/"});
}

TEST_F(ExtendPath, the_extended_file_may_itself_extend_the_defaults) {
  write("base.toml", "[extend]\nuseDefault = true\ndisabledRules = ['jwt']\n");
  const std::string top = write("top.toml", "[extend]\npath = 'base.toml'\n[[rules]]\nid = 'mine'\nregex = 'x'\n");
  const RuleSet s = load_config_file(top, default_rule_set());
  EXPECT_EQ(s.rules.size(), default_rule_set().rules.size());  // less jwt, plus mine
  EXPECT_EQ(ids(s).back(), "mine");
}

TEST_F(ExtendPath, a_missing_file_is_an_error_and_what_gitleaks_accepts_is_a_warning) {
  const std::string lone = write("lone.toml", "[extend]\npath = 'nowhere.toml'\n");
  EXPECT_EQ(error_loading(lone).rfind(dir_ + "/nowhere.toml: cannot read the config file", 0), 0u)
      << error_loading(lone);
  // A disabled rule the base does not have, and disabledRules without a base.
  write("base2.toml", "[[rules]]\nid = 'a'\nregex = 'x'\n");
  const std::string bad = write("bad.toml", "[extend]\npath = 'base2.toml'\ndisabledRules = ['zzz']\n");
  ConfigWarnings w;
  EXPECT_EQ(ids(load_config_file(bad, default_rule_set(), &w)), std::vector<std::string>{"a"});
  EXPECT_EQ(w, std::vector<std::string>{bad + ": [extend]: 'disabledRules' names no rule of the extended config: \"zzz\""});
  const std::string alone = write("alone.toml", "[extend]\ndisabledRules = ['jwt']\n[[rules]]\nid = 'a'\nregex = 'x'\n");
  w.clear();
  EXPECT_EQ(ids(load_config_file(alone, default_rule_set(), &w)), std::vector<std::string>{"a"});
  EXPECT_EQ(w, std::vector<std::string>{alone + ": [extend]: 'disabledRules' has no effect without useDefault = true "
                                                "or a path"});
}

TEST_F(ExtendPath, extend_stops_two_levels_below_the_config_in_use_as_gitleaks) {
  // d0 -> d1 -> d2 -> d3: d2's [extend] is not followed (d3 is never read:
  // it does not even exist), with a warning; d0, d1 and d2's rules load.
  for (int i = 0; i < 3; ++i)
    write("d" + std::to_string(i) + ".toml", "[extend]\npath = 'd" + std::to_string(i + 1) + ".toml'\n[[rules]]\nid = 'r" +
                                                 std::to_string(i) + "'\nregex = 'x'\n");
  ConfigWarnings w;
  EXPECT_EQ(ids(load_config_file(dir_ + "/d0.toml", default_rule_set(), &w)),
            (std::vector<std::string>{"r2", "r1", "r0"}));
  EXPECT_EQ(w, std::vector<std::string>{dir_ + "/d2.toml: [extend] is not followed: gitleaks extends at most 2 "
                                                "levels below the config in use"});
  // The same for useDefault at the third level: no defaults come in.
  write("u1.toml", "[extend]\npath = 'u2.toml'\n");
  write("u2.toml", "[extend]\nuseDefault = true\n[[rules]]\nid = 'u'\nregex = 'x'\n");
  const std::string u0 = write("u0.toml", "[extend]\npath = 'u1.toml'\n");
  EXPECT_EQ(ids(load_config_file(u0, default_rule_set())), std::vector<std::string>{"u"});
  // A cycle within the depth is not followed either.
  const std::string a = write("a.toml", "[extend]\npath = 'b.toml'\n[[rules]]\nid = 'ra'\nregex = 'x'\n");
  write("b.toml", "[extend]\npath = 'a.toml'\n[[rules]]\nid = 'rb'\nregex = 'y'\n");
  w.clear();
  EXPECT_EQ(ids(load_config_file(a, default_rule_set(), &w)), (std::vector<std::string>{"rb", "ra"}));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("makes a cycle"), std::string::npos) << w[0];
}

TEST_F(ExtendPath, a_relative_path_is_read_beside_the_extending_file_else_from_the_working_directory) {
  write("cfg/base.toml", "[[rules]]\nid = 'beside'\nregex = 'x'\n");
  write("base.toml", "[[rules]]\nid = 'cwd'\nregex = 'x'\n");
  write("only-cwd.toml", "[[rules]]\nid = 'only-cwd'\nregex = 'x'\n");
  const std::string top = write("cfg/top.toml", "[extend]\npath = 'base.toml'\n");
  const std::string other = write("cfg/other.toml", "[extend]\npath = 'only-cwd.toml'\n");
  const std::filesystem::path was = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  const std::vector<std::string> beside = ids(load_config_file(top, default_rule_set()));
  const std::vector<std::string> cwd = ids(load_config_file(other, default_rule_set()));
  std::filesystem::current_path(was);
  EXPECT_EQ(beside, std::vector<std::string>{"beside"});  // both exist: beside the file wins
  EXPECT_EQ(cwd, std::vector<std::string>{"only-cwd"});   // gitleaks' reading, as a fallback
}

TEST(SecretsConfig, bad_toml_is_named_with_its_line_and_column) {
  const std::string e = error_of("[[rules]]\nid = 'a'\nregex = \n");
  EXPECT_EQ(e.rfind("rules.toml:3:", 0), 0u) << e;
  EXPECT_NE(e.find("not valid TOML"), std::string::npos) << e;
}

}  // namespace
}  // namespace secrets_config_test
}  // namespace stealscan::secrets

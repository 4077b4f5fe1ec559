// Composite rules (gitleaks' [[rules.required]] and skipReport), in the
// Detector: a finding of the primary rule is reported only with a finding of
// each required rule in the same text, within withinLines and withinColumns
// of its start when given; a skipReport rule is never reported on its own; a
// required rule runs over the whole text, its keywords or not.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "secrets/detect/detector.hpp"
#include "secrets/rules/config_loader.hpp"
#include "support/detector_run.hpp"

namespace stealscan::secrets {
// Named after the file: test binaries compile several files as one unit.
namespace secrets_composite_test {
namespace {

// "rule line:column=secret [parts...]" per finding.
std::vector<std::string> scan(const Detector& d, const std::string& text) {
  std::vector<std::string> brief;
  for (const Finding& f : findings_in(d, text)) {
    // Built by append: g++ 12 -O3 warns falsely (-Wrestrict) on "literal" + std::string.
    std::string b = f.rule->id;
    b.append(" ").append(std::to_string(f.start_line)).append(":").append(std::to_string(f.start_column));
    b.append("=").append(f.secret);
    for (const RequiredPart& p : f.required) {
      b.append(" +").append(p.rule->id).append("@").append(std::to_string(p.start_line)).append(":");
      b.append(std::to_string(p.start_column)).append("=").append(p.secret);
    }
    brief.push_back(b);
  }
  return brief;
}

const std::string kRules = R"toml(
[[rules]]
id = "pass"
regex = '''password="([^"]+)"'''
keywords = ["password"]
  [[rules.required]]
  id = "user"
  withinLines = 1
[[rules]]
id = "user"
regex = '''user="([^"]+)"'''
keywords = ["never-in-the-text"]
skipReport = true
[[rules]]
id = "near"
regex = '''key=(\w+)'''
  [[rules.required]]
  id = "user"
  withinColumns = 10
  [[rules.required]]
  id = "host"
[[rules]]
id = "host"
regex = '''host=(\w+)'''
)toml";

TEST(SecretsComposite, the_primary_is_reported_with_its_parts_within_the_lines_given) {
  const Detector d(rules_from(kRules));
  // user on the line before: within 1 line. The required rule's keyword is
  // not in the text: it runs anyway.
  EXPECT_EQ(scan(d, "user=\"alice\"\npassword=\"hunter22\"\n"),
            std::vector<std::string>{"pass 2:1=hunter22 +user@1:1=alice"});
  // Two lines away: not reported; no user at all: not reported.
  EXPECT_TRUE(scan(d, "user=\"alice\"\n\npassword=\"hunter22\"\n").empty());
  EXPECT_TRUE(scan(d, "password=\"hunter22\"\n").empty());
  // skipReport: a user alone is never a finding.
  EXPECT_TRUE(scan(d, "user=\"alice\"\n").empty());
}

TEST(SecretsComposite, every_required_rule_must_be_found_and_columns_are_measured_from_the_starts) {
  const Detector d(rules_from(kRules));
  // user starts 8 columns from key: within 10; host anywhere in the text.
  EXPECT_EQ(scan(d, "key=abc user=\"bob\"\n\n\nhost=db1\n"),
            (std::vector<std::string>{"near 1:1=abc +user@1:9=bob +host@4:1=db1", "host 4:1=db1"}));  // rule order
  // user 20 columns away: too far; no host: not reported.
  EXPECT_EQ(scan(d, "key=abc             user=\"bob\"\nhost=db1\n"), std::vector<std::string>{"host 2:1=db1"});
  EXPECT_TRUE(scan(d, "key=abc user=\"bob\"\n").empty());
}

// A text full of both: each finding carries the nearest parts by line, at
// most kMaxParts of each required rule, in text order (gitleaks attaches
// every one: 8,000 lines of both made a 5 GB report), and the columns bound
// still applies to each.
TEST(SecretsComposite, a_finding_carries_at_most_the_nearest_parts) {
  const Detector d(rules_from(R"toml(
[[rules]]
id = "tok"
regex = '''tok_(\d+)'''
  [[rules.required]]
  id = "key"
[[rules]]
id = "key"
regex = '''key_(\d+)'''
skipReport = true
[[rules]]
id = "narrow"
regex = '''narrow_(\d+)'''
  [[rules.required]]
  id = "key"
  withinColumns = 3
)toml"));
  std::string text;
  for (int i = 0; i < 400; ++i) text.append("tok_").append(std::to_string(i)).append(" key_").append(std::to_string(i)).append("\n");
  const std::vector<Finding> found = findings_in(d, text);
  ASSERT_EQ(found.size(), 400u);
  for (const Finding& f : found) {
    ASSERT_EQ(f.required.size(), Detector::kMaxParts) << f.start_line;
    // Its own line, then one below, one above and so on (a tie goes below):
    // 3 lines above to 4 below, shifted at the text's ends; in text order.
    const std::uint64_t first = std::min<std::uint64_t>(f.start_line > 3 ? f.start_line - 3 : 1, 400 - 7);
    for (std::size_t k = 0; k < f.required.size(); ++k) EXPECT_EQ(f.required[k].start_line, first + k) << f.start_line;
  }
  // Parts out of its columns are passed over, however near their lines: the
  // nearest ones within the bound are taken.
  std::string cols = "narrow_1\n";
  for (int i = 0; i < 20; ++i) cols.append("     key_").append(std::to_string(i)).append("\n");  // column 6: too far
  cols.append("key_99\n");
  EXPECT_EQ(scan(d, cols), std::vector<std::string>{"narrow 1:1=1 +key@22:1=99"});
}

TEST(SecretsComposite, a_required_rule_must_exist) {
  // parse_config() alone does not check it (resolve_config() does): the
  // Detector checks it again for a RuleSet built by other means.
  RuleSet bad = parse_config("[[rules]]\nid = 'a'\nregex = 'x'\n[[rules.required]]\nid = 'missing'\n", "test.toml").own;
  try {
    Detector d(std::move(bad));
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "test.toml: rules[0] 'a': required 'id' names no rule: \"missing\"");
  }
}

}  // namespace
}  // namespace secrets_composite_test
}  // namespace stealscan::secrets

// Which text a finding reports as its secret (gitleaks' rule, config.md): the
// group `secretGroup` names; without it the first group that captured
// something, else the whole match.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/detector_run.hpp"

namespace stealscan::secrets {
// Named after the file: test binaries compile several files as one unit.
namespace secrets_finding_secret_test {
namespace {

std::vector<std::string> secrets_of(const std::string& toml, const std::string& text) {
  const Detector d(rules_from(toml));
  std::vector<std::string> out;
  for (const Finding& f : findings_in(d, text)) out.push_back(f.secret);
  return out;
}

TEST(SecretsFindingSecret, without_secret_group_each_branch_reports_the_group_it_captured) {
  // The quotes around a value: one branch a quote, each its own group.
  const std::string toml = R"toml(
[[rules]]
id = "quoted"
regex = '''pass:[ ]*(?:"([^"\n]{4,})"|'([^'\n]{4,})')'''
)toml";
  EXPECT_EQ(secrets_of(toml, "pass: \"it's-me\"\n"), std::vector<std::string>{"it's-me"});
  EXPECT_EQ(secrets_of(toml, "pass: 'say \"hi\"'\n"), std::vector<std::string>{"say \"hi\""});
}

TEST(SecretsFindingSecret, an_empty_first_group_gives_way_to_the_next_and_none_to_the_match) {
  const std::string toml = R"toml(
[[rules]]
id = "two"
regex = '''k=([a-z]*)([0-9]+)'''
[[rules]]
id = "none"
regex = '''z=([a-z]*)'''
)toml";
  EXPECT_EQ(secrets_of(toml, "k=123\n"), std::vector<std::string>{"123"});
  EXPECT_EQ(secrets_of(toml, "k=ab12\n"), std::vector<std::string>{"ab"});
  EXPECT_EQ(secrets_of(toml, "z=\n"), std::vector<std::string>{"z="});
}

TEST(SecretsFindingSecret, a_named_secret_group_is_used_alone_and_its_absence_drops_the_match) {
  const std::string toml = R"toml(
[[rules]]
id = "named"
regex = '''(?:a=([a-z]+)|b=([0-9]+))'''
secretGroup = 2
)toml";
  EXPECT_EQ(secrets_of(toml, "b=42\n"), std::vector<std::string>{"42"});
  EXPECT_TRUE(secrets_of(toml, "a=xy\n").empty());
}

}  // namespace
}  // namespace secrets_finding_secret_test
}  // namespace stealscan::secrets

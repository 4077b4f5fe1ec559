// End to end: the reports of `stealscan secrets` other than text and JSON
// (SARIF 2.1.0 checked for the fields its schema requires, csv, junit), the
// known findings a scan leaves out (--baseline, --fingerprints,
// .gitleaksignore, fingerprint lines of .stealscanignore), and what is decoded
// before matching (base64 blobs, UTF-16 files).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "output/output.hpp"
#include "support/run_process.hpp"
#include "support/secret_samples.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_secrets_report_test {
namespace {

using nlohmann::json;

const std::string kBin = STEALSCAN_BIN;

const std::string kGithub2 = "ghp_" + cyc("zyxwvutsrqponmlkjihgfedcba9876543210ZYXWVUTSRQPONMLKJIHGFEDCBA", 36);

ProcessResult secrets(const std::vector<std::string>& args) {
  std::vector<std::string> argv{kBin, "secrets", "--no-progress", "--no-cache", "-j", "2"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

// Two findings under data/: github-pat in "dir one/a.py" line 2, column 7;
// aws-access-key-id in b.ini line 1.
void plant(const TempTree& t) {
  t.write("data/dir one/a.py", "import os\nGH = \"" + kGithub + "\"\n");
  t.write("data/b.ini", kAws + "\n");
}

// ---- SARIF ---------------------------------------------------------------

// The checks of the SARIF 2.1.0 schema's "required" lists for the objects we
// write (sarifLog, run, tool, toolComponent, reportingDescriptor, result,
// message, location, physicalLocation, artifactLocation, region), and of the
// schema's minimums (line and column numbers from 1).
void expect_valid_sarif(const json& doc) {
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc.at("version"), "2.1.0");
  ASSERT_TRUE(doc.at("runs").is_array());
  ASSERT_EQ(doc["runs"].size(), 1u);
  const json& run = doc["runs"][0];
  const json& driver = run.at("tool").at("driver");
  EXPECT_TRUE(driver.at("name").is_string());
  const json& rules = driver.at("rules");
  ASSERT_TRUE(rules.is_array());
  std::set<std::string> ids;
  for (const json& r : rules) {
    ASSERT_TRUE(r.at("id").is_string());
    EXPECT_TRUE(ids.insert(r["id"].get<std::string>()).second) << "duplicate rule " << r["id"];
    EXPECT_TRUE(r.at("shortDescription").at("text").is_string());
  }
  ASSERT_TRUE(run.at("results").is_array());
  for (const json& res : run["results"]) {
    EXPECT_TRUE(res.at("message").at("text").is_string());
    const std::string id = res.at("ruleId");
    const auto index = res.at("ruleIndex").get<std::size_t>();
    ASSERT_LT(index, rules.size());
    EXPECT_EQ(rules[index]["id"], id);
    ASSERT_EQ(res.at("locations").size(), 1u);
    const json& phys = res["locations"][0].at("physicalLocation");
    EXPECT_TRUE(phys.at("artifactLocation").at("uri").is_string());
    if (phys.contains("region")) {
      const json& reg = phys["region"];
      EXPECT_GE(reg.at("startLine").get<long>(), 1);
      EXPECT_GE(reg.at("startColumn").get<long>(), 1);
      EXPECT_GE(reg.at("endLine").get<long>(), reg["startLine"].get<long>());
      if (reg["endLine"] == reg["startLine"]) {
        EXPECT_GT(reg.at("endColumn").get<long>(), reg["startColumn"].get<long>());
      }
    }
  }
}

TEST(SecretsReport, sarif_has_every_rule_and_a_result_per_finding_with_its_region) {
  TempTree t;
  plant(t);
  const ProcessResult r = secrets({"--format", "sarif", t.path("data")});
  ASSERT_EQ(r.status, 1) << r.err;
  const json doc = json::parse(r.out);
  expect_valid_sarif(doc);
  const json& run = doc["runs"][0];
  EXPECT_GE(run["tool"]["driver"]["rules"].size(), 60u);  // the built-in set, found or not
  ASSERT_EQ(run["results"].size(), 2u);
  // Report order: by file ("b.ini" < "dir one/a.py").
  const json& aws = run["results"][0];
  EXPECT_EQ(aws["ruleId"], "aws-access-key-id");
  const json& gh = run["results"][1];
  EXPECT_EQ(gh["ruleId"], "github-pat");
  const json& loc = gh["locations"][0]["physicalLocation"];
  // A URI: the space percent-encoded.
  EXPECT_EQ(loc["artifactLocation"]["uri"], t.path("data") + "/dir%20one/a.py");
  EXPECT_EQ(loc["region"]["startLine"], 2);
  EXPECT_EQ(loc["region"]["startColumn"], 7);
  EXPECT_EQ(loc["region"]["endLine"], 2);
  // SARIF's endColumn is the column after the region: 7 + 40 bytes.
  EXPECT_EQ(loc["region"]["endColumn"], 47);
  EXPECT_EQ(loc["region"]["snippet"]["text"], kGithub);
  EXPECT_EQ(gh["partialFingerprints"]["stealscan/v1"], t.path("data") + "/dir one/a.py:github-pat:2");
  // gitleaks' partialFingerprints keys (empty outside git) and the rule's tags.
  for (const char* key : {"commitSha", "email", "author", "date", "commitMessage"})
    EXPECT_EQ(gh["partialFingerprints"][key], "") << key;
  EXPECT_EQ(gh["properties"]["tags"], json::parse(R"(["github", "token"])"));
  EXPECT_EQ(gh["message"]["text"], "github-pat has detected secret for file " + t.path("data") + "/dir one/a.py.");
}

TEST(SecretsReport, sarif_without_findings_is_a_valid_log_with_no_results) {
  TempTree t;
  t.write("data/clean.txt", "nothing here\n");
  const ProcessResult r = secrets({"--format", "sarif", t.path("data")});
  ASSERT_EQ(r.status, 0) << r.err;
  const json doc = json::parse(r.out);
  expect_valid_sarif(doc);
  EXPECT_TRUE(doc["runs"][0]["results"].empty());
}

TEST(SecretsReport, sarif_path_only_finding_has_no_region_and_redact_hides_the_snippet) {
  TempTree t;
  plant(t);
  t.write("data/key.pem", "not a key, but the name says so\n");
  t.write("rules.toml",
          "[extend]\nuseDefault = true\n[[rules]]\nid = 'pem-file'\ndescription = 'a PEM file'\npath = '\\.pem$'\n");
  const ProcessResult r = secrets({"--config", t.path("rules.toml"), "--redact", "-f", "sarif", t.path("data")});
  ASSERT_EQ(r.status, 1) << r.err;
  const json doc = json::parse(r.out);
  expect_valid_sarif(doc);
  bool saw_path_rule = false;
  for (const json& res : doc["runs"][0]["results"]) {
    const json& phys = res["locations"][0]["physicalLocation"];
    if (res["ruleId"] == "pem-file") {
      saw_path_rule = true;
      EXPECT_FALSE(phys.contains("region"));
    } else {
      EXPECT_EQ(phys["region"]["snippet"]["text"], "REDACTED");
    }
  }
  EXPECT_TRUE(saw_path_rule);
}

TEST(SecretsReport, sarif_text_is_utf8_even_for_a_file_name_that_is_not) {
  TempTree t;
  t.write(std::string("data/caf\xe9.env"), "GH = \"" + kGithub + "\"\n");
  const ProcessResult r = secrets({"--format", "sarif", t.path("data")});
  ASSERT_EQ(r.status, 1) << r.err;
  const json doc = json::parse(r.out);  // nlohmann rejects strings that are not UTF-8
  expect_valid_sarif(doc);
  const std::string uri = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
  EXPECT_NE(uri.find("caf%E9.env"), std::string::npos) << uri;
}

// ---- csv and junit ------------------------------------------------------

TEST(SecretsReport, csv_has_gitleaks_columns_and_quotes_fields_with_commas_and_quotes) {
  TempTree t;
  t.write("data/a,b.txt", "x = \"" + kGithub + "\"\n");
  const ProcessResult r = secrets({"--format", "csv", t.path("data")});
  ASSERT_EQ(r.status, 1) << r.err;
  const std::string header =
      "RuleID,Commit,File,SymlinkFile,Secret,Match,StartLine,EndLine,StartColumn,EndColumn,Author,Message,Date,"
      "Email,Fingerprint,Tags\r\n";
  ASSERT_EQ(r.out.substr(0, header.size()), header);
  const std::string row = r.out.substr(header.size());
  const std::string file = t.path("data") + "/a,b.txt";
  EXPECT_EQ(row, "github-pat,,\"" + file + "\",," + kGithub + "," + kGithub + ",1,1,6,45,,,,,\"" + file +
                     ":github-pat:1\",github token\r\n");
  // No findings: nothing at all, not even the header (gitleaks').
  t.write("clean/a.txt", "nothing\n");
  const ProcessResult clean = secrets({"--format", "csv", t.path("clean")});
  EXPECT_EQ(clean.status, 0) << clean.err;
  EXPECT_EQ(clean.out, "");
}

TEST(SecretsReport, junit_lists_each_finding_as_a_failed_test_case_with_markup_escaped) {
  TempTree t;
  t.write("data/<a&b>.txt", "GH = \"" + kGithub + "\"\n" + kAws + "\n");
  const ProcessResult r = secrets({"--format", "junit", t.path("data")});
  ASSERT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.out.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\n\t<testsuite failures=\"2\" name=\"stealscan\" tests=\"2\" time=\"\">\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("&lt;a&amp;b&gt;.txt"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("<a&b>"), std::string::npos) << r.out;
  std::size_t cases = 0;
  for (std::size_t at = r.out.find("<testcase "); at != std::string::npos; at = r.out.find("<testcase ", at + 1))
    ++cases;
  EXPECT_EQ(cases, 2u);
  const std::string tail = "</testcase>\n\t</testsuite>\n</testsuites>";  // no newline after, as gitleaks'
  EXPECT_EQ(r.out.substr(r.out.size() - tail.size()), tail);
  // As gitleaks: the rule's description as the failure's type and the case's
  // class, gitleaks' message as its name, the finding as Go's indented JSON,
  // in Go's XML escapes.
  EXPECT_NE(r.out.find("<failure message=\"github-pat has detected a secret in file " + t.path("data") +
                       "/&lt;a&amp;b&gt;.txt, line 1.\" type=\"GitHub personal access token (classic)\">"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\t\t<testcase classname=\"GitHub personal access token (classic)\" file=\"" + t.path("data") +
                       "/&lt;a&amp;b&gt;.txt\" name=\"github-pat has detected a secret in file "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(">{&#xA;&#x9;&#34;RuleID&#34;: &#34;github-pat&#34;,&#xA;&#x9;&#34;Description&#34;: "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("&#34;Tags&#34;: [&#xA;&#x9;&#x9;&#34;github&#34;,&#xA;&#x9;&#x9;&#34;token&#34;&#xA;&#x9;],"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("/\\u003ca\\u0026b\\u003e.txt:github-pat:1&#34;&#xA;}</failure>"), std::string::npos) << r.out;
  // No findings: an empty suite on one line.
  t.write("clean/a.txt", "nothing\n");
  const ProcessResult clean = secrets({"--format", "junit", t.path("clean")});
  EXPECT_EQ(clean.out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n\t<testsuite failures=\"0\" "
                       "name=\"stealscan\" tests=\"0\" time=\"\"></testsuite>\n</testsuites>");
}

TEST(SecretsReport, a_report_that_cannot_be_written_to_stdout_is_an_error) {
  TempTree t;
  plant(t);
  const ProcessResult r = run_process(
      {"/bin/sh", "-c", "'" + kBin + "' secrets --no-progress --no-cache '" + t.path("data") + "' > /dev/full"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("writing the report: No space left on device"), std::string::npos) << r.err;
}

TEST(SecretsReport, a_composite_finding_carries_its_parts_in_an_extra_json_field_redacted_with_it) {
  TempTree t;
  t.write("rules.toml",
          "[[rules]]\nid = 'pass'\nregex = 'password=\"([^\"]+)\"'\n[[rules.required]]\nid = 'user'\n"
          "withinLines = 1\n[[rules]]\nid = 'user'\nregex = 'user=\"([^\"]+)\"'\nskipReport = true\n");
  t.write("data/a.txt", "user=\"alice\"\npassword=\"hunter22\"\n");
  const ProcessResult r = secrets({"-c", t.path("rules.toml"), "-f", "json", t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc.size(), 1u) << r.out;  // the skipReport rule is not reported alone
  EXPECT_EQ(doc[0]["RuleID"], "pass");
  EXPECT_EQ(doc[0]["Required"],
            json::parse(R"([{"RuleID": "user", "StartLine": 1, "StartColumn": 1, "Secret": "alice"}])"));
  const ProcessResult redacted = secrets({"-c", t.path("rules.toml"), "-f", "json", "--redact", t.path("data")});
  EXPECT_EQ(json::parse(redacted.out)[0]["Required"][0]["Secret"], "REDACTED");
  EXPECT_EQ(redacted.out.find("alice"), std::string::npos);
}

TEST(SecretsReport, config_warnings_are_printed_and_the_scan_goes_on) {
  TempTree t;
  t.write("rules.toml", "[[rules]]\nid = 'a'\nregex = 'aaa'\n[[rules]]\nid = 'a'\nregex = 'bbb'\n");
  t.write("data/x.txt", "aaa bbb\n");
  const ProcessResult r = secrets({"-c", t.path("rules.toml"), "-f", "json", t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("stealscan: warning: " + t.path("rules.toml") + ": rules[1] 'a': the id is used again: this "
                       "rule replaces " + t.path("rules.toml") + ": rules[0] 'a'"),
            std::string::npos)
      << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc.size(), 1u) << r.out;
  EXPECT_EQ(doc[0]["Secret"], "bbb");  // the later rule
}

TEST(SecretsReport, the_rule_file_in_use_and_the_baseline_are_not_reported) {
  TempTree t;
  // Each holds a token; a copy of the rule file elsewhere is reported. The
  // baseline is a report of another tree (its token is not one of data/'s findings).
  const std::string rules = "[extend]\nuseDefault = true\n# example: " + kGithub + "\n";
  t.write("data/.gitleaks.toml", rules);
  t.write("data/copy.toml", rules);
  t.write("other/x.txt", kGithub2 + "\n");
  const ProcessResult base = secrets({"-f", "json", "-o", t.path("data/baseline.json"), t.path("other")});
  ASSERT_EQ(base.status, 1) << base.err;
  const ProcessResult r = secrets({"-c", t.path("data/.gitleaks.toml"), "--baseline-path", t.path("data/baseline.json"),
                                   "-f", "json", t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc.size(), 1u) << r.out;
  EXPECT_EQ(doc[0]["File"], t.path("data/copy.toml"));
}

TEST(SecretsReport, with_follow_a_linked_file_is_reported_at_its_target_with_the_link_beside_it) {
  TempTree t;
  t.write("data/real.txt", "GH = \"" + kGithub + "\"\n");
  t.symlink("real.txt", "data/link.txt");
  const ProcessResult r = secrets({"-L", "-f", "json", t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc.size(), 2u) << r.out;  // the file itself, and through the link (gitleaks reports both)
  std::set<std::pair<std::string, std::string>> seen;
  for (const json& f : doc) seen.emplace(f["File"], f["SymlinkFile"]);
  EXPECT_EQ(seen, (std::set<std::pair<std::string, std::string>>{{t.path("data/real.txt"), ""},
                                                                {t.path("data/real.txt"), t.path("data/link.txt")}}));
  // SARIF names the link (gitleaks' uri); csv has it in its SymlinkFile column.
  const ProcessResult sarif = secrets({"-L", "-f", "sarif", t.path("data")});
  EXPECT_NE(sarif.out.find("link.txt"), std::string::npos) << sarif.out;
  const ProcessResult csv = secrets({"-L", "-f", "csv", t.path("data")});
  std::string columns(1, ',');  // built by append: g++ 12 -O3 warns falsely (-Wrestrict) on "," + std::string
  columns.append(t.path("data/real.txt")).append(",").append(t.path("data/link.txt")).append(",");
  EXPECT_NE(csv.out.find(columns), std::string::npos) << csv.out;
  // Without -L the link is not followed.
  const ProcessResult plain = secrets({"-f", "json", t.path("data")});
  EXPECT_EQ(json::parse(plain.out).size(), 1u) << plain.out;
}

// --list-rules prints the rules in use, a line each: id, family (the rule
// file's name), confidence, keywords; --min-confidence reports the rules at
// that level or above (default medium), a lower one still serving as another
// rule's required part.
TEST(SecretsReport, rules_are_listed_and_chosen_by_confidence) {
  TempTree t;
  t.write("rules/team.toml", R"toml(
[[rules]]
id = "sure"
regex = '''sure_[0-9]{6}'''
keywords = ["sure_"]
confidence = "high"
[[rules]]
id = "plain"
regex = '''plain_[0-9]{6}'''
keywords = ["plain_", "plain-"]
[[rules]]
id = "noisy"
regex = '''noisy_[0-9]{6}'''
confidence = "low"
[[rules]]
id = "pair"
regex = '''pair_[0-9]{6}'''
confidence = "high"
  [[rules.required]]
  id = "noisy"
)toml");
  t.write("data/a.txt", "sure_123456 plain_123456 noisy_123456\npair_123456\n");
  const std::string config = t.path("rules/team.toml");
  const ProcessResult listed = secrets({"--list-rules", "-c", config});
  EXPECT_EQ(listed.status, 0) << listed.err;
  // "noisy" is below medium: it serves "pair" as a part and is not listed.
  EXPECT_EQ(listed.out, "sure\tteam\thigh\tsure_\nplain\tteam\tmedium\tplain_,plain-\npair\tteam\thigh\t-\n");
  const auto ids = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args{"-f", "json", "-c", config};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(t.path("data"));
    std::multiset<std::string> out;
    for (const json& f : json::parse(secrets(args).out)) out.insert(f["RuleID"].get<std::string>());
    return out;
  };
  EXPECT_EQ(ids({}), (std::multiset<std::string>{"sure", "plain", "pair"}));
  EXPECT_EQ(ids({"--min-confidence", "high"}), (std::multiset<std::string>{"sure", "pair"}));
  EXPECT_EQ(ids({"--min-confidence", "low"}), (std::multiset<std::string>{"sure", "plain", "noisy", "pair"}));
  // --enable-rule keeps a rule whatever its confidence.
  EXPECT_EQ(ids({"--enable-rule", "noisy"}), (std::multiset<std::string>{"noisy"}));
  // The built-in rules name their files: families, and high for a provider's own prefix.
  const ProcessResult builtin = secrets({"--list-rules"});
  EXPECT_NE(builtin.out.find("github-pat\tgithub\thigh\tghp_\n"), std::string::npos) << builtin.out;
  EXPECT_NE(builtin.out.find("generic-secret\tgeneric\tmedium\t"), std::string::npos) << builtin.out;
  // A bad level is named, on the command line and in a rule file.
  const ProcessResult bad = secrets({"--min-confidence", "sure", t.path("data")});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("invalid --min-confidence 'sure': expected low, medium or high"), std::string::npos) << bad.err;
  t.write("rules/bad.toml", "[[rules]]\nid = 'x'\nregex = 'x'\nconfidence = 'certain'\n");
  const ProcessResult bad_rule = secrets({"-c", t.path("rules/bad.toml"), t.path("data")});
  EXPECT_EQ(bad_rule.status, 2);
  EXPECT_NE(bad_rule.err.find("'confidence' must be low, medium or high, got \"certain\""), std::string::npos)
      << bad_rule.err;
  // A global allowlist aimed at a rule left out by its level goes with it; one
  // naming no rule at all is still refused.
  t.write("rules/aimed.toml", "[[rules]]\nid = 'noisy'\nregex = 'noisy_[0-9]+'\nconfidence = 'low'\n"
                              "[[rules]]\nid = 'plain'\nregex = 'plain_[0-9]+'\n"
                              "[[allowlists]]\ntargetRules = ['noisy']\nregexes = ['never']\n");
  EXPECT_EQ(secrets({"-c", t.path("rules/aimed.toml"), t.path("data")}).status, 1);
  t.write("rules/unknown.toml", "[[rules]]\nid = 'plain'\nregex = 'plain_[0-9]+'\n"
                                "[[allowlists]]\ntargetRules = ['nope']\nregexes = ['never']\n");
  const ProcessResult unknown = secrets({"-c", t.path("rules/unknown.toml"), t.path("data")});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("'targetRules' names no rule: \"nope\""), std::string::npos) << unknown.err;
}

TEST(SecretsReport, gitleaks_options_do_what_gitleaks_does_with_them) {
  TempTree t;
  plant(t);  // github-pat in "dir one/a.py" line 2, aws-access-key-id in b.ini
  t.write("data/allowed.txt", "K = \"" + kGithub2 + "\"  # gitleaks:allow\n");
  // --report-format, --report-path, and the presentation options taken as they are.
  const ProcessResult r = secrets({"--report-format", "json", "--report-path", t.path("out.json"), "-v", "--no-banner",
                                   "--no-color", "--log-level", "info", t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
  std::ifstream written(t.path("out.json"));
  EXPECT_EQ(json::parse(written).size(), 2u);
  // --exit-code: the status for findings; none still give 0.
  EXPECT_EQ(secrets({"--exit-code", "3", t.path("data")}).status, 3);
  t.write("clean/a.txt", "nothing\n");
  EXPECT_EQ(secrets({"--exit-code", "3", t.path("clean")}).status, 0);
  // --enable-rule: that rule alone; an unknown one is named.
  const ProcessResult one = secrets({"-f", "json", "--enable-rule", "aws-access-key-id", t.path("data")});
  ASSERT_EQ(json::parse(one.out).size(), 1u) << one.out;
  EXPECT_EQ(json::parse(one.out)[0]["RuleID"], "aws-access-key-id");
  const ProcessResult unknown = secrets({"--enable-rule", "no-such-rule", t.path("data")});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("--enable-rule names no rule: \"no-such-rule\""), std::string::npos) << unknown.err;
  // --ignore-gitleaks-allow: the allowed line is reported too.
  EXPECT_EQ(json::parse(secrets({"-f", "json", "--ignore-gitleaks-allow", t.path("data")}).out).size(), 3u);
  // --gitleaks-ignore-path: that directory's .gitleaksignore.
  t.write("ignores/.gitleaksignore", t.path("data") + "/b.ini:aws-access-key-id:1\n");
  const ProcessResult ignored = secrets({"-f", "json", "--gitleaks-ignore-path", t.path("ignores"), t.path("data")});
  ASSERT_EQ(json::parse(ignored.out).size(), 1u) << ignored.out;
  EXPECT_EQ(json::parse(ignored.out)[0]["RuleID"], "github-pat");
  // --max-target-megabytes: gitleaks' 10^6-byte megabytes.
  t.write("big/a.txt", std::string(1'500'000, 'x') + "\n" + kAws + "\n");
  EXPECT_EQ(secrets({"--max-target-megabytes", "1", t.path("big")}).status, 0);
  EXPECT_EQ(secrets({"--max-target-megabytes", "2", t.path("big")}).status, 1);
  const ProcessResult bad = secrets({"--log-level", "loud", t.path("data")});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("invalid --log-level 'loud'"), std::string::npos) << bad.err;
}

TEST(SecretsReport, unknown_format_is_refused_naming_it) {
  const ProcessResult r = secrets({"--format", "xml", "."});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("'xml'"), std::string::npos) << r.err;
}

// ---- known findings --------------------------------------------------------

TEST(SecretsKnown, baseline_suppresses_the_findings_it_holds_and_reports_new_ones) {
  TempTree t;
  plant(t);
  const ProcessResult first = secrets({"--format", "json", "-o", t.path("baseline.json"), t.path("data")});
  ASSERT_EQ(first.status, 1) << first.err;
  const ProcessResult again = secrets({"--baseline", t.path("baseline.json"), "-f", "json", t.path("data")});
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(json::parse(again.out).size(), 0u);
  EXPECT_NE(again.err.find("2 more known"), std::string::npos) << again.err;

  // A new secret elsewhere, and the old one rotated on its line: both new.
  t.write("data/c.env", "K = \"" + kGithub + "\"\n");
  t.write("data/dir one/a.py", "import os\nGH = \"" + kGithub2 + "\"\n");
  const ProcessResult later = secrets({"-b", t.path("baseline.json"), "-f", "json", t.path("data")});
  EXPECT_EQ(later.status, 1) << later.err;
  std::set<std::string> files;
  for (const json& f : json::parse(later.out)) files.insert(f["File"].get<std::string>() + "=" + f["Secret"].get<std::string>());
  EXPECT_EQ(files, (std::set<std::string>{t.path("data") + "/c.env=" + kGithub,
                                          t.path("data") + "/dir one/a.py=" + kGithub2}));
}

TEST(SecretsKnown, redacted_baseline_still_matches) {
  TempTree t;
  plant(t);
  ASSERT_EQ(secrets({"--redact", "-f", "json", "-o", t.path("baseline.json"), t.path("data")}).status, 1);
  const ProcessResult r = secrets({"--baseline", t.path("baseline.json"), t.path("data")});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

TEST(SecretsKnown, bad_or_missing_baseline_is_an_error_naming_it) {
  TempTree t;
  plant(t);
  t.write("not-json", "{");
  t.write("no-line.json", "[{\"RuleID\": \"x\", \"File\": \"f\", \"StartLine\": \"one\"}]");
  ProcessResult r = secrets({"--baseline", t.path("not-json"), t.path("data")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(t.path("not-json") + ": not a JSON report"), std::string::npos) << r.err;
  r = secrets({"--baseline", t.path("no-line.json"), t.path("data")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("[0]: 'StartLine' must be a number"), std::string::npos) << r.err;
  // A number nlohmann/json cannot hold is its out_of_range, not a parse_error
  // (found by fuzz_known_findings): it used to escape and abort the program.
  t.write("huge.json", "[{\"RuleID\": \"x\", \"File\": \"f\", \"StartLine\": 1e999}]");
  r = secrets({"--baseline", t.path("huge.json"), t.path("data")});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find(t.path("huge.json") + ": not a JSON report"), std::string::npos) << r.err;
  r = secrets({"--baseline", t.path("missing.json"), t.path("data")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("missing.json: cannot read the baseline"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << "no scan after a bad baseline";
}

TEST(SecretsKnown, fingerprint_file_suppresses_listed_findings_only) {
  TempTree t;
  plant(t);
  t.write("fp.txt", "# accepted\n\n  " + t.path("data") + "/b.ini:aws-access-key-id:1  \n");
  const ProcessResult r = secrets({"--fingerprints", t.path("fp.txt"), "-f", "csv", t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.out.find("aws-access-key-id"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("github-pat"), std::string::npos) << r.out;
}

TEST(SecretsKnown, gitleaksignore_and_stealscanignore_at_the_root_are_read) {
  TempTree t;
  plant(t);
  t.write("data/skipped.txt", "K = \"" + kGithub + "\"\n");
  // The fingerprint as the report prints it with the root "." (./b.ini), the
  // walker's glob beside it still works, and a .gitleaksignore line.
  t.write("data/.stealscanignore", "skipped.txt\nb.ini:aws-access-key-id:1\n");
  t.write("data/.gitleaksignore", "dir one\\a.py:github-pat:2\n");  // written on Windows: read as dir one/a.py
  const ProcessResult r = run_process({"/bin/sh", "-c", "cd '" + t.path("data") + "' && '" + kBin +
                                                            "' secrets --no-progress --no-cache -f csv ."});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("0 findings (2 more known"), std::string::npos) << r.err;
}

TEST(SecretsKnown, a_git_fingerprint_does_not_leave_out_a_finding_outside_git) {
  TempTree t;
  // A plain scan's findings have no commit: a fingerprint with one, in either
  // order, is not theirs. (That both orders match a git finding is
  // e2e_git_test's a_baseline_or_fingerprint_leaves_out_known_git_findings.)
  t.write("data/a.env", "K = \"" + kGithub + "\"\n");
  const std::string commit(40, 'a');
  t.write("fp.txt", commit + ":" + t.path("data") + "/a.env:github-pat:1\n" + t.path("data") + "/a.env:" + commit +
                        ":github-pat:1\n");
  const ProcessResult r = secrets({"--fingerprints", t.path("fp.txt"), "-f", "csv", t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
}

// ---- decoding --------------------------------------------------------------

std::string base64(std::string_view bytes) {
  std::string out;
  append_base64(out, bytes);
  return out;
}

// "file:rule:line:column-endcolumn=secret [tags]" for each finding of a JSON report.
std::vector<std::string> brief(const ProcessResult& r, const std::string& root) {
  std::vector<std::string> out;
  for (const json& f : json::parse(r.out)) {
    std::string file = f["File"];
    if (file.rfind(root + "/", 0) == 0) file = file.substr(root.size() + 1);
    std::string tags;
    for (const json& t : f["Tags"]) {
      if (!tags.empty()) tags.push_back(' ');
      tags.append(t.get<std::string>());
    }
    out.push_back(file + ":" + f["RuleID"].get<std::string>() + ":" + std::to_string(f["StartLine"].get<long>()) +
                  ":" + std::to_string(f["StartColumn"].get<long>()) + "-" +
                  std::to_string(f["EndColumn"].get<long>()) + "=" + f["Secret"].get<std::string>() + " [" + tags +
                  "]");
  }
  return out;
}

TEST(SecretsDecode, a_secret_in_a_base64_blob_is_found_at_the_blob_and_tagged) {
  TempTree t;
  const std::string blob = base64("ghp = " + kGithub + "\n");
  t.write("data/secret.yaml", "kind: Secret\ndata:\n  value: " + blob + "\n");
  const ProcessResult r = secrets({"-f", "json", t.path("data")});
  ASSERT_EQ(r.status, 1) << r.err;
  const std::string where = "secret.yaml:github-pat:3:10-" + std::to_string(9 + blob.size()) + "=";
  EXPECT_EQ(brief(r, t.path("data")),
            std::vector<std::string>{where + kGithub + " [github token decoded:base64 decode-depth:1]"});
}

TEST(SecretsDecode, base64_inside_base64_is_found_to_the_decode_depth_only) {
  TempTree t;
  const std::string inner = base64("x = " + kGithub + "\n");
  const std::string outer = base64("{\"note\": \"" + inner + "\"}");
  t.write("data/twice.json", "{\"blob\": \"" + outer + "\"}\n");
  EXPECT_EQ(brief(secrets({"-f", "json", t.path("data")}), t.path("data")).size(), 1u);
  EXPECT_TRUE(brief(secrets({"-f", "json", "--decode-depth", "1", t.path("data")}), t.path("data")).empty());
  t.write("data/once.txt", base64("x = " + kGithub) + "\n");
  const ProcessResult none = secrets({"-f", "json", "--decode-depth", "0", t.path("data")});
  EXPECT_EQ(none.status, 0) << none.out;
  EXPECT_EQ(secrets({"--decode-depth", "9", t.path("data")}).status, 2);
}

TEST(SecretsDecode, inline_allow_on_the_blob_line_allows_a_decoded_secret) {
  TempTree t;
  t.write("data/a.txt", "v: " + base64("x = " + kGithub) + " # stealscan:allow\n");
  const ProcessResult r = secrets({"-f", "json", t.path("data")});
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST(SecretsDecode, utf16_files_are_read_as_text_in_either_byte_order) {
  TempTree t;
  const std::string text = "line one\r\nGH = " + kGithub + "\r\n";
  std::string le = "\xff\xfe", be = "\xfe\xff", bare;
  for (const char c : text) {
    le += std::string{c, '\0'};
    be += std::string{'\0', c};
    bare += std::string{c, '\0'};
  }
  t.write("data/le.ps1", le);
  t.write("data/be.txt", be);
  t.write("data/nobom.reg", bare);
  const ProcessResult r = secrets({"-f", "json", t.path("data")});
  ASSERT_EQ(r.status, 1) << r.err;
  const std::string tail = ":github-pat:2:6-45=" + kGithub + " [github token]";
  EXPECT_EQ(brief(r, t.path("data")),
            (std::vector<std::string>{"be.txt" + tail, "le.ps1" + tail, "nobom.reg" + tail}));
}

// ---- start-up -------------------------------------------------------------

TEST(SecretsStartup, keyword_database_is_cached_between_runs_unless_no_cache) {
  TempTree t;
  plant(t);
  const std::vector<std::string> env{"STEALSCAN_CACHE_DIR=" + t.path("cache")};
  const std::vector<std::string> scan{kBin, "secrets", "--no-progress", "-f", "csv", t.path("data")};
  const ProcessResult cold = run_process(scan, env);
  ASSERT_EQ(cold.status, 1) << cold.err;
  std::vector<std::string> entries;
  for (const auto& e : std::filesystem::directory_iterator(t.path("cache"))) entries.push_back(e.path().filename());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].rfind("keywords-", 0), 0u) << entries[0];
  const ProcessResult warm = run_process(scan, env);
  EXPECT_EQ(warm.status, 1) << warm.err;
  EXPECT_EQ(warm.out, cold.out);
  // A corrupt entry: the same report, compiled afresh.
  std::filesystem::resize_file(t.path("cache/" + entries[0]), 100);
  EXPECT_EQ(run_process(scan, env).out, cold.out);

  std::vector<std::string> no_cache = scan;
  no_cache.insert(no_cache.begin() + 2, "--no-cache");
  const std::vector<std::string> elsewhere{"STEALSCAN_CACHE_DIR=" + t.path("other")};
  EXPECT_EQ(run_process(no_cache, elsewhere).out, cold.out);
  EXPECT_FALSE(std::filesystem::exists(t.path("other")));
}

}  // namespace
}  // namespace e2e_secrets_report_test
}  // namespace stealscan::test

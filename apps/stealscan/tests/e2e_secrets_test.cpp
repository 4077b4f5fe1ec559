// End to end: `stealscan secrets` on generated trees. Planted secrets are found
// with their exact rule, file, line and column, near misses are not; each rule
// feature (keywords, entropy, secretGroup, path, allowlists with every
// regexTarget, paths, stopwords, AND, global targetRules, inline allow) is
// checked through the binary; bad configs, --redact, --output, the JSON report
// read back, and the exit statuses 0 / 1 / 2.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/mini_json.hpp"
#include "support/run_process.hpp"
#include "support/secret_samples.hpp"
#include "support/temp_tree.hpp"
#include "support/unprivileged.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_secrets_test {
namespace {

const std::string kBin = STEALSCAN_BIN;


ProcessResult secrets(const std::vector<std::string>& args) {
  std::vector<std::string> argv{kBin, "secrets", "--no-progress", "--no-cache", "-j", "3"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

// The JSON report of a run, read back.
std::vector<Json> findings(const ProcessResult& r) {
  const Json doc = parse_json(r.out);
  EXPECT_EQ(doc.kind, Json::Kind::array) << r.out;
  return doc.items;
}

// "file:rule:line:column=secret" for each finding, in report order.
std::vector<std::string> summary(const ProcessResult& r, const std::string& root) {
  std::vector<std::string> out;
  for (const Json& f : findings(r)) {
    std::string file = f["File"].str;
    if (file.rfind(root + "/", 0) == 0) file = file.substr(root.size() + 1);
    out.push_back(file + ":" + f["RuleID"].str + ":" + std::to_string(static_cast<long>(f["StartLine"].number)) +
                  ":" + std::to_string(static_cast<long>(f["StartColumn"].number)) + "=" + f["Secret"].str);
  }
  return out;
}

// Runs `config` (a rules file written into the tree) over the tree's data/.
std::vector<std::string> run_rules(const TempTree& t, const std::string& config,
                                   const std::vector<std::string>& more = {}) {
  t.write("rules.toml", config);
  std::vector<std::string> args = {"--config", t.path("rules.toml"), "--format", "json"};
  args.insert(args.end(), more.begin(), more.end());
  args.push_back(t.path("data"));
  const ProcessResult r = secrets(args);
  EXPECT_TRUE(r.status == 0 || r.status == 1) << r.err;
  return summary(r, t.path("data"));
}

using Lines = std::vector<std::string>;

TEST(Secrets, planted_secrets_are_found_with_exact_rule_file_line_and_column) {
  TempTree t;
  t.write("data/app/config.py", "import os\n\nGITHUB = \"" + kGithub + "\"\n");
  t.write("data/deploy/.env.sample", "nothing\n");
  t.write("data/deploy/aws.ini", kAws + "\n");
  t.write("data/notes.md", "a private key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + std::string(70, 'b') +
                               "\n-----END OPENSSH PRIVATE KEY-----\n");
  const ProcessResult r = secrets({"--format", "json", t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(summary(r, t.path("data")),
            (Lines{"app/config.py:github-pat:3:11=" + kGithub, "deploy/aws.ini:aws-access-key-id:1:1=" + kAws,
                   "notes.md:private-key:2:1=-----BEGIN OPENSSH PRIVATE KEY-----\n" + std::string(70, 'b') +
                       "\n-----END OPENSSH PRIVATE KEY-----"}));
  const std::vector<Json> f = findings(r);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0]["EndLine"].number, 3);
  EXPECT_EQ(f[0]["EndColumn"].number, 11 + 40 - 1);
  EXPECT_EQ(f[0]["Match"].str, kGithub);
  EXPECT_EQ(f[0]["Description"].str, "GitHub personal access token (classic)");
  EXPECT_EQ(f[0]["Fingerprint"].str, t.path("data") + "/app/config.py:github-pat:3");
  EXPECT_EQ(f[0]["Tags"].items.size(), 2u);
  EXPECT_GT(f[0]["Entropy"].number, 4.0);
  EXPECT_EQ(f[2]["StartLine"].number, 2);
  EXPECT_EQ(f[2]["EndLine"].number, 4);
  EXPECT_EQ(f[2]["EndColumn"].number, 33);  // the last byte of -----END ... KEY-----
}

TEST(Secrets, near_misses_are_not_found_and_exit_0) {
  TempTree t;
  t.write("data/a.txt",
          kGithub.substr(0, 39) + "\n" + kAws.substr(0, 19) + "\nghp_ short\n-----BEGIN PUBLIC KEY-----\n");
  const ProcessResult r = secrets({"--format", "json", t.path("data")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "[]\n");
}

TEST(Secrets, a_rule_reports_only_matches_on_a_line_holding_one_of_its_keywords_in_either_case) {
  TempTree t;
  t.write("data/with.txt", "MaGiC tok_abc\ntok_def\n");
  t.write("data/without.txt", "tok_abc\n");
  const std::string rule = "[[rules]]\nid = 'tok'\nregex = 'tok_[a-z]+'\nkeywords = ['magic']\n";
  EXPECT_EQ(run_rules(t, rule), (Lines{"with.txt:tok:1:7=tok_abc"}));
  EXPECT_EQ(run_rules(t, rule, {"--keyword-scope", "line"}), (Lines{"with.txt:tok:1:7=tok_abc"}));
  // gitleaks' semantics on request: a keyword anywhere in the file runs the rule over all of it.
  EXPECT_EQ(run_rules(t, rule, {"--keyword-scope", "file"}),
            (Lines{"with.txt:tok:1:7=tok_abc", "with.txt:tok:2:1=tok_def"}));
  // Without keywords the rule runs on every line of every file.
  EXPECT_EQ(run_rules(t, "[[rules]]\nid = 'tok'\nregex = 'tok_[a-z]+'\n"),
            (Lines{"with.txt:tok:1:7=tok_abc", "with.txt:tok:2:1=tok_def", "without.txt:tok:1:1=tok_abc"}));
}

TEST(Secrets, a_bad_keyword_scope_is_an_error_naming_it) {
  TempTree t;
  t.write("data/a.txt", "x\n");
  const ProcessResult r = secrets({"--keyword-scope", "lines", t.path("data")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("invalid --keyword-scope 'lines': expected line or file"), std::string::npos) << r.err;
}

TEST(Secrets, a_secret_below_the_rules_entropy_is_not_reported) {
  TempTree t;
  t.write("data/a.txt", "val=aaaaaaaaaaaa\nval=abcdefgh1234\n");
  EXPECT_EQ(run_rules(t, "[[rules]]\nid = 'v'\nregex = 'val=(\\w+)'\nentropy = 3.0\n"),
            (Lines{"a.txt:v:2:1=abcdefgh1234"}));
}

TEST(Secrets, the_secret_is_the_secret_group_else_the_first_group_else_the_match) {
  TempTree t;
  t.write("data/a.txt", "user=alice\n");
  EXPECT_EQ(run_rules(t, "[[rules]]\nid = 'g'\nregex = '(user)=(\\w+)'\nsecretGroup = 2\n"),
            (Lines{"a.txt:g:1:1=alice"}));
  EXPECT_EQ(run_rules(t, "[[rules]]\nid = 'g'\nregex = '(user)=(\\w+)'\n"), (Lines{"a.txt:g:1:1=user"}));
  EXPECT_EQ(run_rules(t, "[[rules]]\nid = 'g'\nregex = 'user=\\w+'\n"), (Lines{"a.txt:g:1:1=user=alice"}));
}

TEST(Secrets, a_path_regex_limits_a_rule_and_a_path_only_rule_reports_the_file) {
  TempTree t;
  t.write("data/prod.env", "pw=hunter2\n");
  t.write("data/readme.txt", "pw=hunter2\n");
  t.write("data/keys/server.pem", "whatever\n");
  EXPECT_EQ(run_rules(t, "[[rules]]\nid = 'pw'\nregex = 'pw=(\\w+)'\npath = '\\.env$'\n"),
            (Lines{"prod.env:pw:1:1=hunter2"}));
  t.write("rules.toml", "[[rules]]\nid = 'pem-file'\npath = '\\.pem$'\n");
  const ProcessResult r = secrets({"--config", t.path("rules.toml"), "--format", "json", t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
  const std::vector<Json> f = findings(r);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]["RuleID"].str, "pem-file");
  EXPECT_EQ(f[0]["Match"].str, "file detected: " + t.path("data") + "/keys/server.pem");
  EXPECT_EQ(f[0]["StartLine"].number, 0);
}

const std::string kKeyRule = "[[rules]]\nid = 'k'\nregex = 'key=(\\w+)'\n";

TEST(Secrets, allowlist_regexes_apply_to_the_secret_the_match_or_the_line) {
  TempTree t;
  t.write("data/a.txt", "key=testone\nkey=realone\nkey=skipme # fixture\n");
  EXPECT_EQ(run_rules(t, kKeyRule + "[[rules.allowlists]]\nregexes = ['^test']\n"),
            (Lines{"a.txt:k:2:1=realone", "a.txt:k:3:1=skipme"}));
  EXPECT_EQ(run_rules(t, kKeyRule + "[[rules.allowlists]]\nregexTarget = 'match'\nregexes = ['^key=real']\n"),
            (Lines{"a.txt:k:1:1=testone", "a.txt:k:3:1=skipme"}));
  // A secret-target regex anchored on "key=" never matches the secret...
  EXPECT_EQ(run_rules(t, kKeyRule + "[[rules.allowlists]]\nregexes = ['^key=real']\n").size(), 3u);
  // ...and the line target sees the comment after the match.
  EXPECT_EQ(run_rules(t, kKeyRule + "[rules.allowlist]\nregexTarget = 'line'\nregexes = ['#\\s*fixture']\n"),
            (Lines{"a.txt:k:1:1=testone", "a.txt:k:2:1=realone"}));
}

TEST(Secrets, allowlist_paths_and_stopwords_drop_findings) {
  TempTree t;
  t.write("data/src/a.txt", "key=realone\nkey=xxDUMMYxx\n");
  t.write("data/fixtures/b.txt", "key=realtwo\n");
  EXPECT_EQ(run_rules(t, kKeyRule + "[[rules.allowlists]]\npaths = ['/fixtures/']\n[[rules.allowlists]]\n"
                                    "stopwords = ['dummy']\n"),
            (Lines{"src/a.txt:k:1:1=realone"}));
}

TEST(Secrets, condition_and_needs_every_check_of_the_allowlist) {
  TempTree t;
  t.write("data/keep.txt", "key=abcone\nkey=xyzone\n");
  t.write("data/other.txt", "key=abctwo\n");
  EXPECT_EQ(run_rules(t, kKeyRule + "[[rules.allowlists]]\ncondition = 'AND'\nregexes = ['^abc']\n"
                                    "paths = ['keep\\.txt$']\n"),
            (Lines{"keep.txt:k:2:1=xyzone", "other.txt:k:1:1=abctwo"}));
  // The same checks with OR drop every finding that passes either.
  EXPECT_EQ(run_rules(t, kKeyRule + "[[rules.allowlists]]\nregexes = ['^abc']\npaths = ['keep\\.txt$']\n"),
            Lines{});
}

TEST(Secrets, a_global_allowlist_applies_to_its_target_rules_or_to_all) {
  TempTree t;
  t.write("data/a.txt", "key=value1\n");
  const std::string rules = kKeyRule + "[[rules]]\nid = 'k2'\nregex = 'key=(\\w+)'\n";
  EXPECT_EQ(run_rules(t, rules + "[[allowlists]]\ntargetRules = ['k']\nregexes = ['value']\n"),
            (Lines{"a.txt:k2:1:1=value1"}));
  EXPECT_EQ(run_rules(t, rules + "[allowlist]\nregexes = ['value']\n"), Lines{});
}

TEST(Secrets, a_line_with_an_inline_allow_comment_is_not_reported) {
  TempTree t;
  t.write("data/a.txt", "key=one # stealscan:allow\nkey=two // gitleaks:allow\nkey=three\n");
  EXPECT_EQ(run_rules(t, kKeyRule), (Lines{"a.txt:k:3:1=three"}));
}

TEST(Secrets, a_bad_config_exits_2_naming_the_rule_and_the_field) {
  TempTree t;
  t.write("data/a.txt", kGithub + "\n");
  t.write("rules.toml",
          "[[rules]]\nid = 'ok'\nregex = 'x'\n[[rules]]\nid = 'aws-key'\nregex = 'y'\nentropy = 'high'\n");
  ProcessResult r = secrets({"--config", t.path("rules.toml"), t.path("data")});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(t.path("rules.toml") + ": rules[1] 'aws-key': 'entropy' must be a number, got \"high\""),
            std::string::npos)
      << r.err;
  t.write("rules.toml", "[[rules]]\nid = 'broken'\nregex = '(unclosed'\n");
  r = secrets({"--config", t.path("rules.toml"), t.path("data")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("rules[0] 'broken': 'regex' is not a valid regular expression"), std::string::npos) << r.err;
  r = secrets({"--config", t.path("missing.toml"), t.path("data")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("missing.toml: cannot read the config file"), std::string::npos) << r.err;
}

TEST(Secrets, redact_hides_the_secret_in_the_secret_and_the_match) {
  TempTree t;
  t.write("data/a.txt", "token: " + kGithub + "\n");
  t.write("rules.toml", "[[rules]]\nid = 't'\nregex = 'token: (\\w+)'\n");
  for (const std::string format : {"json", "text"}) {
    const ProcessResult r =
        secrets({"--redact", "--format", format, "--config", t.path("rules.toml"), t.path("data")});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.out.find(kGithub), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("token: REDACTED"), std::string::npos) << r.out;
  }
  t.write("data/a.txt", kGithub + "\n");
  const ProcessResult r = secrets({"--redact", "--format", "json", t.path("data")});
  EXPECT_EQ(findings(r).at(0)["Secret"].str, "REDACTED");
  EXPECT_EQ(findings(r).at(0)["Match"].str, "REDACTED");
}

TEST(Secrets, the_text_report_lists_each_finding_as_a_block) {
  TempTree t;
  t.write("data/a.txt", "x\n  " + kAws + "\n");
  const ProcessResult r = secrets({t.path("data")});
  EXPECT_EQ(r.status, 1);
  const std::string file = t.path("data") + "/a.txt";
  EXPECT_EQ(r.out, "Finding:      " + kAws + "\nSecret:       " + kAws +
                       "\nRuleID:       aws-access-key-id\nDescription:  AWS access key ID\nEntropy:      3.8841836"
                       "\nTags:         [aws key]\nFile:         " +
                       file + "\nLine:         2\nColumn:       3\nFingerprint:  " + file + ":aws-access-key-id:2\n\n");
  EXPECT_NE(r.err.find("1 finding in 1 file"), std::string::npos) << r.err;
}

TEST(Secrets, output_writes_the_report_to_a_file) {
  TempTree t;
  t.write("data/a.txt", kGithub + "\n");
  const ProcessResult r = secrets({"--format", "json", "--output", t.path("report.json"), t.path("data")});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  std::ifstream in(t.path("report.json"));
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_EQ(parse_json(text.str()).items.size(), 1u);
  EXPECT_EQ(secrets({"--output", t.path("no/such/dir/r.json"), t.path("data")}).status, 2);
}

TEST(Secrets, exit_status_is_0_for_none_1_for_findings_2_for_errors) {
  TempTree t;
  t.write("clean/a.txt", "nothing to see\n");
  t.write("dirty/a.txt", kGithub + "\n");
  EXPECT_EQ(secrets({t.path("clean")}).status, 0);
  EXPECT_EQ(secrets({t.path("dirty")}).status, 1);
  EXPECT_EQ(secrets({t.path("missing")}).status, 2);
  EXPECT_EQ(secrets({"--format", "yaml", t.path("clean")}).status, 2);
  EXPECT_EQ(secrets({"--bogus", t.path("clean")}).status, 2);
  const ProcessResult help = secrets({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("Usage: stealscan secrets"), std::string::npos);
}

TEST(Secrets, an_unreadable_file_exits_2_naming_it_and_the_others_are_still_reported) {
  const Unprivileged user(kBin);
  if (!user.possible())
    GTEST_SKIP() << "running as root without /usr/bin/setpriv: no way to make a file unreadable to the scan";
  TempTree t;
  t.write("data/ok.txt", kGithub + "\n");
  t.write("data/locked.txt", kGithub + "\n");
  t.write("data/dir/inside.txt", kGithub + "\n");
  ::chmod(t.path("data/locked.txt").c_str(), 0);
  ::chmod(t.path("data/dir").c_str(), 0);
  // LeakSanitizer cannot run where ptrace is restricted; leaks are checked by the other tests.
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string env = std::string("ASAN_OPTIONS=") + (asan != nullptr ? asan : "") + ":detect_leaks=0";
  const ProcessResult r = run_process(
      user.argv({user.exe(), "secrets", "--no-progress", "--no-cache", "-j", "3", "--format", "json", t.path("data")}),
      {env});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(summary(r, t.path("data")), (Lines{"ok.txt:github-pat:1:1=" + kGithub}));
  EXPECT_NE(r.err.find("stealscan: " + t.path("data/locked.txt") + ": Permission denied"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("stealscan: " + t.path("data/dir") + ": Permission denied"), std::string::npos) << r.err;
}

// `stealscan secrets` runs stealscan-secrets from its own directory (the
// search program does not load the secret scanner's libraries); without it
// there, a clear error and status 2.
TEST(Secrets, stealscan_secrets_runs_the_program_beside_it_or_says_it_is_missing) {
  TempTree t;
  t.write("data/a.txt", kGithub + "\n");
  const ProcessResult through = run_process({kBin, "secrets", "--no-progress", "--no-cache", t.path("data")});
  const std::string direct_bin = kBin.substr(0, kBin.rfind('/') + 1) + "stealscan-secrets";
  const ProcessResult direct = run_process({direct_bin, "--no-progress", "--no-cache", t.path("data")});
  EXPECT_EQ(through.status, 1) << through.err;  // a finding
  EXPECT_EQ(through.out, direct.out);
  EXPECT_EQ(direct.status, 1) << direct.err;
  const std::string alone = t.path("alone/stealscan");
  t.write("alone/.keep", "");
  std::filesystem::copy_file(kBin, alone);
  ::chmod(alone.c_str(), 0755);
  const ProcessResult missing = run_process({alone, "secrets", "--list-rules"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("stealscan: cannot run " + t.path("alone/stealscan-secrets") + ": No such file or directory"),
            std::string::npos)
      << missing.err;
}

TEST(Secrets, a_stealscan_toml_at_the_root_is_used_and_may_extend_the_defaults) {
  TempTree t;
  t.write("data/a.txt", "key=value1\n" + kGithub + "\n");
  t.write("data/.stealscan.toml", kKeyRule);
  EXPECT_EQ(summary(secrets({"--format", "json", t.path("data")}), t.path("data")), (Lines{"a.txt:k:1:1=value1"}));
  t.write("data/.stealscan.toml", "[extend]\nuseDefault = true\n" + kKeyRule);
  EXPECT_EQ(summary(secrets({"--format", "json", t.path("data")}), t.path("data")),
            (Lines{"a.txt:k:1:1=value1", "a.txt:github-pat:2:1=" + kGithub}));
  // --config wins over the file.
  t.write("rules.toml", "[[rules]]\nid = 'v'\nregex = 'value1'\n");
  EXPECT_EQ(summary(secrets({"--format", "json", "--config", t.path("rules.toml"), t.path("data")}), t.path("data")),
            (Lines{"a.txt:v:1:5=value1"}));
}

TEST(Secrets, binary_and_large_files_are_skipped_unless_asked) {
  TempTree t;
  t.write("data/bin.dat", std::string("\0\0\0", 3) + kGithub + "\n");
  t.write("data/big.txt", std::string(2000, 'x') + "\n" + kGithub + "\n");
  EXPECT_EQ(summary(secrets({"--format", "json", "--max-filesize", "1K", t.path("data")}), t.path("data")), Lines{});
  EXPECT_EQ(summary(secrets({"--format", "json", "-a", t.path("data")}), t.path("data")),
            (Lines{"big.txt:github-pat:2:1=" + kGithub, "bin.dat:github-pat:1:4=" + kGithub}));
}

TEST(Secrets, the_report_is_the_same_whatever_the_number_of_threads) {
  TempTree t;
  for (int d = 0; d < 6; ++d)
    for (int f = 0; f < 20; ++f)
      t.write("data/d" + std::to_string(d) + "/f" + std::to_string(f) + ".txt",
              "line\n" + std::string(static_cast<std::size_t>(f), ' ') + kGithub + "\n" + kAws + "\n");
  const std::vector<std::string> base{kBin, "secrets", "--no-progress", "--no-cache", "--format", "json"};
  auto with = [&](const std::string& j) {
    std::vector<std::string> argv = base;
    argv.insert(argv.end(), {"-j", j, t.path("data")});
    return run_process(argv).out;
  };
  const std::string one = with("1");
  EXPECT_EQ(findings(ProcessResult{1, one, "", 0}).size(), 240u);
  EXPECT_EQ(with("4"), one);
}

}  // namespace
}  // namespace e2e_secrets_test
}  // namespace stealscan::test

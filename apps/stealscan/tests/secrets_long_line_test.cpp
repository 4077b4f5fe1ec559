// Lines holding many findings (src/secrets/README.md, "Long lines"): every
// finding of a long line is reported at its own line and column; an inline
// allow anywhere on a line drops that line's findings only, also for a match
// that spans lines; an allowlist whose regex looks at the line is decided per
// line for each candidate, and apart from the other allowlists. (That this
// costs time linear in the line is a benchmark's business:
// apps/stealscan/bench/secrets_long_line.sh.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "secrets/detect/detector.hpp"
#include "secrets/rules/config_loader.hpp"
#include "support/detector_run.hpp"

namespace stealscan::secrets {
// Named after the file: test binaries compile several files as one unit.
namespace secrets_long_line_test {
namespace {

// The findings of the rules in `toml` over `text`. A finding points at its
// rule, which lives in the Detector: the Detector lives as long as they do.
struct Scan {
  Detector detector;
  std::vector<Finding> findings;
  Scan(const std::string& toml, const std::string& text) : detector(rules_from(toml), options()) {
    Detector::Scratch s(detector);
    detector.scan("f.txt", text, s, findings);
  }
  static DetectorOptions options() {
    DetectorOptions o;
    o.decode_depth = 0;
    return o;
  }
};

std::vector<Finding> scan(const std::string& toml, const std::string& text) {
  // Copies whose rule pointers are not used after the Detector goes (places()).
  return Scan(toml, text).findings;
}

const std::string kRule = R"(
[[rules]]
id = "tok"
regex = '''tok_[a-z0-9]{8}'''
keywords = ["tok_"]
)";

// Token `i`: "tok_" and eight characters that name i.
std::string tok(std::size_t i) {
  std::string s = "tok_";
  for (int d = 0; d < 8; ++d, i /= 36) s += "0123456789abcdefghijklmnopqrstuvwxyz"[i % 36];
  return s;
}

// `n` tokens from `first`, a space after each.
std::string tokens(std::size_t first, std::size_t n) {
  std::string s;
  for (std::size_t i = first; i < first + n; ++i) s += tok(i) + " ";
  return s;
}

// "line:column=secret" per finding.
std::vector<std::string> places(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const Finding& f : fs)
    out.push_back(std::to_string(f.start_line) + ":" + std::to_string(f.start_column) + "=" + f.secret);
  return out;
}

std::vector<std::string> expected(std::uint64_t line, std::size_t first, std::size_t n, std::size_t column = 1) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(std::to_string(line) + ":" + std::to_string(column + i * 13) + "=" + tok(first + i));
  return out;
}

TEST(SecretsLongLine, every_finding_on_a_long_line_is_reported_at_its_own_column) {
  const std::vector<Finding> got = scan(kRule, tokens(0, 3000) + "\n" + tokens(3000, 3) + "\n");
  std::vector<std::string> want = expected(1, 0, 3000);
  const std::vector<std::string> second = expected(2, 3000, 3);
  want.insert(want.end(), second.begin(), second.end());
  EXPECT_EQ(places(got), want);
  for (const Finding& f : got) EXPECT_EQ(f.end_column, f.start_column + 11);
}

TEST(SecretsLongLine, an_inline_allow_anywhere_on_a_line_drops_that_lines_findings_only) {
  const std::string text = tokens(0, 500) + "# gitleaks:allow\n" +  // line 1: allowed at its end
                           tokens(500, 500) + "\n" +                 // line 2
                           "stealscan:allow " + tokens(1000, 500) + "\n";  // line 3: at its start
  EXPECT_EQ(places(scan(kRule, text)), expected(2, 500, 500));

  // A match spanning lines is dropped if any of its lines holds an allow.
  const std::string block = kRule + R"(
[[rules]]
id = "block"
regex = '''BEGIN[^#]*?END'''
keywords = ["begin"]
)";
  const std::string spans = "BEGIN x\ny END gitleaks:allow\n"  // allowed on its last line
                            "BEGIN stealscan:allow\nz END\n"      // on its first
                            "BEGIN a\nb END\n";                   // reported
  const Scan run(block, spans);
  const std::vector<Finding>& got = run.findings;
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].rule->id, "block");
  EXPECT_EQ(got[0].start_line, 5U);
  EXPECT_EQ(got[0].end_line, 6U);
}

TEST(SecretsLongLine, a_line_allowlist_is_decided_per_line_and_apart_from_the_others) {
  const std::string toml = kRule + R"(
[[allowlists]]
regexTarget = "line"
regexes = ['''keep-out''']

[[allowlists]]
condition = "AND"
regexTarget = "line"
regexes = ['''zone-b''']
stopwords = ["tok_0"]
)";
  // Line 1: keep-out, all allowed. Line 2: nothing, all reported. Line 3:
  // zone-b, and only the tokens holding "tok_0" (the AND's stopword) are
  // allowed. Line 4: keep-out at its end.
  const std::string text = tokens(0, 400) + "keep-out\n" + tokens(400, 400) + "\n" + "zone-b " + tokens(36 * 3, 72) +
                           "\n" + tokens(800, 400) + "keep-out\n";
  std::vector<std::string> want = expected(2, 400, 400);
  for (std::size_t i = 0; i < 72; ++i)
    if (tok(36 * 3 + i).rfind("tok_0", 0) != 0)
      want.push_back("3:" + std::to_string(8 + i * 13) + "=" + tok(36 * 3 + i));
  EXPECT_EQ(places(scan(toml, text)), want);
  EXPECT_GT(want.size(), 400U + 10U);  // line 3 has both kinds
  EXPECT_LT(want.size(), 400U + 72U);
}

}  // namespace
}  // namespace secrets_long_line_test
}  // namespace stealscan::secrets

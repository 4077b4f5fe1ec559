// fuzz_known_findings.cpp: the files that say which findings are already
// known (secrets/report/suppressions.hpp), from any bytes: the input read as
// a baseline report (JSON, ours or gitleaks'), and as a fingerprint file
// (.gitleaksignore's format, which a scanned repository may hold), then asked
// about findings made from its own lines. Also a git config file
// (walk/git_config.hpp: core.excludesFile), which the walk reads from the
// scanned repository's .git/config.
//
// Checks: a bad baseline is a ConfigError and nothing else; no crash, no read
// outside the input (ASan); and a fingerprint file suppresses every finding
// whose fingerprint is one of its lines.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "secrets/report/suppressions.hpp"
#include "secrets/rules/rule.hpp"
#include "walk/git_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stealscan::secrets;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  (void)stealscan::core_excludes_file(in);

  Rule rule;
  rule.id = "fuzz-rule";
  Finding f;
  f.rule = &rule;
  f.file = "src/a.txt";
  f.start_line = f.end_line = 3;
  f.start_column = 1;
  f.end_column = 8;
  f.match = f.secret = "secret!";

  try {
    Suppressions baseline;
    baseline.add_baseline_text(in, "fuzz.json");
    (void)baseline.suppresses(f);
  } catch (const ConfigError&) {
    // the documented failure
  }

  Suppressions fingerprints;
  fingerprints.add_fingerprint_text(in);
  (void)fingerprints.suppresses(f);
  // The first line, when it reads "FILE:fuzz-rule:7" with a FILE that holds
  // no ':' and does not start with what the reader skips or trims ('#', a
  // blank), names a finding that must now be known.
  const std::string_view first = in.substr(0, std::min(in.find('\n'), in.size()));
  const std::string fp(first);
  const std::string suffix = ":fuzz-rule:7";
  if (fp.size() > suffix.size() && fp.compare(fp.size() - suffix.size(), suffix.size(), suffix) == 0 &&
      fp.find_first_of("#\r\t :") != 0 && fp.find(':') == fp.size() - suffix.size()) {
    Finding g = f;
    g.file = fp.substr(0, fp.size() - suffix.size());
    g.start_line = g.end_line = 7;
    FUZZ_CHECK(fingerprints.suppresses(g));
  }
  return 0;
}

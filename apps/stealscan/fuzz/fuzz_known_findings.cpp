// fuzz_known_findings.cpp: the files that say which findings are already
// known (secrets/report/suppressions.hpp), from any bytes: the input read as
// a baseline report (JSON, ours or gitleaks'), and as a fingerprint file
// (.gitleaksignore's format, which a scanned repository may hold), then asked
// about findings made from its own lines. Also a git config file
// (walk/git_config.hpp: core.excludesFile), which the walk reads from the
// scanned repository's .git/config.
//
// Checks: a bad baseline is a ConfigError and nothing else; no crash, no read
// outside the input (ASan); a fingerprint file suppresses every finding
// whose fingerprint is one of its lines; and a baseline written here from
// the input's bytes (a gitleaks-style report of one finding, its file with
// or without "./", its secret given or REDACTED) suppresses that finding and
// not one with another secret or line.
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

namespace {

// `bytes` as letters and digits: a JSON string that needs no escaping.
std::string plain(std::string_view bytes) {
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string out;
  for (const char c : bytes) out += kChars[static_cast<unsigned char>(c) % 36];
  return out;
}

void baseline_round_trip(std::string_view in) {
  using namespace stealscan::secrets;
  if (in.size() < 4) return;
  const auto u8 = [&](std::size_t i) { return static_cast<unsigned char>(in[i]); };
  const std::size_t cut = 1 + u8(0) % (in.size() - 2);
  Rule rule;
  rule.id = "fuzz-rule";
  Finding f;
  f.rule = &rule;
  f.file = "d/" + plain(in.substr(1, std::min<std::size_t>(cut, 40)));
  f.secret = plain(in.substr(cut, 60));
  f.match = "k=" + f.secret;
  f.start_line = f.end_line = 1 + u8(1) % 500;
  f.start_column = 1 + u8(2) % 80;
  f.end_column = f.start_column + f.match.size() - 1;
  const bool dot = (u8(3) & 1) != 0;
  const bool redacted = (u8(3) & 2) != 0;
  const std::string entry = std::string("[{\"RuleID\":\"fuzz-rule\",\"File\":\"") + (dot ? "./" : "") + f.file +
                            "\",\"Commit\":\"\",\"StartLine\":" + std::to_string(f.start_line) +
                            ",\"EndLine\":" + std::to_string(f.end_line) + ",\"StartColumn\":" +
                            std::to_string(f.start_column) + ",\"EndColumn\":" + std::to_string(f.end_column) +
                            ",\"Match\":\"x\",\"Secret\":\"" + (redacted ? "REDACTED" : f.secret) + "\"}]";
  Suppressions known;
  known.add_baseline_text(entry, "round-trip.json");  // well formed: must not throw
  FUZZ_CHECK(known.suppresses(f));
  Finding other = f;
  other.secret += "z";  // a rotated secret on the same line is new, unless the baseline was redacted
  FUZZ_CHECK(known.suppresses(other) == redacted);
  other = f;
  other.start_line = other.end_line = f.start_line + 1;
  FUZZ_CHECK(!known.suppresses(other));
}

}  // namespace

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

  baseline_round_trip(in);

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

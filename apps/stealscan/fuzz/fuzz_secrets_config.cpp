// fuzz_secrets_config.cpp: a gitleaks-format rule file (secrets/rules/
// config_loader.hpp) from any bytes, as `stealscan secrets --config` or a
// scanned repository's .gitleaks.toml may hold it: parsed, resolved over the
// built-in rules, compiled into a Detector, which then scans the same bytes.
//
// Checks: a bad file is a ConfigError and nothing else (no other exception
// escapes, no crash, no read outside the input); a good one yields a Detector
// that scans without failing, and findings that lie inside the text.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "secrets/detect/detector.hpp"
#include "secrets/rules/config_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stealscan::secrets;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  try {
    ParsedConfig parsed = parse_config(in, "fuzz.toml");
    const RuleSet empty;
    const RuleSet& base = parsed.use_default ? default_rule_set() : empty;
    if (!parsed.extend_path.empty()) return 0;  // another file: load_config_file's part
    RuleSet rules = resolve_config(std::move(parsed), base);
    const Detector detector(std::move(rules));
    Detector::Scratch scratch(detector);
    std::vector<Finding> found;
    detector.scan("fuzz/input.txt", in, scratch, found);
    for (const Finding& f : found) {
      FUZZ_CHECK(f.rule != nullptr);
      FUZZ_CHECK(f.start_line <= f.end_line);
    }
  } catch (const ConfigError&) {
    // the documented failure
  }
  return 0;
}

// fuzz_secrets_scan.cpp: the secret detector with the built-in rules
// (secrets/detect/detector.hpp) over any file's bytes: keywords, each
// triggered rule's regex, the secret group, entropy, allowlists, base64 blobs
// decoded two layers deep, and UTF-16 text turned into UTF-8 first (as
// `stealscan secrets` reads a file). The input's first line is the file's
// path (path rules and allowlists see it), the rest its contents.
//
// Checks: no crash or read outside the input (ASan), no exception; every
// finding's lines are within the file's and ordered, and a finding not in
// decoded text quotes bytes that are in the file. And the regex prefilter
// (secrets/detect/regex_prefilter.hpp) against RE2 over the whole text: the
// built-in rules with their keywords taken away (so that every one goes
// through the prefilter) find the same with it and without it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "secrets/detect/detector.hpp"
#include "secrets/rules/config_loader.hpp"
#include "sources/utf16.hpp"

namespace {

const stealscan::secrets::Detector& detector() {
  static const stealscan::secrets::Detector d(stealscan::secrets::default_rule_set());
  return d;
}

// The built-in rules without keywords, with the prefilter on or off.
const stealscan::secrets::Detector& keywordless(bool prefilter) {
  using namespace stealscan::secrets;
  const auto make = [](bool on) {
    RuleSet rules = default_rule_set();
    for (Rule& r : rules.rules) r.keywords.clear();
    DetectorOptions o;
    o.regex_prefilter = on;
    return std::make_unique<Detector>(std::move(rules), o);
  };
  static const std::unique_ptr<Detector> with = make(true);
  static const std::unique_ptr<Detector> without = make(false);
  return prefilter ? *with : *without;
}

// "rule line:column-line:column=secret" per finding, sorted.
std::vector<std::string> brief(const stealscan::secrets::Detector& d, std::string_view path, std::string_view text) {
  stealscan::secrets::Detector::Scratch scratch(d);
  std::vector<stealscan::secrets::Finding> found;
  d.scan(path, text, scratch, found);
  std::vector<std::string> out;
  for (const auto& f : found)
    out.push_back(f.rule->id + " " + std::to_string(f.start_line) + ":" + std::to_string(f.start_column) + "-" +
                  std::to_string(f.end_line) + ":" + std::to_string(f.end_column) + "=" + f.secret);
  std::sort(out.begin(), out.end());
  return out;
}

void scan_and_check(std::string_view path, std::string_view text) {
  using namespace stealscan::secrets;
  Detector::Scratch scratch(detector());
  std::vector<Finding> found;
  detector().scan(path, text, scratch, found);
  const auto lines = static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  for (const Finding& f : found) {
    FUZZ_CHECK(f.rule != nullptr);
    FUZZ_CHECK(f.start_line <= f.end_line);
    FUZZ_CHECK(f.end_line <= lines);
    if (f.start_line != 0 && f.decode_tags.empty()) FUZZ_CHECK(text.find(f.match) != std::string_view::npos);
  }
  FUZZ_CHECK(brief(keywordless(true), path, text) == brief(keywordless(false), path, text));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::size_t nl = std::min(in.find('\n'), in.size());
  const std::string_view path = in.substr(0, nl);
  const std::string_view text = in.substr(std::min(nl + 1, in.size()));
  scan_and_check(path, text);
  if (const stealscan::Utf16 order = stealscan::detect_utf16(text); order != stealscan::Utf16::none) {
    std::string utf8;
    stealscan::utf16_to_utf8(text, order, utf8);
    scan_and_check(path, utf8);
  }
  return 0;
}

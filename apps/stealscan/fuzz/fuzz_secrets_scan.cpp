// fuzz_secrets_scan.cpp: the secret detector with the built-in rules
// (secrets/detect/detector.hpp) over any file's bytes: keywords, each
// triggered rule's regex, the secret group, entropy, allowlists, base64 blobs
// decoded two layers deep, and UTF-16 text turned into UTF-8 first (as
// `stealscan secrets` reads a file). The input's first line is the file's
// path (path rules and allowlists see it), the rest its contents.
//
// Checks: no crash or read outside the input (ASan), no exception; every
// finding's lines are within the file's and ordered, and a finding not in
// decoded text quotes bytes that are in the file.
#include <algorithm>
#include <cstddef>
#include <cstdint>
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
    if (f.start_line != 0 && f.decoded.empty()) FUZZ_CHECK(text.find(f.match) != std::string_view::npos);
  }
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

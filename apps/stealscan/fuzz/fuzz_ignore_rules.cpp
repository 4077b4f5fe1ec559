// fuzz_ignore_rules.cpp: .gitignore files and globs (walk/gitignore.hpp,
// walk/glob.hpp) from any bytes, as a scanned repository may hold them.
// The input's first line is matched as a glob against each later line; the
// whole input is also read as a .gitignore, whose rules are asked about each
// line as a file and as a directory.
//
// Checks: no read outside the input (ASan), no exception, and a glob's answer
// does not depend on the case of the text when it was compiled to ignore case.
// A pattern that made matching slow (it is O(pattern x text), walk/README.md)
// shows up as a libFuzzer timeout (-timeout).
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "walk/gitignore.hpp"
#include "walk/glob.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stealscan;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at <= in.size();) {
    const std::size_t nl = std::min(in.find('\n', at), in.size());
    lines.push_back(in.substr(at, nl - at));
    at = nl + 1;
  }

  const Glob glob(lines[0]);
  const Glob folded(lines[0], /*ignore_case=*/true);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    (void)glob.matches(lines[i]);
    std::string upper(lines[i]);
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    FUZZ_CHECK(folded.matches(lines[i]) == folded.matches(upper));
  }

  const std::vector<IgnoreRule> rules = parse_gitignore(in);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    (void)match_rules(rules, lines[i], false);
    (void)match_rules(rules, lines[i], true);
  }
  return 0;
}

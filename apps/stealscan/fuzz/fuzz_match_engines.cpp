// fuzz_match_engines.cpp: the search's matching engines (match/matcher.hpp)
// against each other and against a naive search, on any patterns and text.
//
// The input: its first byte picks the syntax (bit 0: regex), -i (bit 1), -w
// (bit 2), -x (bit 3) and Unicode mode (bit 4: the search's default,
// match/unicode_syntax.hpp); then patterns, one a line, up to an empty line (at
// most 12); the rest is the block of text searched.
//
// Checks: no crash, no read outside the block (ASan), no exception but the
// documented PatternError for a pattern refused; the same columns from every
// engine (all_in_line(), for --json: at least one on each matching line, and
// for non-empty literals every occurrence, overlapping ones too); and the same
// matching lines from every engine: the automatic choice (our pair filter for 1 to 3
// literals, else Vectorscan), Vectorscan forced, and RE2 alone (--engine
// re2). For literals, also the lines a naive substring search finds with
// -i, -w, -x written out (ASCII case, [0-9A-Za-z_] words: grep in the C locale;
// tests/support/naive_grep.hpp, which the engine tests use too), in bytes mode
// or where Unicode's reading of the literals is the same; for ASCII
// regexes on short lines in bytes mode, the lines RE2 finds with the pattern as written and
// -w, -x applied by their definitions (not the engines' rewrites and wrappers).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "match/matcher.hpp"
#include "match/regex_syntax.hpp"
#include "match/unicode_syntax.hpp"
#include "support/naive_grep.hpp"

using stealscan::test::Column;
using stealscan::test::engine_columns;
using stealscan::test::engine_lines;
using stealscan::test::naive_literal_columns;
using stealscan::test::naive_literal_lines;
using stealscan::test::reference_regex_lines;
using stealscan::test::reference_regex_options;

namespace {

// The three engines for one pattern set; nullptr where the set is refused.
struct Engines {
  std::unique_ptr<stealscan::Matcher> automatic, vectorscan, re2;
};

// Matchers are compiled once per pattern set and kept for the next inputs
// (most mutations change the text, not the patterns): a Vectorscan compile
// per input held the target to about 20 inputs a second. A matcher's answers
// do not depend on what it searched before, so reuse changes no verdict.
const Engines* engines_for(std::uint8_t mode, const std::vector<std::string>& pats, stealscan::PatternSyntax syntax,
                           const stealscan::MatchFlags& flags) {
  using namespace stealscan;
  static std::map<std::string, std::unique_ptr<Engines>> cache;  // nullptr: refused
  std::string key(1, static_cast<char>(mode & 31U));
  for (const std::string& p : pats) key += p + '\n';
  if (const auto it = cache.find(key); it != cache.end()) return it->second.get();
  if (cache.size() >= 128) cache.clear();  // bounded memory
  auto e = std::make_unique<Engines>();
  try {
    e->automatic = make_matcher(pats, syntax, flags, Engine::automatic);
  } catch (const PatternError&) {
    // The forced engines must refuse it too: a pattern is valid or not.
    bool refused = false;
    try {
      (void)make_matcher(pats, syntax, flags, Engine::re2);
    } catch (const PatternError&) {
      refused = true;
    }
    FUZZ_CHECK(refused);
    e.reset();
  }
  if (e) {
    e->vectorscan = make_matcher(pats, syntax, flags, Engine::vectorscan);
    e->re2 = make_matcher(pats, syntax, flags, Engine::re2);
  }
  return cache.emplace(std::move(key), std::move(e)).first->second.get();
}

// Whether the regex reference (RE2 on the patterns as written) speaks for
// this input: ASCII patterns (the engines write a byte >= 0x80 as a repeat,
// working round an RE2 20220601 bug with Latin-1 alternations that the
// reference would hit) without a NUL, and lines short enough for the -w
// reference's every start and end.
bool reference_applies(const std::vector<std::string>& pats, std::string_view block) {
  for (const std::string& p : pats)
    for (const char c : p)
      if (c == '\0' || static_cast<unsigned char>(c) >= 0x80) return false;
  for (std::size_t at = 0;;) {
    const std::size_t nl = std::min(block.find('\n', at), block.size());
    if (nl - at > 64) return false;
    if (nl == block.size()) return true;
    at = nl + 1;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stealscan;
  if (size == 0) return 0;
  const PatternSyntax syntax = (data[0] & 1U) != 0 ? PatternSyntax::regex : PatternSyntax::literal;
  const MatchFlags flags{(data[0] & 2U) != 0, (data[0] & 4U) != 0, (data[0] & 8U) != 0, (data[0] & 16U) != 0};
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<std::string> pats;
  while (pats.size() < 12) {
    const std::size_t nl = rest.find('\n');
    if (nl == std::string_view::npos || nl == 0) break;
    pats.emplace_back(rest.substr(0, nl));
    rest.remove_prefix(nl + 1);
  }
  if (!rest.empty() && rest.front() == '\n') rest.remove_prefix(1);
  if (pats.empty()) return 0;
  const std::string_view block = rest;

  const Engines* engines = engines_for(data[0], pats, syntax, flags);
  if (engines == nullptr) return 0;  // refused by every engine alike
  const Matcher& automatic = *engines->automatic;
  const Matcher& vectorscan = *engines->vectorscan;
  const Matcher& re2 = *engines->re2;

  const std::vector<std::size_t> want = engine_lines(re2, block);
  FUZZ_CHECK(engine_lines(automatic, block) == want);
  FUZZ_CHECK(engine_lines(vectorscan, block) == want);
  // Unicode mode reads the literals alike where no word or fold can reach
  // past ASCII: no -w (a non-ASCII letter is a word character there), no -i
  // with a byte >= 0x80 or k, s (which fold with the Kelvin sign, long s).
  bool bytes_reading = !flags.unicode;
  if (flags.unicode && !flags.word) {
    bytes_reading = true;
    for (const std::string& p : pats) bytes_reading = bytes_reading && !(flags.ignore_case && folds_beyond_ascii(p));
  }
  if (syntax == PatternSyntax::literal && bytes_reading) FUZZ_CHECK(naive_literal_lines(pats, block, flags) == want);
  if (syntax == PatternSyntax::regex && !flags.unicode && reference_applies(pats, block)) {
    std::vector<std::unique_ptr<RE2>> res;
    for (const std::string& p : pats) res.push_back(std::make_unique<RE2>(p, reference_regex_options(flags)));
    if (std::all_of(res.begin(), res.end(), [](const auto& re) { return re->ok(); }))
      FUZZ_CHECK(reference_regex_lines(res, block, flags) == want);
  }

  // Columns (--json, all_in_line()): the same on every engine, at least one on
  // each matching line, and for non-empty literals every occurrence.
  const std::vector<Column> cols = engine_columns(re2, block, want);
  FUZZ_CHECK(engine_columns(automatic, block, want) == cols);
  FUZZ_CHECK(engine_columns(vectorscan, block, want) == cols);
  std::size_t next = 0;  // the first column not yet matched to a line
  for (const std::size_t line : want) {
    const std::size_t end = std::min(block.find('\n', line), block.size());
    FUZZ_CHECK(next < cols.size() && cols[next].at >= line && cols[next].at <= end);
    while (next < cols.size() && cols[next].at <= end) {
      FUZZ_CHECK(cols[next].at + cols[next].length <= end);
      ++next;
    }
  }
  FUZZ_CHECK(next == cols.size());
  const bool any_empty = std::any_of(pats.begin(), pats.end(), [](const std::string& p) { return p.empty(); });
  if (syntax == PatternSyntax::literal && !any_empty && bytes_reading)
    FUZZ_CHECK(naive_literal_columns(pats, block, flags, want) == cols);
  return 0;
}

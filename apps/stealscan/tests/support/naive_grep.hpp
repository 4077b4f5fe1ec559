// naive_grep.hpp: what the engine tests and fuzz_match_engines hold the
// matching engines (match/matcher.hpp) to: the lines a Matcher reports, and
// the lines grep -F finds in the C locale, written out one line at a time
// (-i: ASCII case only; -w: words of [0-9A-Za-z_]; -x: the whole line); and
// for regexes, RE2 on the pattern as written with -w and -x applied by their
// definitions. The helpers are its own, not the engines' (a reference must
// not share their bugs).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <memory>
#include <vector>

#include <re2/re2.h>

#include "match/matcher.hpp"
#include "match/regex_syntax.hpp"  // MatchFlags

namespace stealscan::test {

// The offsets of the line starts the matcher reports for `block`.
inline std::vector<std::size_t> engine_lines(const Matcher& m, std::string_view block) {
  std::vector<std::size_t> out;
  m.matching_lines(block.data(), block.data() + block.size(), out, false);
  return out;
}

// One match all_in_line() reports: where in the block, how long, which pattern.
struct Column {
  std::size_t at;
  std::uint32_t length;
  std::uint32_t pattern;
  bool operator==(const Column&) const = default;
};
inline void PrintTo(const Column& c, std::ostream* os) {  // GoogleTest's printer
  *os << "{at " << c.at << ", length " << c.length << ", pattern " << c.pattern << "}";
}

// Every match all_in_line() reports on each of `lines` (line starts in `block`,
// as engine_lines() gives them), in order.
inline std::vector<Column> engine_columns(const Matcher& m, std::string_view block,
                                          const std::vector<std::size_t>& lines) {
  std::vector<Column> out;
  std::vector<Match> in_line;
  for (const std::size_t at : lines) {
    const std::size_t nl = std::min(block.find('\n', at), block.size());
    m.all_in_line(block.data() + at, block.data() + nl, in_line);
    for (const Match& x : in_line)
      out.push_back(Column{static_cast<std::size_t>(x.begin - block.data()), x.length, x.pattern});
  }
  return out;
}

inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

inline bool is_word(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// Whether `p` occurs in `line` at `at` (ASCII case folded with `fold`).
inline bool literal_at(std::string_view line, std::size_t at, std::string_view p, bool fold) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char a = line[at + i], b = p[i];
    if (fold ? ascii_lower(a) != ascii_lower(b) : a != b) return false;
  }
  return true;
}

// grep -F on one line.
inline bool naive_literal_line_matches(const std::vector<std::string>& pats, std::string_view line,
                                       const MatchFlags& f) {
  for (const std::string& p : pats) {
    if (f.line) {
      if (p.size() == line.size() && literal_at(line, 0, p, f.ignore_case)) return true;
      continue;
    }
    for (std::size_t at = 0; at + p.size() <= line.size(); ++at) {
      if (!literal_at(line, at, p, f.ignore_case)) continue;
      if (!f.word) return true;
      const bool before = at == 0 || !is_word(line[at - 1]);
      const bool after = at + p.size() == line.size() || !is_word(line[at + p.size()]);
      if (before && after) return true;
    }
  }
  return false;
}

// Where each of `pats` (none empty) occurs on each of `lines`, overlapping
// occurrences included, in order of start, then pattern: what all_in_line()
// reports for literals (-i, -w, -x written out as in naive_literal_line_matches).
inline std::vector<Column> naive_literal_columns(const std::vector<std::string>& pats, std::string_view block,
                                                 const MatchFlags& f, const std::vector<std::size_t>& lines) {
  std::vector<Column> out;
  for (const std::size_t start : lines) {
    const std::string_view line = block.substr(start, std::min(block.find('\n', start), block.size()) - start);
    for (std::size_t at = 0; at < line.size(); ++at) {
      for (std::size_t k = 0; k < pats.size(); ++k) {
        const std::string& p = pats[k];
        if (at + p.size() > line.size() || !literal_at(line, at, p, f.ignore_case)) continue;
        if (f.line && (at != 0 || p.size() != line.size())) continue;
        if (f.word && ((at > 0 && is_word(line[at - 1])) || (at + p.size() < line.size() && is_word(line[at + p.size()]))))
          continue;
        out.push_back(Column{start + at, static_cast<std::uint32_t>(p.size()), static_cast<std::uint32_t>(k)});
      }
    }
  }
  return out;
}

// grep -F over a block: the offsets of the matching lines' starts (the text
// after the last '\n' is a line, empty or not).
inline std::vector<std::size_t> naive_literal_lines(const std::vector<std::string>& pats, std::string_view block,
                                                    const MatchFlags& f) {
  std::vector<std::size_t> out;
  for (std::size_t at = 0;;) {
    const std::size_t nl = std::min(block.find('\n', at), block.size());
    if (naive_literal_line_matches(pats, block.substr(at, nl - at), f)) out.push_back(at);
    if (nl == block.size()) return out;
    at = nl + 1;
  }
}

// The regex reference: RE2 on the pattern as written (none of the engines'
// rewrites or wrappers), -i as RE2's own option, and -x and -w by their
// definitions: -x, a match of the whole line; -w, a match [i, j) with no word
// byte just before i or at j, tried at every start and end (RE2 with the
// whole line as context, so ^, $ and \b inside the pattern see the line
// around the piece). Quadratic in a line's length under -w: for short lines.
inline RE2::Options reference_regex_options(const MatchFlags& f) {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_case_sensitive(!f.ignore_case);
  o.set_log_errors(false);
  return o;
}

inline bool reference_regex_line_matches(const RE2& re, std::string_view line, const MatchFlags& f) {
  const re2::StringPiece text(line.data(), line.size());
  if (f.line) return re.Match(text, 0, line.size(), RE2::ANCHOR_BOTH, nullptr, 0);
  if (!f.word) return re.Match(text, 0, line.size(), RE2::UNANCHORED, nullptr, 0);
  for (std::size_t i = 0; i <= line.size(); ++i) {
    if (i > 0 && is_word(line[i - 1])) continue;
    for (std::size_t j = i; j <= line.size(); ++j)
      if ((j == line.size() || !is_word(line[j])) && re.Match(text, i, j, RE2::ANCHOR_BOTH, nullptr, 0)) return true;
  }
  return false;
}

// The line starts of `block` where any of `res` matches (lines as
// naive_literal_lines() splits them).
inline std::vector<std::size_t> reference_regex_lines(const std::vector<std::unique_ptr<RE2>>& res,
                                                      std::string_view block, const MatchFlags& f) {
  std::vector<std::size_t> out;
  for (std::size_t at = 0;;) {
    const std::size_t nl = std::min(block.find('\n', at), block.size());
    const std::string_view line = block.substr(at, nl - at);
    if (std::any_of(res.begin(), res.end(), [&](const auto& re) { return reference_regex_line_matches(*re, line, f); }))
      out.push_back(at);
    if (nl == block.size()) return out;
    at = nl + 1;
  }
}

}  // namespace stealscan::test

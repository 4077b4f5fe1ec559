// line_scanner.hpp: scan_lines(), the chunk protocol: finds the matching lines
// whose first byte lies in a byte range of a file, reading it through a ScanWindow.
// docs/design.md ("Chunk protocol") gives the rules and why every matching line is
// counted exactly once and every line number is exact; in short:
//
// - A chunk owns the lines that START in its range [begin, end). It reads from
//   begin - 1 (to see whether a line starts at begin), skips the line it starts
//   in the middle of, and reads past `end` only to finish its last line.
// - Lines are searched whole when they fit the window; a literal match cannot
//   contain '\n', so it always lies inside one line. A line longer than the
//   window (literals only) is searched in windows that overlap by the longest
//   pattern - 1 bytes, so a match across two reads is seen in full, once.
// - Owned lines are counted (when numbering) so that chunk k's line numbers start
//   at 1 + the lines owned by chunks 0..k-1 (file_job.hpp adds them up in order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sources/byte_source.hpp"
#include "match/matcher.hpp"
#include "sources/scan_window.hpp"

namespace stealscan {

enum class ScanMode : std::uint8_t {
  count,    // -c: count the matching lines
  list,     // -l: stop at the first matching line
  lines,    // default output: report each matching line
  matches,  // --json: report every match of each matching line
};

struct ScanOptions {
  static constexpr std::uint64_t kNoLimit = UINT64_MAX;

  ScanMode mode = ScanMode::count;
  bool number_lines = false;  // count owned lines and give each hit its index
  bool invert = false;        // -v: select the lines that do NOT match
  bool only_matching = false; // -o: mode lines reports each match of a line (columns, lengths)
  std::uint64_t max_count = kNoLimit;  // -m: stop after this many selected lines
  std::uint32_t before = 0;   // -B: context lines before each selected line
  std::uint32_t after = 0;    // -A: context lines after each selected line
  // The source can be read again at an offset (a file), so a line too long for the
  // window is printed by reading it back. A stream cannot: its lines are held whole.
  bool rereadable = true;
  // Mode `matches` with each line's text (--json's messages hold the line):
  // lines are held whole, as for -o, and a line's matches are -o's
  // (leftmost-first, non-overlapping, the set as one alternation).
  bool whole_lines = false;

  // Whether a file must be scanned from its start to its end by one scan (no
  // chunks): -m counts lines in order, and context lines cross chunk borders.
  [[nodiscard]] bool sequential() const noexcept { return max_count != kNoLimit || before > 0 || after > 0; }
  // Whether every line is looked at (not only the matching ones).
  [[nodiscard]] bool line_by_line() const noexcept { return invert || before > 0 || after > 0; }
};

struct MatchColumn {
  std::uint64_t column;  // 0-based byte offset in the line
  std::uint32_t pattern;
  std::uint32_t length = 0;  // bytes (mode lines with only_matching)
};

// One matching line, as reported to a LineSink. `text` is valid during the call.
struct LineHit {
  std::uint64_t line;    // 0-based index among the lines this scan owns (when numbering)
  std::uint64_t offset;  // file offset of the line's first byte
  std::uint64_t length;  // bytes without the '\n' (0 in a partial report of a long line)
  const char* text;      // the line; nullptr when it was longer than the window: read it at `offset`
  std::span<const MatchColumn> matches;  // mode `matches`: the line's matches (a long line
                                         // reports them in several calls, in order);
                                         // only_matching: the line's non-overlapping matches
  bool context = false;  // a context line (-A/-B/-C), not a selected one
  bool gap = false;      // lines were skipped since the last line reported in this scan
  bool newline = false;  // the line ends in '\n' (the last line of a file may not)
};

class LineSink {
 public:
  virtual void on_line(const LineHit& hit) = 0;

 protected:
  ~LineSink() = default;
};

struct ScanRange {
  static constexpr std::uint64_t kToEof = UINT64_MAX;
  std::uint64_t begin = 0;
  std::uint64_t end = kToEof;  // exclusive; kToEof: through the end of the file
};

struct ScanResult {
  std::uint64_t matching_lines = 0;
  std::uint64_t lines = 0;       // lines owned (counted only with number_lines)
  std::uint64_t bytes_read = 0;  // by this call (not counting a preloaded window)
};

// Per-worker scratch that scan_lines() reuses across calls (no allocation per file).
struct LineScratch {
  std::vector<std::size_t> lines;  // a block's matching lines (Matcher::matching_lines)
  struct Kept {                    // a line kept for -B (copied: the window moves on)
    std::uint64_t number;
    std::uint64_t offset;
    std::string text;
  };
  std::vector<Kept> before;        // ring of the last `before` unselected lines
  std::size_t before_next = 0;     // ring position of the oldest (when full)
  std::vector<Match> matches;
  std::vector<MatchColumn> columns;
};

// Scans the lines starting in `range`. If `window_loaded`, the window already holds
// the file's bytes from offset range.begin (range.begin must be 0): the file task's
// first read, kept for the binary check. `sink` may be null in modes count and list.
// Throws what the source throws (std::system_error).
ScanResult scan_lines(const Matcher& matcher, const ScanOptions& options, ScanWindow& window, ByteSource& source,
                      ScanRange range, bool window_loaded, LineSink* sink, LineScratch& scratch);

// The number of '\n' bytes in [begin, end).
std::uint64_t count_newlines(const char* begin, const char* end) noexcept;

}  // namespace stealscan

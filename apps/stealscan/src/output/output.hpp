// output.hpp: how findings reach stdout.
//
// Stdout is the one shared writer (a mutex around write(2)). Each worker appends
// to its own WorkerOutput buffer and hands it to Stdout whole, at a file boundary
// once it holds kFlushAt bytes (or after every file when stdout is a pipe or a
// terminal), so a file's lines are contiguous in the output and a write carries
// many files' records; at kHardLimit a buffer is flushed even
// inside a file (bounded memory for a file with millions of matching lines). A
// line longer than kInlineLine is streamed from the file under the Stdout lock
// instead of being buffered whole.
//
// HitFormat renders one record in the chosen --output mode (cli.hpp):
//   count   PATH:N            (N selected lines; files with N >= 1 only)
//   list    PATH
//   lines   PATH:TEXT, with -n PATH:LINE:TEXT (LINE from 1); with -o one record
//           per match, its text for TEXT; context lines (-A/-B/-C) PATH-TEXT or
//           PATH-LINE-TEXT, and "--" between groups of lines that are not adjacent
//   json    ripgrep's --json messages, one JSON object a line: for each file with
//           a selected line, "begin", then a "match" for each selected line (its
//           text, number, byte offset and submatches) and a "context" for each
//           context line, then "end" with the file's figures; after the last
//           file, "summary" (json_summary()). A text that is not UTF-8 is
//           {"bytes":"BASE64"}, else {"text":...}
//   json_matches  (--json-matches) {"file":PATH,"line":LINE,"column":COL,"pattern":PATTERN}
//           a match a line (COL: byte, from 1; a PATH or PATTERN that is not
//           UTF-8 is {"bytes":"BASE64"})
// PATH: is left out when with_filename is false (a single file was given).
//
// With context lines, a file's records are one group: WorkerOutput writes them
// at the end of the file, and Stdout puts "--" before every group but the first
// (as grep and ripgrep separate files).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "scan/line_scanner.hpp"
#include "scan/tally.hpp"
#include "match/matcher.hpp"

namespace stealscan {

enum class OutputMode : std::uint8_t { count, list, lines, json, json_matches };

// A write that fails (a full disk, a closed pipe with SIGPIPE ignored) prints the
// reason and exits with status 2, as grep does. Built with a `capture` string,
// it appends there instead of writing descriptor 1: stealscan-mpi keeps a rank's
// output in memory until rank 0 writes it (src/mpi/README.md).
class Stdout {
 public:
  Stdout() = default;
  explicit Stdout(std::string& capture) : capture_(&capture) {}
  void write(std::string_view bytes);
  std::mutex& mutex() noexcept { return mu_; }
  // Caller holds mutex().
  void write_locked(std::string_view bytes);
  // Caller holds mutex(): a group of records starts; "--" if one came before.
  void begin_group_locked();

 private:
  std::mutex mu_;
  std::string* capture_ = nullptr;  // guarded by mu_ (the string's contents)
  bool any_group_ = false;  // guarded by mu_
};

class WorkerOutput {
 public:
  static constexpr std::size_t kFlushAt = 64 * 1024;
  static constexpr std::size_t kHardLimit = 1024 * 1024;
  static constexpr std::size_t kInlineLine = 256 * 1024;

  // `grouped`: each file's records are a group (context lines), written at the
  // end of the file with a separator before it. `per_file`: every file's records
  // are written when the file is done (for a pipe or a terminal, where a reader
  // is waiting for the first lines: `stealscan x tree | head -1`); otherwise
  // they wait until kFlushAt bytes have gathered (a file: fewer, larger writes).
  explicit WorkerOutput(Stdout& out, bool grouped = false, bool per_file = false)
      : out_(&out), grouped_(grouped), flush_at_(per_file ? 1 : kFlushAt) {}

  std::string& buffer() noexcept { return buf_; }
  [[nodiscard]] Stdout& sink() noexcept { return *out_; }
  // After each file's records.
  void end_of_file() {
    if (grouped_) {
      flush();
      group_open_ = false;
    } else if (buf_.size() >= flush_at_) {
      flush();
    }
  }
  // After each record inside a file.
  void end_of_record() {
    if (buf_.size() >= kHardLimit) flush();
  }
  void flush();
  // Appends the file's bytes [offset, offset + length) (a long line), streaming
  // them under the Stdout lock when they are too many to buffer.
  void append_from_file(int fd, std::uint64_t offset, std::uint64_t length);

 private:
  // Caller holds the Stdout lock: writes the buffer (a group's start first).
  void write_buffer_locked();

  Stdout* out_;
  std::string buf_;
  bool grouped_ = false;
  std::size_t flush_at_;
  bool group_open_ = false;  // this file's group has begun on stdout
};

// One matching line, ready to print.
struct HitView {
  std::uint64_t line_number;  // from 1
  std::uint64_t offset;       // of the line in the file
  std::uint64_t length;
  const char* text;           // nullptr: read [offset, offset + length) from the file
  std::span<const MatchColumn> matches;
  bool context = false;       // a context line (-A/-B/-C)
  bool gap = false;           // lines were skipped before it ("--" first)
  bool newline = false;       // the line ends in '\n'
};

// One file's --json messages so far: whether its "begin" is out, and the
// figures its "end" reports. Kept by whoever prints the file's lines (one
// worker for a file scanned whole; its FileJob, under the job's lock, for a
// split one).
struct JsonFile {
  bool begun = false;
  std::uint64_t matches = 0;  // submatches reported
  std::uint64_t printed = 0;  // bytes of its messages
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

struct FormatOptions {
  bool with_filename = true;
  bool line_numbers = false;  // -n
  bool only_matching = false; // -o
  bool context = false;       // -A/-B/-C: separate groups with "--"
};

class HitFormat {
 public:
  HitFormat(OutputMode mode, const FormatOptions& options, const Matcher& patterns)
      : mode_(mode), o_(options), patterns_(&patterns) {}

  [[nodiscard]] OutputMode mode() const noexcept { return mode_; }
  void count(WorkerOutput& out, std::string_view path, std::uint64_t n) const;
  void list(WorkerOutput& out, std::string_view path) const;
  // Mode lines or json; `fd` is read for a line whose text is not in memory.
  // Mode json needs `file` (the lines are then in memory: whole_lines).
  void hit(WorkerOutput& out, std::string_view path, int fd, const HitView& hit, JsonFile* file = nullptr) const;
  // Mode json: the file's "end" message, if its "begin" is out; its figures
  // (matches, bytes printed, search time) are added to `tally`.
  void json_end(WorkerOutput& out, std::string_view path, JsonFile& file, std::uint64_t bytes_searched,
                std::uint64_t matched_lines, Tally& tally) const;

 private:
  // PATH:LINE: (or with '-' for a context line), as the options say.
  void prefix(std::string& b, std::string_view path, std::uint64_t line, char sep) const;

  OutputMode mode_;
  FormatOptions o_;
  const Matcher* patterns_;
};

// Mode json's last message: the scan's figures, and its wall time.
std::string json_summary(const Totals& totals, double seconds);

// `s` as a JSON string when it is valid UTF-8, else losslessly as an object
// {"bytes":"BASE64"} (as ripgrep writes a file name that is not UTF-8): two
// different names never print the same.
void append_json_bytes(std::string& out, std::string_view s);
// `s`, valid UTF-8, as a JSON string (quotes, backslashes and control bytes escaped).
void append_json_string(std::string& out, std::string_view s);
// Appends `s` in base64 (RFC 4648, standard alphabet, padded with '=').
void append_base64(std::string& out, std::string_view s);
// `s` with each byte that is not part of valid UTF-8 replaced by U+FFFD: for
// formats whose strings must be text (SARIF's messages, XML).
std::string utf8_lossy(std::string_view s);

}  // namespace stealscan

// output.hpp: how findings reach stdout.
//
// Stdout is the one shared writer (a mutex around write(2)). Each worker appends
// to its own WorkerOutput buffer and hands it to Stdout whole, at a file boundary
// once it holds kFlushAt bytes, so a file's lines are contiguous in the output and
// a write carries many files' records; at kHardLimit a buffer is flushed even
// inside a file (bounded memory for a file with millions of matching lines). A
// line longer than kInlineLine is streamed from the file under the Stdout lock
// instead of being buffered whole.
//
// HitFormat renders one record in the chosen --output mode (cli.hpp):
//   count   PATH:N            (N matching lines; files with N >= 1 only)
//   list    PATH
//   lines   PATH:LINE:TEXT    (LINE from 1)
//   json    {"file":PATH,"line":LINE,"column":COL,"pattern":PATTERN}  (COL: byte, from 1)
// PATH: is left out when with_filename is false (a single file was given).
#pragma once

#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>

#include "scan/line_scanner.hpp"
#include "match/matcher.hpp"

namespace stealscan {

enum class OutputMode : std::uint8_t { count, list, lines, json };

// A write that fails (a full disk, a closed pipe with SIGPIPE ignored) prints the
// reason and exits with status 2, as grep does.
class Stdout {
 public:
  void write(std::string_view bytes);
  std::mutex& mutex() noexcept { return mu_; }
  // Caller holds mutex().
  void write_locked(std::string_view bytes);

 private:
  std::mutex mu_;
};

class WorkerOutput {
 public:
  static constexpr std::size_t kFlushAt = 64 * 1024;
  static constexpr std::size_t kHardLimit = 1024 * 1024;
  static constexpr std::size_t kInlineLine = 256 * 1024;

  explicit WorkerOutput(Stdout& out) : out_(&out) {}

  std::string& buffer() noexcept { return buf_; }
  // After each file's records.
  void end_of_file() {
    if (buf_.size() >= kFlushAt) flush();
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
  Stdout* out_;
  std::string buf_;
};

// One matching line, ready to print.
struct HitView {
  std::uint64_t line_number;  // from 1
  std::uint64_t offset;       // of the line in the file
  std::uint64_t length;
  const char* text;           // nullptr: read [offset, offset + length) from the file
  std::span<const MatchColumn> matches;
};

class HitFormat {
 public:
  HitFormat(OutputMode mode, bool with_filename, const Matcher& patterns)
      : mode_(mode), with_filename_(with_filename), patterns_(&patterns) {}

  [[nodiscard]] OutputMode mode() const noexcept { return mode_; }
  void count(WorkerOutput& out, std::string_view path, std::uint64_t n) const;
  void list(WorkerOutput& out, std::string_view path) const;
  // Mode lines or json; `fd` is read for a line whose text is not in memory.
  void hit(WorkerOutput& out, std::string_view path, int fd, const HitView& hit) const;

 private:
  OutputMode mode_;
  bool with_filename_;
  const Matcher* patterns_;
};

void append_json_string(std::string& out, std::string_view s);

}  // namespace stealscan

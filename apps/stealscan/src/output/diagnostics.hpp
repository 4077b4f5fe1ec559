// diagnostics.hpp: Diagnostics, the one writer of stderr: error and warning lines
// ("stealscan: PATH: reason"), and the progress line, which an error line first
// erases so that the two never mix. Any thread; one mutex. Built with a
// `capture` string, it appends the lines there instead of writing descriptor 2
// (stealscan-mpi: a rank's messages, written by rank 0 at the end).
#pragma once

#include <mutex>
#include <string>
#include <string_view>

namespace stealscan {

class Diagnostics {
 public:
  Diagnostics() = default;
  explicit Diagnostics(std::string& capture) : capture_(&capture) {}

  // "stealscan: <path>: <what>" on its own line.
  void error(std::string_view path, std::string_view what);
  // "stealscan: <what>".
  void message(std::string_view what);
  // Replaces the progress line (a terminal's carriage return); "" erases it.
  void progress(std::string_view line);

 private:
  void write_locked(std::string_view text);
  std::mutex mu_;
  std::string* capture_ = nullptr;  // guarded by mu_ (the string's contents)
  bool progress_shown_ = false;
};

}  // namespace stealscan

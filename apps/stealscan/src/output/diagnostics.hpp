// diagnostics.hpp: Diagnostics, the one writer of stderr: error and warning lines
// ("stealscan: PATH: reason"), and the progress line, which an error line first
// erases so that the two never mix. Any thread; one mutex.
#pragma once

#include <mutex>
#include <string>
#include <string_view>

namespace stealscan {

class Diagnostics {
 public:
  // "stealscan: <path>: <what>" on its own line.
  void error(std::string_view path, std::string_view what);
  // "stealscan: <what>".
  void message(std::string_view what);
  // Replaces the progress line (a terminal's carriage return); "" erases it.
  void progress(std::string_view line);

 private:
  void write_locked(std::string_view text);
  std::mutex mu_;
  bool progress_shown_ = false;
};

}  // namespace stealscan

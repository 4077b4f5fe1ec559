// progress.hpp: Progress, the progress line on stderr ("stealscan: 12,345 files,
// 1.2 GiB, 850 MiB/s"), redrawn every 200 ms by a thread of its own from the
// tallies (a relaxed read of each: tally.hpp), or from any other line maker
// (the history scan's: commits diffed, blobs scanned). Does nothing when
// disabled; the CLI enables it when stderr is a terminal. The interval is
// $STEALSCAN_PROGRESS_MS when set (progress_interval()); 0 draws the first
// line at once, before the work can end (the tests' way to see it).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <thread>

#include "output/diagnostics.hpp"
#include "scan/tally.hpp"

namespace stealscan {

// 200 ms, or $STEALSCAN_PROGRESS_MS (milliseconds, 0 to 60000) when it is
// set to such a number.
std::chrono::milliseconds progress_interval();

class Progress {
 public:
  Progress(Diagnostics& diag, std::span<const Tally> tallies, bool enabled,
           std::chrono::milliseconds interval = progress_interval());
  // `line(seconds since the start)` is called on the progress thread: it may
  // read only what other threads publish for it (relaxed atomics).
  Progress(Diagnostics& diag, std::function<std::string(double)> line, bool enabled,
           std::chrono::milliseconds interval = progress_interval());
  ~Progress() { stop(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Stops the thread and erases the line. Idempotent.
  void stop();

 private:
  void loop();

  Diagnostics& diag_;
  std::function<std::string(double)> line_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::milliseconds interval_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  bool drawn_ = false;  // progress thread only
  std::thread thread_;
};

// "1.5 GiB", "12.0 MiB", "512 B".
std::string human_bytes(double bytes);

}  // namespace stealscan

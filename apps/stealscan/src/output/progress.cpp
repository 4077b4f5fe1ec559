// progress.cpp: Progress (progress.hpp).
#include "output/progress.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace stealscan {

std::string human_bytes(double bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, kUnits[u]);
  return buf;
}

std::chrono::milliseconds progress_interval() {
  constexpr std::chrono::milliseconds kDefault{200};
  const char* v = std::getenv("STEALSCAN_PROGRESS_MS");
  if (v == nullptr || *v == '\0') return kDefault;
  char* end = nullptr;
  const long ms = std::strtol(v, &end, 10);
  if (*end != '\0' || ms < 0 || ms > 60000) return kDefault;
  return std::chrono::milliseconds(ms);
}

Progress::Progress(Diagnostics& diag, std::span<const Tally> tallies, bool enabled,
                   std::chrono::milliseconds interval)
    : Progress(
          diag,
          [tallies](double secs) {
            const Totals t = sum(tallies);
            char line[160];
            std::snprintf(line, sizeof line, "stealscan: %llu files, %s, %s/s, %llu matched",
                          static_cast<unsigned long long>(t.files), human_bytes(static_cast<double>(t.bytes)).c_str(),
                          human_bytes(secs > 0 ? static_cast<double>(t.bytes) / secs : 0).c_str(),
                          static_cast<unsigned long long>(t.matched_files));
            return std::string(line);
          },
          enabled, interval) {}

Progress::Progress(Diagnostics& diag, std::function<std::string(double)> line, bool enabled,
                   std::chrono::milliseconds interval)
    : diag_(diag), line_(std::move(line)), start_(std::chrono::steady_clock::now()), interval_(interval) {
  if (enabled) thread_ = std::thread([this] { loop(); });
}

void Progress::stop() {
  {
    std::lock_guard lock(mu_);
    done_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Progress::loop() {
  std::unique_lock lock(mu_);
  // An interval of 0: the first line at once (stop() cannot come between),
  // then one a millisecond.
  bool now = interval_.count() == 0;
  const std::chrono::milliseconds every = std::max(interval_, std::chrono::milliseconds(1));
  for (;;) {
    if (!now && cv_.wait_for(lock, every, [this] { return done_; })) break;
    now = false;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    diag_.progress(line_(secs));
    drawn_ = true;
  }
  if (drawn_) diag_.progress("");
}

}  // namespace stealscan

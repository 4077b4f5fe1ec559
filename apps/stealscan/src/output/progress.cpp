// progress.cpp: Progress (progress.hpp).
#include "output/progress.hpp"

#include <cstdio>
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

Progress::Progress(Diagnostics& diag, std::span<const Tally> tallies, bool enabled)
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
          enabled) {}

Progress::Progress(Diagnostics& diag, std::function<std::string(double)> line, bool enabled)
    : diag_(diag), line_(std::move(line)), start_(std::chrono::steady_clock::now()) {
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
  for (;;) {
    if (cv_.wait_for(lock, std::chrono::milliseconds(200), [this] { return done_; })) break;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    diag_.progress(line_(secs));
    drawn_ = true;
  }
  if (drawn_) diag_.progress("");
}

}  // namespace stealscan

// stats.cpp: format_stats() (stats.hpp).
#include "output/stats.hpp"

#include <cstdarg>
#include <cstdio>

#include "output/progress.hpp"

namespace stealscan {
namespace {
// printf into a string; the attribute lets the compiler check each call's format.
__attribute__((format(printf, 1, 2))) std::string line(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}
unsigned long long u(std::uint64_t v) { return static_cast<unsigned long long>(v); }
}  // namespace

std::string format_stats(const ScanReport& r, std::size_t workers) {
  const Totals& t = r.totals;
  const auto& m = r.metrics;
  std::string s;
  s += "stealscan stats:\n";
  s += line("  files scanned    %llu (%s), %llu with a match, %llu matching lines\n", u(t.files),
            human_bytes(static_cast<double>(t.bytes)).c_str(), u(t.matched_files), u(t.matching_lines));
  s += line("  skipped          %llu binary, %llu over --max-filesize, %llu link loops\n", u(t.binary),
            u(t.too_large), u(t.loops));
  s += line("  errors           %llu\n", u(t.errors));
  s += line("  time             %.3f s, %s/s, %zu workers (walking and scanning)\n", r.seconds,
            human_bytes(r.seconds > 0 ? static_cast<double>(t.bytes) / r.seconds : 0).c_str(), workers);
  s += line("  executor tasks   %llu run: %llu from own deque, %llu from the injector, %llu stolen\n",
            u(m.tasks_executed), u(m.tasks_from_local), u(m.tasks_from_injector), u(m.tasks_from_steal));
  s += line("  executor steals  %llu of %llu tries; %llu parks, %llu wake-ups; %llu local spawns\n",
            u(m.steal_successes), u(m.steal_attempts), u(m.parks), u(m.unparks), u(m.local_spawns));
  std::string per = "  tasks per worker";
  for (std::size_t i = 0; i < m.per_worker.size(); ++i)
    per += line(" w%zu=%llu", i, u(m.per_worker[i].tasks_executed));
  s += per + "\n";
  return s;
}

}  // namespace stealscan

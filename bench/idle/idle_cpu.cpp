// Idle cost of a fork-join pool: after a burst of work, how much CPU do the
// parked workers burn? Measures the process's CPU time (getrusage: user + system,
// all threads) over an idle window and reports it as a percentage of one core.
// The bar: < 1% of a core.
//
//   stealpool_idle_cpu [--workers W] [--seconds S] [--settle-ms M]
//
// Workers spin-yield for spin_iters rounds, then park with a timeout that doubles
// from park_timeout up to 64x, then park with none (detail/core/tiered_idle.hpp),
// so the window starts after --settle-ms (default 500 ms) to report the steady
// state; the settle phase itself is reported too.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "stealpool/forkjoin.hpp"

namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

long fib(int n) {
  if (n < 2) return n;
  auto [a, b] = stealpool::join([&] { return fib(n - 1); }, [&] { return fib(n - 2); });
  return a + b;
}

double percent_of_core_over(std::chrono::milliseconds window) {
  const double c0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(window);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return 100.0 * (cpu_seconds() - c0) / wall;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t workers = stealpool::available_parallelism();
  double seconds = 3.0;
  long settle_ms = 500;
  for (int i = 1; i < argc; ++i) {
    auto next = [&](const char* flag) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--workers")) workers = std::strtoul(next("--workers"), nullptr, 10);
    else if (!std::strcmp(argv[i], "--seconds")) seconds = std::strtod(next("--seconds"), nullptr);
    else if (!std::strcmp(argv[i], "--settle-ms")) settle_ms = std::strtol(next("--settle-ms"), nullptr, 10);
    else {
      std::fprintf(stderr, "usage: stealpool_idle_cpu [--workers W] [--seconds S] [--settle-ms M]\n");
      return 2;
    }
  }
  stealpool::ThreadPool pool(workers);
  const long v = pool.run([] { return fib(27); });
  if (v != 196418) {
    std::fprintf(stderr, "WRONG RESULT: fib(27) = %ld\n", v);
    return 1;
  }
  const double settle = percent_of_core_over(std::chrono::milliseconds(settle_ms));
  const double idle = percent_of_core_over(std::chrono::milliseconds(static_cast<long>(seconds * 1000)));
  std::printf("idle pool, %zu workers: %.3f%% of a core over %.1f s (first %ld ms after work: %.2f%%)\n", workers,
              idle, seconds, settle_ms, settle);
  return 0;
}

// wake_floor: the floor under every pool's wake-up, with no pool. N threads each
// sleep on their own Parker (a futex word; bench/common/parked_thread.hpp); the main
// thread wakes one of them every 3 ms and times unpark() to that thread's first
// clock read after park() returns. No queue, no sleep registry, no task: what is
// left is the kernel's futex wake and the time the woken thread's CPU takes to
// run it, which every pool that parks its threads pays.
//
// Which thread is woken, two ways:
//   rotate  the next thread in turn: what a pool that scans its sleepers from a
//           round-robin cursor does when tasks come one at a time
//   last    the same thread every time, the latest to go back to sleep: what a
//           pool that wakes its sleepers from a stack does
// With one thread the two are the same.
//
// Usage: wake_floor [--threads N] [--samples N] [--gap-us N]
//   (defaults 16, 1000, 3000; N from 1 to 256, samples 10 to 10^6, gap 1 to 10^6)
// Prints, per order, p50 / p90 / p99 / max in us and p99 over p50.
// docs/wakeup.md quotes it.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "../common/bench_cli.hpp"
#include "../common/parked_thread.hpp"

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// Where a woken thread leaves the time it woke, a line per thread.
struct alignas(64) WakeTime {
  std::atomic<std::int64_t> ns{0};  // release: pairs with the main thread's acquire
};

class Sleepers {
 public:
  explicit Sleepers(std::size_t n) : times_(n) {
    for (std::size_t i = 0; i < n; ++i) threads_.push_back(std::make_unique<Thread>(&record));
  }

  // Wakes thread i and returns the ns from just before its wake-up to its clock read.
  std::int64_t wake(std::size_t i) {
    WakeTime& t = times_[i];
    t.ns.store(0, std::memory_order_relaxed);  // the thread is parked: nobody else writes it
    const std::int64_t t0 = now_ns();
    threads_[i]->wake(&t);
    std::int64_t woke = 0;
    while ((woke = t.ns.load(std::memory_order_acquire)) == 0) std::this_thread::yield();
    return woke - t0;
  }

 private:
  using Thread = stealbench::ParkedThread<WakeTime>;
  static void record(WakeTime* t) { t->ns.store(now_ns(), std::memory_order_release); }

  std::vector<WakeTime> times_;
  std::vector<std::unique_ptr<Thread>> threads_;  // destroyed first: joined before times_ goes
};

double pct(std::vector<double>& v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5))];
}

void run(const char* order, std::size_t threads, int samples, std::chrono::microseconds gap, bool rotate) {
  Sleepers sleepers(threads);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // every thread parked
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(samples));
  for (int k = 0; k < samples; ++k) {
    std::this_thread::sleep_for(gap);
    const std::size_t i = rotate ? static_cast<std::size_t>(k) % threads : 0;
    us.push_back(static_cast<double>(sleepers.wake(i)) / 1000.0);
  }
  const double p50 = pct(us, 0.50), p90 = pct(us, 0.90), p99 = pct(us, 0.99), max = us.back();
  std::printf("%-6s %3zu thread(s) %7d samples  p50 %7.1f  p90 %7.1f  p99 %7.1f  max %8.1f us  p99/p50 %.2f\n", order,
              threads, samples, p50, p90, p99, max, p99 / p50);
}

}  // namespace

int main(int argc, char** argv) {
  long long threads = 16, samples = 1000, gap_us = 3000;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "--threads") == 0)
      threads = stealbench::positive_arg(a, stealbench::option_value(argc, argv, i, a), 256);
    else if (std::strcmp(a, "--samples") == 0)
      samples = stealbench::positive_arg(a, stealbench::option_value(argc, argv, i, a), 1'000'000);
    else if (std::strcmp(a, "--gap-us") == 0)
      gap_us = stealbench::positive_arg(a, stealbench::option_value(argc, argv, i, a), 1'000'000);
    else {
      std::fprintf(stderr, "usage: wake_floor [--threads N] [--samples N] [--gap-us N]  ('%s' is not an option)\n", a);
      return 2;
    }
  }
  if (samples < 10) {
    std::fprintf(stderr, "wake_floor: --samples must be at least 10, not %lld\n", samples);
    return 2;
  }
  const auto n = static_cast<std::size_t>(threads);
  const auto count = static_cast<int>(samples);
  const auto gap = std::chrono::microseconds(gap_us);
  run("last", n, count, gap, /*rotate=*/false);
  if (n > 1) run("rotate", n, count, gap, /*rotate=*/true);
}

// wake_floor: the floor under every pool's wake-up, with no pool. N threads each
// sleep on their own Parker (one futex word, platform/parker.hpp); the main
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
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "stealpool/platform/parker.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using stealpool::detail::Parker;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// One sleeping thread's slot: its parker, the request flag and where it leaves
// the time it woke. A line each, so that waking one does not disturb another.
struct alignas(64) Sleeper {
  Parker parker;
  std::atomic<bool> wanted{false};       // set before unpark(); the token's release publishes it
  std::atomic<std::int64_t> woke_ns{0};  // release: pairs with the main thread's acquire
};

class Sleepers {
 public:
  explicit Sleepers(std::size_t n) : slots_(n) {
    threads_.reserve(n);
    for (std::size_t i = 0; i < n; ++i) threads_.emplace_back([this, i] { sleep_loop(slots_[i]); });
  }
  ~Sleepers() {
    stop_.store(true, std::memory_order::relaxed);  // published by each unpark()'s release
    for (Sleeper& s : slots_) s.parker.unpark();
    for (std::thread& t : threads_) t.join();
  }
  Sleepers(const Sleepers&) = delete;
  Sleepers& operator=(const Sleepers&) = delete;

  // Wakes thread i and returns the ns from just before unpark() to its clock read.
  std::int64_t wake(std::size_t i) {
    Sleeper& s = slots_[i];
    s.woke_ns.store(0, std::memory_order::relaxed);  // the thread is parked: nobody else writes it
    s.wanted.store(true, std::memory_order::relaxed);  // published by unpark()'s release
    const std::int64_t t0 = now_ns();
    s.parker.unpark();
    std::int64_t woke = 0;
    while ((woke = s.woke_ns.load(std::memory_order::acquire)) == 0) std::this_thread::yield();
    return woke - t0;
  }

 private:
  void sleep_loop(Sleeper& s) {
    for (;;) {
      (void)s.parker.park(Parker::kForever);  // the token's acquire sees wanted and stop_
      if (stop_.load(std::memory_order::relaxed)) return;
      if (!s.wanted.exchange(false, std::memory_order::relaxed)) continue;  // spurious
      s.woke_ns.store(now_ns(), std::memory_order::release);
    }
  }

  std::vector<Sleeper> slots_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
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

// A whole number in [lo, hi], or false.
bool parse(const char* text, long lo, long hi, long& out) {
  const std::string_view sv(text);
  long v = 0;
  const auto [ptr, ec] = std::from_chars(sv.data(), sv.data() + sv.size(), v);
  if (ec != std::errc{} || ptr != sv.data() + sv.size() || v < lo || v > hi) return false;
  out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  long threads = 16, samples = 1000, gap_us = 3000;
  struct Option {
    const char* name;
    long* value;
    long lo, hi;
  };
  const Option options[] = {
      {"--threads", &threads, 1, 256}, {"--samples", &samples, 10, 1'000'000}, {"--gap-us", &gap_us, 1, 1'000'000}};
  for (int a = 1; a < argc; a += 2) {
    const Option* o = nullptr;
    for (const Option& c : options)
      if (std::strcmp(argv[a], c.name) == 0) o = &c;
    if (o == nullptr || a + 1 >= argc) {
      std::fprintf(stderr, "usage: wake_floor [--threads N] [--samples N] [--gap-us N]  ('%s'%s)\n", argv[a],
                   o == nullptr ? " is not an option" : " needs a value");
      return 2;
    }
    if (!parse(argv[a + 1], o->lo, o->hi, *o->value)) {
      std::fprintf(stderr, "wake_floor: %s must be a whole number from %ld to %ld, not '%s'\n", o->name, o->lo, o->hi,
                   argv[a + 1]);
      return 2;
    }
  }
  const auto gap = std::chrono::microseconds(gap_us);
  const auto n = static_cast<std::size_t>(threads);
  const int count = static_cast<int>(samples);
  run("last", n, count, gap, /*rotate=*/false);
  if (n > 1) run("rotate", n, count, gap, /*rotate=*/true);
}

// handoff_latency: how soon a typed executor's worker starts a task that a
// producer hands it while the worker is awake, the latency that the workers'
// refill wait (engine/core/refill_pacer.hpp) could add. Two patterns, 100,000
// tasks each, one worker (or `handoff_latency N`: N workers):
//   ping-pong   submit one task, wait until it has run, submit the next
//   trickle     submit a task every 2 us, never waiting
// Prints the mean round trip (ping-pong) and the mean submit-to-start time
// (both). A throughput benchmark is stealbench's `throughput` suite.
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "stealpool/stealpool.hpp"

namespace {

using Clock = std::chrono::steady_clock;

long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// A worker count, digits only, 1 to 256.
bool parse_workers(const char* text, std::size_t& out) {
  std::size_t n = 0;
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, n);
  if (ec != std::errc{} || ptr != end || n < 1 || n > 256) return false;
  out = n;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  constexpr int kTasks = 100000;
  std::atomic<long> ran{0};
  std::atomic<long long> waited_ns{0};  // submit to start, summed
  stealpool::ExecutorConfig cfg;
  if (argc > 2) {
    std::fprintf(stderr, "usage: handoff_latency [WORKERS]  (one argument at most)\n");
    return 2;
  }
  if (argc == 2 && !parse_workers(argv[1], cfg.workers)) {
    std::fprintf(stderr, "handoff_latency: WORKERS must be a number from 1 to 256, not '%s'\n", argv[1]);
    return 2;
  }
  stealpool::Executor<long long> ex(cfg, [&](long long submitted, auto&) {
    waited_ns.fetch_add(now_ns() - submitted, std::memory_order::relaxed);
    ran.fetch_add(1, std::memory_order::release);
  });

  const auto start = Clock::now();
  for (int i = 0; i < kTasks; ++i) {
    (void)ex.spawn_external(now_ns());
    while (ran.load(std::memory_order::acquire) != i + 1) {
    }
  }
  const double round_trip = std::chrono::duration<double, std::nano>(Clock::now() - start).count() / kTasks;
  std::printf("ping-pong: %.0f ns a round trip, %.0f ns submit to start\n", round_trip,
              static_cast<double>(waited_ns.load()) / kTasks);

  ran = 0;
  waited_ns = 0;
  for (int i = 0; i < kTasks; ++i) {
    (void)ex.spawn_external(now_ns());
    const auto next = Clock::now() + std::chrono::microseconds(2);
    while (Clock::now() < next) {
    }
  }
  while (ran.load(std::memory_order::acquire) != kTasks) {
  }
  std::printf("trickle, a task every 2 us: %.0f ns submit to start\n", static_cast<double>(waited_ns.load()) / kTasks);
  (void)ex.join();
}

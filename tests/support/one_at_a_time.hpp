// tests/support/one_at_a_time.hpp: the no-lost-wake-up workload shared by the
// unit and stress tests. The pool sleeps with a 1 h park timeout, so only an
// explicit wake-up can wake it; gtest assertions report a stranded task (callers
// test HasFatalFailure(), and run it under a Watchdog: after a lost wake-up the
// executor's join cannot finish either).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <thread>

#include "stealpool/executor.hpp"
#include "test_support.hpp"

namespace sptest {

// Tasks arrive one at a time from outside, each waited for before the next, with
// pauses of pseudo-random length (busy, so they are fine-grained) so that the
// workers are caught in every phase of falling asleep: spinning, yielding,
// between their last failed pop and announcing themselves, re-checking, parked.
// The window that a missing re-check would open is tens of nanoseconds of an idle
// cycle of microseconds, hence many tasks, and spin_iters = 0 to make the cycle
// short (a checked mutant without the re-check hangs here within a few thousand
// tasks). Each task must run.
inline void one_at_a_time(std::size_t workers, std::uint32_t spin_iters, int tasks, bool use_batches) {
  std::atomic<int> done{0};
  stealpool::ExecutorConfig cfg = config_with(workers);
  cfg.park_timeout = std::chrono::hours(1);
  cfg.spin_iters = spin_iters;
  stealpool::Executor<int> ex(cfg, [&](int, auto&) { done.fetch_add(1); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let it fall asleep
  std::uint64_t rng = 0x853c49e6748fea9bull;
  for (int i = 0; i < tasks; ++i) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    static constexpr std::uint64_t kRangesNs[3] = {3'000, 10'000, 30'000};
    if (i % 256 == 255) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // certainly parked
    else busy_pause(std::chrono::nanoseconds((rng >> 8) % kRangesNs[rng % 3]));
    if (use_batches && i % 2 == 0) {
      const int one[1] = {i};
      ASSERT_TRUE(ex.spawn_external_batch(std::span<const int>(one)));
    } else {
      ASSERT_TRUE(ex.spawn_external(i));
    }
    ASSERT_TRUE(wait_until([&] { return done.load() == i + 1; }, std::chrono::seconds(20)))
        << "task " << i << " was never run: a lost wake-up (workers " << workers << ")";
  }
  const stealpool::MetricsSnapshot m = ex.join();
  EXPECT_EQ(m.tasks_executed, static_cast<std::uint64_t>(tasks));
  // With a 1 h timeout no park can time out: every one must end by a wake-up
  // token (a producer's, a sibling's, or join()'s).
  EXPECT_EQ(m.unparks, m.parks) << "a park ended without a wake-up token";
}

}  // namespace sptest

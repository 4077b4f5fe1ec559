// MetricsSnapshot: per-source counts add up to tasks_executed, per_worker has one
// entry per worker summing to the totals, spawn counts match what tasks did, and
// the behaviour counters move when the behaviour happens (stealing, parking).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <thread>
#include <vector>

#include "../support/test_support.hpp"
#include "../support/tree_workload.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using sptest::config_with;

namespace {

void expect_consistent(const sp::MetricsSnapshot& m, std::size_t workers) {
  ASSERT_EQ(m.per_worker.size(), workers);
  sp::WorkerMetrics sum;
  for (std::size_t w = 0; w < workers; ++w) {
    const sp::WorkerMetrics& x = m.per_worker[w];
    EXPECT_EQ(x.tasks_from_local + x.tasks_from_injector + x.tasks_from_steal, x.tasks_executed) << "worker " << w;
    EXPECT_LE(x.steal_successes, x.steal_attempts) << "worker " << w;
    EXPECT_EQ(x.steal_successes, x.tasks_from_steal) << "worker " << w;
    EXPECT_LE(x.unparks, x.parks) << "worker " << w;
    sum += x;
  }
  EXPECT_EQ(sum.tasks_executed, m.tasks_executed);
  EXPECT_EQ(sum.tasks_from_local, m.tasks_from_local);
  EXPECT_EQ(sum.tasks_from_injector, m.tasks_from_injector);
  EXPECT_EQ(sum.tasks_from_steal, m.tasks_from_steal);
  EXPECT_EQ(sum.tasks_failed, m.tasks_failed);
  EXPECT_EQ(sum.steal_attempts, m.steal_attempts);
  EXPECT_EQ(sum.steal_successes, m.steal_successes);
  EXPECT_EQ(sum.parks, m.parks);
  EXPECT_EQ(sum.unparks, m.unparks);
  EXPECT_EQ(sum.local_spawns, m.local_spawns);
  EXPECT_EQ(sum.global_spawns, m.global_spawns);
  EXPECT_EQ(sum.hoard_wakes, m.hoard_wakes);
  EXPECT_EQ(m.tasks_from_local + m.tasks_from_injector + m.tasks_from_steal, m.tasks_executed);
}

TEST(ExecutorMetrics, PerSourceAndPerWorkerCountsAddUpToTheTotals) {
  for (std::size_t workers : {1u, 3u, 8u}) {
    const sptest::TreeResult r = sptest::run_tree(config_with(workers), 20'000);
    expect_consistent(r.metrics, workers);
    EXPECT_EQ(r.metrics.tasks_executed, 39'999u);
    EXPECT_EQ(r.metrics.tasks_failed, 0u);
    EXPECT_EQ(r.metrics.tasks_dropped, 0u);
    if (workers == 1) {
      EXPECT_EQ(r.metrics.steal_attempts, 0u) << "a lone worker has nobody to steal from";
      EXPECT_EQ(r.metrics.tasks_from_steal, 0u);
    }
  }
}

TEST(ExecutorMetrics, SpawnCountsMatchWhatTasksDid) {
  std::atomic<std::uint64_t> did_local{0}, did_global{0};
  sp::Executor<int> ex(config_with(3), [&](int v, sp::WorkerCtx<int, sp::NoScratch>& ctx) {
    if (v <= 0) return;
    if (v % 3 == 0) {
      ctx.spawn_global(v - 1);
      did_global.fetch_add(1);
    } else {
      ctx.spawn_local(v - 1);
      did_local.fetch_add(1);
    }
  });
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(ex.spawn_external(i % 40));
  const sp::MetricsSnapshot m = ex.join();
  expect_consistent(m, 3);
  EXPECT_EQ(m.local_spawns, did_local.load());
  EXPECT_EQ(m.global_spawns, did_global.load());
  EXPECT_EQ(m.tasks_executed, 300 + did_local.load() + did_global.load());
}

// One worker produces only local tasks, each of which waits (bounded) until a
// second worker has run one of them: the other worker can only get them by
// stealing, so steals must happen and be counted.
TEST(ExecutorMetrics, StealingHappensWhenOneWorkerHoardsLocalTasks) {
  sptest::Watchdog dog("StealingHappensWhenOneWorkerHoardsLocalTasks");
  std::atomic<unsigned> participants{0};  // bit w: worker w ran a child
  std::atomic<int> gave_up{0};
  sp::Executor<int> ex(config_with(2), [&](int v, sp::WorkerCtx<int, sp::NoScratch>& ctx) {
    if (v == 0) {
      for (int i = 0; i < 200; ++i) ctx.spawn_local(1);
      return;
    }
    participants.fetch_or(1u << ctx.worker_id());
    if (!sptest::wait_until([&] { return participants.load() == 3u; })) gave_up.fetch_add(1);
  });
  ASSERT_TRUE(ex.spawn_external(0));
  const sp::MetricsSnapshot m = ex.join();
  expect_consistent(m, 2);
  EXPECT_EQ(participants.load(), 3u) << "the second worker never ran a hoarded task";
  EXPECT_EQ(gave_up.load(), 0);
  EXPECT_GE(m.steal_successes, 1u);
  EXPECT_GE(m.tasks_from_steal, 1u);
  EXPECT_EQ(m.local_spawns, 200u);
  EXPECT_EQ(m.tasks_executed, 201u);
}

// Idle workers must go to sleep (not spin forever). How soon depends on the
// machine's load, so the idle period grows over a few attempts; the test fails
// only if no attempt saw every worker park.
TEST(ExecutorMetrics, IdleWorkersPark) {
  bool all_parked = false;
  for (int attempt = 0; attempt < 5 && !all_parked; ++attempt) {
    sp::Executor<int> ex(config_with(2), [](int, auto&) {});
    std::this_thread::sleep_for(std::chrono::milliseconds(100) * (1 << attempt));  // nothing to do
    const sp::MetricsSnapshot m = ex.join();
    expect_consistent(m, 2);
    EXPECT_EQ(m.tasks_executed, 0u);
    all_parked = m.per_worker[0].parks >= 1 && m.per_worker[1].parks >= 1;
  }
  EXPECT_TRUE(all_parked) << "idle workers never went to sleep";
}

TEST(ExecutorMetrics, JoinOfAnIdlePoolReportsNoWork) {
  sp::Executor<int> ex(config_with(4), [](int, auto&) {});
  const sp::MetricsSnapshot m = ex.join();
  expect_consistent(m, 4);
  EXPECT_EQ(m.tasks_executed, 0u);
  EXPECT_EQ(m.local_spawns + m.global_spawns, 0u);
  EXPECT_EQ(m.tasks_dropped, 0u);
}

}  // namespace

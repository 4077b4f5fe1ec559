// Executor: every accepted task runs exactly once (seed 000, "work-conserving"
// and "termination detection"): external tasks, recursive trees on 1..32
// workers, children spawned while join() drains, spawns racing join(), a task
// that re-enqueues itself with a cursor, and visibility across spawn and join.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "../support/test_support.hpp"
#include "../support/spawn_race.hpp"
#include "../support/tree_workload.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using sptest::config_with;

namespace {

TEST(Executor, RunsEveryExternallySpawnedTaskOnce) {
  constexpr int kTasks = 10000;
  std::vector<std::atomic<int>> runs(kTasks);
  sp::Executor<int> ex(config_with(2), [&](int i, auto&) { runs[i].fetch_add(1, std::memory_order::relaxed); });
  for (int i = 0; i < kTasks; ++i) ASSERT_TRUE(ex.spawn_external(i));
  sp::MetricsSnapshot m = ex.join();
  for (int i = 0; i < kTasks; ++i) ASSERT_EQ(runs[i].load(), 1) << "task " << i;
  EXPECT_EQ(m.tasks_executed, static_cast<std::uint64_t>(kTasks));
  EXPECT_EQ(m.tasks_from_local + m.tasks_from_injector + m.tasks_from_steal, m.tasks_executed);
  EXPECT_EQ(m.tasks_dropped, 0u);
}

class RecursiveTree : public ::testing::TestWithParam<std::size_t> {};

TEST_P(RecursiveTree, RunsEveryTaskExactlyOnce) {
  sptest::Watchdog dog("RecursiveTree.RunsEveryTaskExactlyOnce", std::chrono::seconds(120));
  constexpr std::uint32_t kLeaves = 50'000;  // 99,999 tasks
  const sptest::TreeResult r = sptest::run_tree(config_with(GetParam()), kLeaves);
  EXPECT_EQ(r.leaves_not_once, 0u) << "leaves that did not run exactly once";
  EXPECT_EQ(r.leaves, kLeaves);
  EXPECT_EQ(r.tasks, 2ull * kLeaves - 1);
  EXPECT_EQ(r.checksum, std::uint64_t{kLeaves} * (kLeaves - 1) / 2);
  EXPECT_EQ(r.metrics.tasks_executed, 2ull * kLeaves - 1);
  EXPECT_EQ(r.metrics.local_spawns, r.local_spawns);
  EXPECT_EQ(r.metrics.global_spawns, r.global_spawns);
  EXPECT_EQ(r.metrics.local_spawns + r.metrics.global_spawns + 1, r.metrics.tasks_executed);
  EXPECT_EQ(r.metrics.tasks_dropped, 0u);
  EXPECT_EQ(r.metrics.per_worker.size(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Workers, RecursiveTree, ::testing::Values(1, 2, 8, 32),
                         [](const auto& info) { return sptest::worker_count_name(info.param); });

// [invariant 2] Spawns from a running task are accepted while join() drains, and
// join() returns only after those children (local and global) have run.
TEST(Executor, JoinWaitsForChildrenSpawnedDuringTheDrain) {
  sptest::Watchdog dog("JoinWaitsForChildrenSpawnedDuringTheDrain");
  for (std::size_t workers : {1u, 2u, 4u}) {
    std::atomic<int> children{0};
    std::atomic<bool> saw_gate_closed{false};
    std::atomic<int> external_from_task_accepted{0};
    sp::Executor<int> ex(config_with(workers), [&](int depth, sp::WorkerCtx<int, sp::NoScratch>& ctx) {
      if (depth == 0) {
        // Wait (bounded) until join() has closed the gate, then fork.
        saw_gate_closed = sptest::wait_until([&] { return !ctx.handle().is_accepting(); });
        for (int i = 0; i < 50; ++i) (i % 2 ? ctx.spawn_local(1) : ctx.spawn_global(1));
        return;
      }
      children.fetch_add(1);
      if (depth < 3) {
        ctx.spawn_local(depth + 1);
        ctx.spawn_global(depth + 1);
      }
      // A handle spawn is external: the closed gate rejects it.
      if (ctx.handle().spawn(100)) external_from_task_accepted.fetch_add(1);
    });
    ASSERT_TRUE(ex.spawn_external(0));
    const sp::MetricsSnapshot m = ex.join();
    EXPECT_TRUE(saw_gate_closed.load());
    // 50 children at depth 1, each with 2 at depth 2, each with 2 at depth 3.
    EXPECT_EQ(children.load(), 50 + 100 + 200) << "workers " << workers;
    EXPECT_EQ(external_from_task_accepted.load(), 0);
    EXPECT_EQ(m.tasks_executed, 351u);
    EXPECT_EQ(m.tasks_dropped, 0u);
  }
}

TEST(Executor, SpawnRacingJoinNeverLosesOrDuplicatesATask) {
  sptest::Watchdog dog("SpawnRacingJoinNeverLosesOrDuplicatesATask", std::chrono::seconds(120));
  const int rounds = static_cast<int>(sptest::scaled(200, 10));
  int raced = 0;  // rounds in which the gate refused some spawns (for the XML report)
  for (int round = 0; round < rounds; ++round) {
    std::uint64_t rejected = 0;
    sptest::spawn_racing_join_round(round % 3 == 0 ? 1 : 2, /*batches=*/round % 2 == 1, 3000, 3, &rejected);
    if (HasFatalFailure()) FAIL() << "round " << round;
    raced += rejected > 0;
  }
  RecordProperty("rounds_with_rejections", raced);
}

// A long task splits itself: after each unit it asks its EveryN policy and, on
// true, re-enqueues its continuation (with its cursor) via spawn_local.
struct CursorTask {
  std::uint32_t job;
  std::uint32_t cursor;
  sp::EveryN policy;
};
static_assert(sp::detail::TaskBox<CursorTask>::kInline, "a small trivially copyable task travels by value");

TEST(Executor, SelfReenqueueingTaskWithEveryNProcessesEveryUnitOnce) {
  constexpr std::uint32_t kJobs = 16, kUnits = 1000;
  std::vector<std::atomic<std::uint8_t>> done(kJobs * kUnits);
  std::atomic<std::uint64_t> continuations{0};
  sp::Executor<CursorTask> ex(config_with(3), [&](CursorTask t, sp::WorkerCtx<CursorTask, sp::NoScratch>& ctx) {
    t.policy.reset();  // a new slice on resumption
    while (t.cursor < kUnits) {
      done[t.job * kUnits + t.cursor].fetch_add(1, std::memory_order::relaxed);
      ++t.cursor;
      if (t.cursor < kUnits && t.policy.should_yield()) {
        continuations.fetch_add(1, std::memory_order::relaxed);
        ctx.spawn_local(t);
        return;
      }
    }
  });
  for (std::uint32_t j = 0; j < kJobs; ++j) ASSERT_TRUE(ex.spawn_external(CursorTask{j, 0, sp::EveryN(7 + j)}));
  const sp::MetricsSnapshot m = ex.join();
  for (std::size_t i = 0; i < done.size(); ++i) ASSERT_EQ(done[i].load(), 1) << "job " << i / kUnits << " unit " << i % kUnits;
  std::uint64_t expected_continuations = 0;
  for (std::uint32_t j = 0; j < kJobs; ++j) expected_continuations += (kUnits - 1) / (7 + j);
  EXPECT_EQ(continuations.load(), expected_continuations);
  EXPECT_EQ(m.tasks_executed, kJobs + expected_continuations);
}

// [invariant 7] Plain writes before a spawn are visible in the task; the task's
// plain writes are visible after join() (TSan checks the happens-before edges).
TEST(Executor, WritesBeforeSpawnAreVisibleInTaskAndTaskWritesAfterJoin) {
  constexpr int kTasks = 2000;
  std::vector<int> input(kTasks, 0), output(kTasks, 0);
  sp::Executor<int> ex(config_with(2), [&](int i, sp::WorkerCtx<int, sp::NoScratch>& ctx) {
    if (i < 0) {  // a forwarder: publishes and spawns locally
      const int j = -i - 1;
      input[j] = j * 3 + 1;
      ctx.spawn_local(j);
      return;
    }
    output[i] = input[i] * 2;
  });
  for (int i = 0; i < kTasks; ++i) {
    if (i % 2 == 0) {
      input[i] = i * 3 + 1;
      ASSERT_TRUE(ex.spawn_external(i));
    } else {
      ASSERT_TRUE(ex.spawn_external(-i - 1));
    }
  }
  (void)ex.join();
  for (int i = 0; i < kTasks; ++i) ASSERT_EQ(output[i], (i * 3 + 1) * 2) << "task " << i;
}

TEST(Executor, ThirtyTwoWorkersOnFewCoresCompleteAWorkload) {
  sptest::Watchdog dog("ThirtyTwoWorkersOnFewCoresCompleteAWorkload");
  const int kTasks = static_cast<int>(sptest::scaled(20000, 2000));
  std::vector<std::atomic<std::uint8_t>> runs(kTasks);
  std::vector<std::atomic<std::uint8_t>> worker_seen(32);
  sp::Executor<int> ex(config_with(32), [&](int i, sp::WorkerCtx<int, sp::NoScratch>& ctx) {
    runs[i].fetch_add(1, std::memory_order::relaxed);
    worker_seen[ctx.worker_id()].store(1, std::memory_order::relaxed);
  });
  std::vector<int> batch(kTasks);
  for (int i = 0; i < kTasks; ++i) batch[i] = i;
  ASSERT_TRUE(ex.spawn_external_batch(std::span<const int>(batch)));
  const sp::MetricsSnapshot m = ex.join();
  for (int i = 0; i < kTasks; ++i) ASSERT_EQ(runs[i].load(), 1) << "task " << i;
  EXPECT_EQ(m.tasks_executed, static_cast<std::uint64_t>(kTasks));
  EXPECT_EQ(m.per_worker.size(), 32u);
}

TEST(Executor, AnExecutorCanBeCreatedAndJoinedInsideAnotherExecutorsTask) {
  sptest::Watchdog dog("NestedExecutor");
  std::atomic<int> inner_runs{0};
  std::atomic<bool> inner_ok{false};
  sp::Executor<int> outer(config_with(2), [&](int, auto&) {
    sp::Executor<int> inner(config_with(2), [&](int, auto&) { inner_runs.fetch_add(1); });
    for (int i = 0; i < 100; ++i) (void)inner.spawn_external(i);
    inner_ok = inner.join().tasks_executed == 100;
  });
  ASSERT_TRUE(outer.spawn_external(0));
  (void)outer.join();
  EXPECT_EQ(inner_runs.load(), 100);
  EXPECT_TRUE(inner_ok.load());
}

}  // namespace

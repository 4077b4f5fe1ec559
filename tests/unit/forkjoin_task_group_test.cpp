// stealpool::TaskGroup: spawning and waiting from outside and inside workers,
// N-queens by groups, nested groups, the waiting destructor, exceptions (many at
// once; the group is reusable afterwards), cancel() and is_cancelled().
// wait_isolated() has its own file (forkjoin_isolation_test.cpp).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../support/forkjoin_workloads.hpp"
#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using namespace std::chrono_literals;

namespace {

using sptest::unpinned;
using sptest::worker_count_name;


// --- spawning and waiting ----------------------------------------------------

TEST(ForkJoinTaskGroup, FromOutsideEveryTaskRunsOnAPoolWorkerBeforeWaitReturns) {
  sptest::Watchdog dog("ForkJoinTaskGroup.FromOutside");
  sp::ThreadPool pool(unpinned(2));
  std::atomic<int> ran{0}, off_pool{0};
  sp::TaskGroup tg(pool);
  for (int i = 0; i < 200; ++i)
    tg.spawn([&] {
      if (sp::detail::current_executor() != &pool.shared()) off_pool.fetch_add(1);
      ran.fetch_add(1);
    });
  EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
  EXPECT_EQ(ran.load(), 200);
  EXPECT_EQ(off_pool.load(), 0);
}

TEST(ForkJoinTaskGroup, DefaultConstructedOutsideAnyPoolUsesTheDefaultPool) {
  sptest::Watchdog dog("ForkJoinTaskGroup.DefaultPool");
  std::atomic<int> ran{0}, off_pool{0};
  sp::TaskGroup tg;
  for (int i = 0; i < 50; ++i)
    tg.spawn([&] {
      if (sp::detail::current_executor() != &sp::default_pool().shared()) off_pool.fetch_add(1);
      ran.fetch_add(1);
    });
  EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
  EXPECT_EQ(ran.load(), 50);
  EXPECT_EQ(off_pool.load(), 0);
}

TEST(ForkJoinTaskGroup, DefaultConstructedInsideAWorkerUsesThatWorkersPool) {
  sptest::Watchdog dog("ForkJoinTaskGroup.InsideWorker");
  sp::ThreadPool pool(unpinned(3));
  std::atomic<int> ran{0}, off_pool{0};
  pool.run([&] {
    sp::TaskGroup tg;
    for (int i = 0; i < 100; ++i)
      tg.spawn([&] {
        if (sp::detail::current_executor() != &pool.shared()) off_pool.fetch_add(1);
        ran.fetch_add(1);
      });
    EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
    EXPECT_EQ(ran.load(), 100);  // checked on the waiting worker: wait() published the tasks' writes
  });
  EXPECT_EQ(off_pool.load(), 0);
}

TEST(ForkJoinTaskGroup, NQueensWithATaskGroupPerRowCountsEverySolutionForOneToTwelve) {
  sptest::Watchdog dog("ForkJoinTaskGroup.NQueens");
  sp::ThreadPool pool(unpinned(2));
  for (int n = 1; n <= 12; ++n)
    EXPECT_EQ(pool.run([n] { return sptest::nqueens_group(n); }), sptest::kQueens[static_cast<std::size_t>(n)])
        << "n = " << n;
}

TEST(ForkJoinTaskGroup, WaitCoversTasksSpawnedIntoTheGroupByItsOwnTasks) {
  sptest::Watchdog dog("ForkJoinTaskGroup.SelfSpawning");
  for (std::size_t workers : {1, 3}) {
    sp::ThreadPool pool(unpinned(workers));
    std::atomic<int> ran{0};
    sp::TaskGroup tg(pool);
    // A binary tree of 2^10 - 1 tasks, all in one group.
    std::function<void(int)> node = [&](int depth) {
      ran.fetch_add(1);
      if (depth < 9) {
        tg.spawn([&, depth] { node(depth + 1); });
        tg.spawn([&, depth] { node(depth + 1); });
      }
    };
    tg.spawn([&] { node(0); });
    EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
    EXPECT_EQ(ran.load(), 1023) << workers << " workers";
  }
}

// A worker's wait runs its own deque's jobs only while its group is pending:
// the outer group's task, pushed below the inner group's, is left for the
// outer wait. (A wait that drained the whole deque would run an outer frame's
// work on top of the inner one, and nest a tree's breadth on one stack.)
TEST(ForkJoinTaskGroup, AnInnerWaitLeavesTheOuterGroupsTaskOnTheDeque) {
  sptest::Watchdog dog("ForkJoinTaskGroup.InnerWaitStops");
  sp::ThreadPool pool(unpinned(1));  // one worker: nobody else can take the outer task
  pool.run([] {
    std::vector<int> order;
    sp::TaskGroup outer;
    outer.spawn([&] { order.push_back(1); });
    sp::TaskGroup inner;
    inner.spawn([&] { order.push_back(2); });
    inner.spawn([&] { order.push_back(3); });
    EXPECT_EQ(inner.wait(), sp::TaskGroupStatus::complete);
    EXPECT_EQ(order, (std::vector<int>{3, 2}));  // the inner tasks, newest first, and nothing else
    EXPECT_EQ(outer.wait(), sp::TaskGroupStatus::complete);
    EXPECT_EQ(order, (std::vector<int>{3, 2, 1}));
  });
}

TEST(ForkJoinTaskGroup, SeveralThreadsSpawnIntoOneGroupWhileItRuns) {
  sptest::Watchdog dog("ForkJoinTaskGroup.ManySpawners");
  sp::ThreadPool pool(unpinned(2));
  std::atomic<int> ran{0};
  sp::TaskGroup tg(pool);
  std::vector<std::function<void()>> spawners;
  for (int t = 0; t < 3; ++t)
    spawners.emplace_back([&] {
      for (int i = 0; i < 300; ++i) tg.spawn([&] { ran.fetch_add(1); });
    });
  sptest::run_concurrently(std::move(spawners));
  EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
  EXPECT_EQ(ran.load(), 900);
}

// The group's creator (a worker) counts its own spawns privately
// (forkjoin/group_count.hpp). A thread that is not a worker waits on the group
// while its tasks, running on the creator's thread, keep spawning into it:
// spawns the waiter never folded in. It must be woken, fold them, and return
// only when they are all done.
TEST(ForkJoinTaskGroup, AWaiterOffTheCreatorsThreadCoversWhatTheCreatorSpawnsMeanwhile) {
  sptest::Watchdog dog("ForkJoinTaskGroup.ForeignWaiter");
  for (std::size_t workers : {1, 3}) {
    sp::ThreadPool pool(unpinned(workers));
    std::atomic<int> ran{0};
    std::unique_ptr<sp::TaskGroup> tg;
    std::function<void(int)> task = [&](int depth) {
      std::this_thread::sleep_for(200us);  // the waiter is asleep by now
      if (depth < 3) {
        tg->spawn([&, depth] { task(depth + 1); });
        tg->spawn([&, depth] { task(depth + 1); });
      }
      ran.fetch_add(1);
    };
    pool.run([&] {
      tg = std::make_unique<sp::TaskGroup>();  // created on a worker: its owner
      for (int i = 0; i < 4; ++i) tg->spawn([&] { task(0); });
    });  // run() returns with the tasks still queued on the owner's deque
    EXPECT_EQ(tg->wait(), sp::TaskGroupStatus::complete);
    EXPECT_EQ(ran.load(), 4 * 15) << workers << " workers";  // 4 trees of 1 + 2 + 4 + 8
  }
}

// The same with the waiter a worker other than the creator: a task of another
// group waits, so it helps instead of blocking.
TEST(ForkJoinTaskGroup, AGroupCreatedOnOneWorkerCanBeWaitedFromATaskOnAnother) {
  sptest::Watchdog dog("ForkJoinTaskGroup.WaitedElsewhere");
  sp::ThreadPool pool(unpinned(3));
  std::atomic<int> ran{0};
  std::atomic<bool> waited{false};
  pool.run([&] {
    sp::TaskGroup tg;
    for (int i = 0; i < 200; ++i)
      tg.spawn([&] {
        std::this_thread::sleep_for(10us);
        ran.fetch_add(1);
      });
    sp::TaskGroup other;
    other.spawn([&] {
      EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
      EXPECT_EQ(ran.load(), 200);
      waited.store(true);
    });
    EXPECT_EQ(other.wait(), sp::TaskGroupStatus::complete);
  });  // the first group's destructor waited again: nothing left
  EXPECT_TRUE(waited.load());
}

TEST(ForkJoinTaskGroup, DestructorWaitsForEveryTask) {
  sptest::Watchdog dog("ForkJoinTaskGroup.Destructor");
  sp::ThreadPool pool(unpinned(2));
  std::atomic<int> ran{0};
  {
    sp::TaskGroup tg(pool);
    for (int i = 0; i < 20; ++i)
      tg.spawn([&] {
        std::this_thread::sleep_for(1ms);
        ran.fetch_add(1);
      });
  }
  EXPECT_EQ(ran.load(), 20);
  pool.run([&] {
    {
      sp::TaskGroup tg;
      for (int i = 0; i < 20; ++i) tg.spawn([&] { ran.fetch_add(1); });
    }
    EXPECT_EQ(ran.load(), 40);
  });
}

TEST(ForkJoinTaskGroup, MoveOnlyCallablesAreMovedIntoTheirTask) {
  sp::ThreadPool pool(unpinned(2));
  std::atomic<int> sum{0};
  sp::TaskGroup tg(pool);
  for (int i = 0; i < 10; ++i) tg.spawn([p = std::make_unique<int>(i), &sum] { sum.fetch_add(*p); });
  EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
  EXPECT_EQ(sum.load(), 45);
}

// A worker of pool A waiting on a group of pool B blocks (it does not run B's
// tasks, nor A's): B's workers do the work.
TEST(ForkJoinTaskGroup, AGroupOfAnotherPoolWaitedFromAWorkerCompletes) {
  sptest::Watchdog dog("ForkJoinTaskGroup.OtherPool");
  sp::ThreadPool a(unpinned(1)), b(unpinned(2));
  std::atomic<int> on_b{0};
  a.run([&] {
    sp::TaskGroup tg(b);
    for (int i = 0; i < 50; ++i)
      tg.spawn([&] {
        if (sp::detail::current_executor() == &b.shared()) on_b.fetch_add(1);
      });
    EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
  });
  EXPECT_EQ(on_b.load(), 50);
}

// --- exceptions ----------------------------------------------------------------

TEST(ForkJoinTaskGroup, ManyTasksThrowingAtOnceRethrowOneOfThemAndTheGroupIsReusable) {
  sptest::Watchdog dog("ForkJoinTaskGroup.ManyThrow");
  sp::ThreadPool pool(unpinned(4));
  sp::TaskGroup tg(pool);
  std::atomic<int> arrived{0};
  constexpr int kTasks = 64;
  for (int i = 0; i < kTasks; ++i)
    tg.spawn([&, i] {
      // The first four meet before throwing, so that several throw together
      // (bounded: a failure to meet only makes the throws less simultaneous).
      if (arrived.fetch_add(1) < 4) (void)sptest::wait_until([&] { return arrived.load() >= 4; }, 5s);
      throw std::runtime_error(std::to_string(i));
    });
  try {
    (void)tg.wait();
    ADD_FAILURE() << "wait() did not rethrow";
  } catch (const std::runtime_error& e) {
    const int i = std::stoi(e.what());
    EXPECT_GE(i, 0);
    EXPECT_LT(i, kTasks);
  }
  // Reusable: empty, not cancelled, no stale exception.
  std::atomic<int> ran{0};
  for (int i = 0; i < kTasks; ++i) tg.spawn([&] { ran.fetch_add(1); });
  EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
  EXPECT_EQ(ran.load(), kTasks);
  EXPECT_FALSE(tg.is_cancelled());
}

TEST(ForkJoinTaskGroup, AnExceptionInsideAWorkerWaitIsRethrownThere) {
  sptest::Watchdog dog("ForkJoinTaskGroup.ThrowInside");
  sp::ThreadPool pool(unpinned(2));
  bool caught = false;
  pool.run([&] {
    sp::TaskGroup tg;
    for (int i = 0; i < 30; ++i)
      tg.spawn([i] {
        if (i == 7) throw std::logic_error("seven");
      });
    try {
      (void)tg.wait();
    } catch (const std::logic_error& e) {
      caught = std::string(e.what()) == "seven";
    }
  });
  EXPECT_TRUE(caught);
}

// --- cancel -------------------------------------------------------------------

// One worker, tasks injected in order: the first blocks until cancel() has been
// called, so every later task is still queued at that moment.
TEST(ForkJoinTaskGroup, CancelSkipsTasksNotYetStartedAndWaitReportsCancelled) {
  sptest::Watchdog dog("ForkJoinTaskGroup.Cancel");
  sp::ThreadPool pool(unpinned(1));
  sp::TaskGroup tg(pool);
  std::atomic<bool> first_started{false}, release{false};
  std::atomic<int> later_ran{0};
  tg.spawn([&] {
    first_started.store(true);
    (void)sptest::wait_until([&] { return release.load(); });
  });
  for (int i = 0; i < 100; ++i) tg.spawn([&] { later_ran.fetch_add(1); });
  ASSERT_TRUE(sptest::wait_until([&] { return first_started.load(); }));
  tg.cancel();
  EXPECT_TRUE(tg.is_cancelled());
  release.store(true);
  EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::cancelled);
  EXPECT_EQ(later_ran.load(), 0) << "tasks queued before cancel() still ran";
  // The next round starts uncancelled.
  EXPECT_FALSE(tg.is_cancelled());
  tg.spawn([&] { later_ran.fetch_add(1); });
  EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
  EXPECT_EQ(later_ran.load(), 1);
}

TEST(ForkJoinTaskGroup, AThrowingTaskCancelsTheTasksQueuedAfterIt) {
  sptest::Watchdog dog("ForkJoinTaskGroup.ThrowCancels");
  sp::ThreadPool pool(unpinned(1));
  sp::TaskGroup tg(pool);
  std::atomic<int> later_ran{0};
  tg.spawn([] { throw std::runtime_error("first"); });
  for (int i = 0; i < 100; ++i) tg.spawn([&] { later_ran.fetch_add(1); });
  EXPECT_THROW((void)tg.wait(), std::runtime_error);
  EXPECT_EQ(later_ran.load(), 0);
  EXPECT_FALSE(tg.is_cancelled());
}

TEST(ForkJoinTaskGroup, ATaskCancellingItsGroupSkipsTheRest) {
  sptest::Watchdog dog("ForkJoinTaskGroup.TaskCancels");
  sp::ThreadPool pool(unpinned(1));
  sp::TaskGroup tg(pool);
  std::atomic<int> later_ran{0};
  tg.spawn([&] { tg.cancel(); });
  for (int i = 0; i < 100; ++i) tg.spawn([&] { later_ran.fetch_add(1); });
  EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::cancelled);
  EXPECT_EQ(later_ran.load(), 0);
}

// A group's tasks spawned on a worker while its siblings sleep all start once
// it waits: each of W tasks waits until all W have started. Before wait()
// published them, only the first push was public, a sleeper never asks for
// private work, and 2 or 3 ran at once, on 4 or 8 workers alike.
TEST(ForkJoinTaskGroup, TasksSpawnedWhileSiblingsSleepAllStartAtOnce) {
  sptest::Watchdog dog("ForkJoinTaskGroup.SiblingsSleep");
  for (std::size_t workers : {4, 8}) {
    sp::ThreadPool pool(unpinned(workers));
    for (int round = 0; round < 5; ++round) {
      // Asleep for longer than the timed parks last (200 us doubling 6 times,
      // 25 ms): parked with no timeout, so none wakes by itself meanwhile. (A
      // sibling that does, and asks while the spawner runs a task, is served
      // after it: forkjoin/README.md, "Long tasks: when pushed work becomes stealable".)
      ASSERT_TRUE(sptest::wait_until([&] {
        if (pool.shared().sleep.sleeping_hint() != workers) return false;
        std::this_thread::sleep_for(100ms);
        return pool.shared().sleep.sleeping_hint() == workers;
      })) << "the pool never fell asleep";
      sptest::StartTogether tasks(workers);
      pool.run([&] {  // wakes one worker: the others sleep through the spawns
        sp::TaskGroup tg;
        for (std::size_t i = 0; i < workers; ++i) tg.spawn([&] { tasks.arrive_and_wait(); });
        (void)tg.wait();
      });
      ASSERT_FALSE(tasks.gave_up()) << workers << " workers, round " << round << ": only "
                                    << tasks.arrived_at_give_up() << " tasks started within 20 s";
    }
  }
}

TEST(ForkJoinTaskGroup, RunningTasksObserveIsCancelled) {
  sptest::Watchdog dog("ForkJoinTaskGroup.IsCancelled");
  for (std::size_t workers : {1, 2}) {
    sp::ThreadPool pool(unpinned(workers));
    sp::TaskGroup tg(pool);
    std::atomic<int> started{0}, saw_cancel{0};
    const int tasks = static_cast<int>(workers);
    for (int i = 0; i < tasks; ++i)
      tg.spawn([&] {
        started.fetch_add(1);
        if (sptest::wait_until([&] { return tg.is_cancelled(); })) saw_cancel.fetch_add(1);
      });
    ASSERT_TRUE(sptest::wait_until([&] { return started.load() == tasks; }));
    tg.cancel();
    EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::cancelled);
    EXPECT_EQ(saw_cancel.load(), tasks) << workers << " workers";
  }
}

}  // namespace

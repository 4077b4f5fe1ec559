// TaskGroup::wait_isolated(): the waiting worker never runs a job of another
// group (nor any other unrelated job) while it waits, steps over such jobs on its
// own deque, leaves a pending join branch for afterwards, and, nested waits
// included, still completes on one worker.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>

#include "../support/forkjoin_workloads.hpp"
#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using namespace std::chrono_literals;

namespace {

using sptest::unpinned;
using sptest::worker_count_name;


// Set while the calling thread is inside an isolated wait of a test group.
thread_local int tl_isolated_depth = 0;

// Outer tasks; half of them wait isolated on a group G of their own (whose tasks
// also join and nest a group, jobs "created under" the isolated wait), the other
// half wait plainly on a group H. Every job that is not G's (outer tasks, H's
// tasks) checks it is not run by a thread inside an isolated wait.
TEST(ForkJoinIsolation, WaitIsolatedNeverRunsAJobOfAnotherGroup) {
  sptest::Watchdog dog("ForkJoinIsolation.Isolated");
  for (std::size_t workers : {1, 2, 4}) {
    sp::ThreadPool pool(unpinned(workers));
    std::atomic<int> violations{0}, g_ran{0}, h_ran{0}, outer_ran{0};
    const auto check = [&] {
      if (tl_isolated_depth != 0) violations.fetch_add(1);
    };
    constexpr int kOuter = 40, kInner = 8;
    pool.run([&] {
      sp::TaskGroup outer;
      for (int i = 0; i < kOuter; ++i)
        outer.spawn([&, i] {
          check();
          outer_ran.fetch_add(1);
          if (i % 2 == 0) {
            sp::TaskGroup g;
            for (int j = 0; j < kInner; ++j)
              g.spawn([&] {
                auto [a, b] = sp::join([] { return sptest::fib_join(9); }, [] { return sptest::fib_join(8); });
                sp::TaskGroup nested;  // created under the isolated wait: its tasks are G's
                nested.spawn([] { (void)sptest::fib_join(6); });
                (void)nested.wait();
                if (a + b == sptest::fib_serial(10)) g_ran.fetch_add(1);
              });
            ++tl_isolated_depth;
            EXPECT_EQ(g.wait_isolated(), sp::TaskGroupStatus::complete);
            --tl_isolated_depth;
          } else {
            sp::TaskGroup h;
            for (int j = 0; j < kInner; ++j)
              h.spawn([&] {
                check();
                (void)sptest::fib_join(10);
                h_ran.fetch_add(1);
              });
            EXPECT_EQ(h.wait(), sp::TaskGroupStatus::complete);
          }
        });
      EXPECT_EQ(outer.wait(), sp::TaskGroupStatus::complete);
    });
    EXPECT_EQ(violations.load(), 0) << workers << " workers: a job of another group ran inside an isolated wait";
    EXPECT_EQ(outer_ran.load(), kOuter);
    EXPECT_EQ(g_ran.load(), kOuter / 2 * kInner);
    EXPECT_EQ(h_ran.load(), kOuter / 2 * kInner);
  }
}

// One worker: another group's task sits on top of the waiter's own deque. The
// isolated wait must step over it (to the injector), finish its own group, and
// leave the other task for later.
TEST(ForkJoinIsolation, WaitIsolatedOnOneWorkerCompletesPastAnotherGroupsTaskOnItsDeque) {
  sptest::Watchdog dog("ForkJoinIsolation.IsolatedOneWorker");
  sp::ThreadPool pool(unpinned(1));
  std::atomic<int> g_ran{0}, h_ran{0};
  int h_ran_during_isolated_wait = -1;
  pool.run([&] {
    sp::TaskGroup g, h;
    for (int i = 0; i < 5; ++i) g.spawn([&] { g_ran.fetch_add(1); });
    h.spawn([&] { h_ran.fetch_add(1); });  // on top of g's tasks
    EXPECT_EQ(g.wait_isolated(), sp::TaskGroupStatus::complete);
    EXPECT_EQ(g_ran.load(), 5);
    h_ran_during_isolated_wait = h_ran.load();
    EXPECT_EQ(h.wait(), sp::TaskGroupStatus::complete);
  });
  EXPECT_EQ(h_ran_during_isolated_wait, 0);
  EXPECT_EQ(h_ran.load(), 1);
}

// One worker: the pending second branch of a join sits under the group's tasks.
// The isolated wait inside branch a must not run it; the join still completes.
TEST(ForkJoinIsolation, WaitIsolatedInsideAJoinLeavesThePendingBranchForAfterwards) {
  sptest::Watchdog dog("ForkJoinIsolation.IsolatedInJoin");
  sp::ThreadPool pool(unpinned(1));
  std::atomic<bool> b_ran{false};
  bool b_ran_during_wait = true;
  auto [x, y] = pool.run([&] {
    return sp::join(
        [&] {
          sp::TaskGroup g;
          std::atomic<int> n{0};
          for (int i = 0; i < 4; ++i) g.spawn([&] { n.fetch_add(1); });
          (void)g.wait_isolated();
          b_ran_during_wait = b_ran.load();
          return n.load();
        },
        [&] {
          b_ran.store(true);
          return 1;
        });
  });
  EXPECT_FALSE(b_ran_during_wait);
  EXPECT_EQ(x, 4);
  EXPECT_EQ(y, 1);
}

// Waits nested in an isolated wait stay isolated, and run only jobs tagged with
// the isolated group. Two ways for a job that the isolated group's own task waits
// for to carry another tag; with one worker nobody else can run it, and both hang
// today (see the report). Death tests: a watchdog in the child turns the hang
// into an abort.

// (1) A task of G spawns into a group H created outside the isolated wait, and
// waits for H: H's task is tagged H, so the (isolated) wait moves it to the
// injector instead of running it, forever.
void isolated_task_waits_on_an_outer_group() {
  sptest::Watchdog dog("a G task waiting on an outer group inside G.wait_isolated()", 5s);
  sp::ThreadPool pool(unpinned(1));
  const int got = pool.run([] {
    sp::TaskGroup h;  // outside the isolated wait
    sp::TaskGroup g;
    int value = 0;
    g.spawn([&] {
      h.spawn([&] { value = 1; });
      (void)h.wait();
    });
    (void)g.wait_isolated();
    return value;
  });
  std::exit(got == 1 ? 0 : 1);
}

TEST(ForkJoinIsolationDeathTest, ATaskOfAnIsolatedGroupCanWaitOnAGroupCreatedOutsideIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(isolated_task_waits_on_an_outer_group(), ::testing::ExitedWithCode(0), "");
}

// (2) A task of G calls into pool B, whose job calls back into A (the pools
// calling into each other that run() promises not to deadlock): the call-back job
// is injected untagged, so A's only worker, isolated on G, never runs it.
void isolated_task_calls_back_through_another_pool() {
  sptest::Watchdog dog("A -> B -> A call-back from inside A's G.wait_isolated()", 5s);
  sp::ThreadPool a(unpinned(1)), b(unpinned(1));
  const int got = a.run([&] {
    sp::TaskGroup g;
    int value = 0;
    g.spawn([&] { value = b.run([&] { return a.run([] { return 5; }); }); });
    (void)g.wait_isolated();
    return value;
  });
  std::exit(got == 5 ? 0 : 1);
}

// A known limitation (forkjoin/README.md, "Isolated waits"): a job another pool
// injects (run() from that pool's worker) carries no isolation tag, so a pool's
// only worker, isolated, does not run the call-back. With two workers it passes.
TEST(ForkJoinIsolationDeathTest, DISABLED_ATaskOfAnIsolatedGroupCanCallIntoAnotherPoolThatCallsBack) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(isolated_task_calls_back_through_another_pool(), ::testing::ExitedWithCode(0), "");
}

TEST(ForkJoinIsolation, WaitIsolatedFromOutsideBlocksLikeWait) {
  sptest::Watchdog dog("ForkJoinIsolation.IsolatedOutside");
  sp::ThreadPool pool(unpinned(2));
  std::atomic<int> ran{0};
  sp::TaskGroup tg(pool);
  for (int i = 0; i < 30; ++i) tg.spawn([&] { ran.fetch_add(1); });
  EXPECT_EQ(tg.wait_isolated(), sp::TaskGroupStatus::complete);
  EXPECT_EQ(ran.load(), 30);
}

}  // namespace

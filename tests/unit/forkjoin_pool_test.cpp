// stealpool::ThreadPool: run() (inline on its own workers, rethrowing, between
// pools that call into each other), pools destroyed while idle, pool sizes 1 to
// 32 on fib / N-queens / TaskGroup, and PoolOptions (thread names, start/stop
// hooks, hooks that throw, the default size, zero workers).
#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
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



// --- run() ----------------------------------------------------------------------

TEST(ForkJoinPool, RunFromOutsideRunsOnAWorkerAndReturnsItsResult) {
  sptest::Watchdog dog("ForkJoinPool.RunOutside");
  sp::ThreadPool pool(unpinned(2));
  const auto caller = std::this_thread::get_id();
  auto [on_worker, other_thread] = pool.run([&] {
    return std::pair{sp::detail::current_executor() == &pool.shared(), std::this_thread::get_id() != caller};
  });
  EXPECT_TRUE(on_worker);
  EXPECT_TRUE(other_thread);
  int side = 0;
  pool.run([&] { side = 5; });  // void
  EXPECT_EQ(side, 5);
}

TEST(ForkJoinPool, RunFromAWorkerOfTheSamePoolIsAnInlineCall) {
  sptest::Watchdog dog("ForkJoinPool.RunInline");
  sp::ThreadPool pool(unpinned(2));
  const bool same = pool.run([&] {
    const auto outer = std::this_thread::get_id();
    return pool.run([&] { return std::this_thread::get_id(); }) == outer;
  });
  EXPECT_TRUE(same);
  // Also from inside a join branch and a TaskGroup task, wherever they run.
  std::atomic<int> mismatches{0};
  pool.run([&] {
    sp::TaskGroup tg;
    for (int i = 0; i < 20; ++i)
      tg.spawn([&] {
        auto [a, b] = sp::join(
            [&] { return pool.run([] { return std::this_thread::get_id(); }) == std::this_thread::get_id(); },
            [&] { return pool.run([] { return std::this_thread::get_id(); }) == std::this_thread::get_id(); });
        if (!a || !b) mismatches.fetch_add(1);
      });
    (void)tg.wait();
  });
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(ForkJoinPool, RunRethrowsFromOutsideInlineAndAcrossPools) {
  sptest::Watchdog dog("ForkJoinPool.RunRethrows");
  sp::ThreadPool a(unpinned(2)), b(unpinned(1));
  EXPECT_THROW(a.run([]() -> int { throw std::out_of_range("outside"); }), std::out_of_range);
  bool inline_caught = false, cross_caught = false;
  a.run([&] {
    try {
      a.run([] { throw std::out_of_range("inline"); });
    } catch (const std::out_of_range&) {
      inline_caught = true;
    }
    try {
      b.run([] { throw std::out_of_range("cross"); });
    } catch (const std::out_of_range& e) {
      cross_caught = std::string(e.what()) == "cross";
    }
  });
  EXPECT_TRUE(inline_caught);
  EXPECT_TRUE(cross_caught);
  EXPECT_EQ(a.run([] { return 3; }), 3) << "the pool must stay usable after a job threw";
  EXPECT_EQ(b.run([] { return 4; }), 4);
}

// Pool A's job calls B.run, whose job calls A.run, and so on (`hops` times):
// each waiting worker must keep running its own pool's jobs.
int hop(sp::ThreadPool& a, sp::ThreadPool& b, int hops) {
  if (hops == 0) return 0;
  sp::ThreadPool& next = hops % 2 == 1 ? a : b;
  return next.run([&] { return hop(a, b, hops - 1) + 1; });
}

struct PoolPair {
  std::size_t a, b;
};

class ForkJoinCrossPool : public ::testing::TestWithParam<PoolPair> {};

TEST_P(ForkJoinCrossPool, PoolsCallingIntoEachOtherDoNotDeadlock) {
  sptest::Watchdog dog("ForkJoinCrossPool.CallEachOther");
  sp::ThreadPool a(unpinned(GetParam().a)), b(unpinned(GetParam().b));
  // A -> B -> A, as in the issue.
  const int v = a.run([&] { return b.run([&] { return a.run([] { return 7; }); }); });
  EXPECT_EQ(v, 7);
  EXPECT_EQ(hop(a, b, 12), 12);
  // Several outside threads ping-ponging at once, with joins at every hop.
  std::atomic<int> wrong{0};
  std::vector<std::function<void()>> callers;
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        const int hops = 3 + (t + i) % 6;
        const int got = a.run([&] {
          auto [x, y] = sp::join([&] { return hop(a, b, hops); }, [&] { return hop(b, a, hops); });
          return x + y;
        });
        if (got != 2 * hops) wrong.fetch_add(1);
      }
    });
  sptest::run_concurrently(std::move(callers));
  EXPECT_EQ(wrong.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Sizes, ForkJoinCrossPool,
                         ::testing::Values(PoolPair{1, 1}, PoolPair{2, 2}, PoolPair{1, 2}, PoolPair{2, 1}),
                         [](const auto& info) {
                           std::string name = "A";  // built with +=: g++ 12's -Wrestrict misfires on "A" + string
                           name += std::to_string(info.param.a);
                           name += "B";
                           name += std::to_string(info.param.b);
                           return name;
                         });

// --- lifetime -------------------------------------------------------------------

TEST(ForkJoinPool, PoolsDestroyedWhileIdleShutDownCleanly) {
  sptest::Watchdog dog("ForkJoinPool.DestroyedIdle");
  const int rounds = static_cast<int>(sptest::scaled(40, 8));
  for (int r = 0; r < rounds; ++r) {
    sp::ThreadPool pool(unpinned(1 + static_cast<std::size_t>(r % 4)));
    if (r % 2 == 1) {
      EXPECT_EQ(pool.run([] { return sptest::fib_join(10); }), 55);
    }
    // Long enough for the workers to spin out and park; the longest (33 ms) past
    // the park-timeout doubling (200 us * (1 + 2 + ... + 64)), into untimed parks.
    std::this_thread::sleep_for(std::chrono::milliseconds(1 + 8 * (r % 5)));
  }
}

// --- pool sizes -----------------------------------------------------------------

class ForkJoinPoolSize : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ForkJoinPoolSize, FibNQueensAndTaskGroupsGiveTheRightResults) {
  sptest::Watchdog dog("ForkJoinPoolSize.Workloads", 120s);
  sp::ThreadPool pool(GetParam());  // the public constructor: pinned as by default
  ASSERT_EQ(pool.workers(), GetParam());
  const bool slow = sptest::stress_scale() > 1;
  for (int n : {20, 24}) EXPECT_EQ(pool.run([n] { return sptest::fib_join(n); }), sptest::fib_serial(n)) << n;
  if (!slow) {
    EXPECT_EQ(pool.run([] { return sptest::fib_join(27); }), sptest::fib_serial(27));
  }
  for (int n = 1; n <= (slow ? 10 : 12); ++n) {
    EXPECT_EQ(pool.run([n] { return sptest::nqueens_join(n); }), sptest::kQueens[static_cast<std::size_t>(n)]) << n;
    EXPECT_EQ(pool.run([n] { return sptest::nqueens_group(n); }), sptest::kQueens[static_cast<std::size_t>(n)]) << n;
  }
  std::atomic<int> ran{0};
  sp::TaskGroup tg(pool);
  for (int i = 0; i < 1000; ++i) tg.spawn([&] { ran.fetch_add(1); });
  EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
  EXPECT_EQ(ran.load(), 1000);
}

INSTANTIATE_TEST_SUITE_P(Workers, ForkJoinPoolSize, ::testing::Values(1, 2, 8, 32),
                         [](const auto& info) { return worker_count_name(info.param); });

// --- PoolOptions ----------------------------------------------------------------

TEST(ForkJoinPoolOptions, DefaultPoolHasAvailableParallelismWorkers) {
  sptest::Watchdog dog("ForkJoinPoolOptions.Default");
  sp::ThreadPool pool;
  EXPECT_EQ(pool.workers(), sp::available_parallelism());
  EXPECT_EQ(sp::PoolOptions{}.config.workers, sp::available_parallelism());
  EXPECT_EQ(sp::default_pool().workers(), sp::available_parallelism());
}

TEST(ForkJoinPoolOptions, ZeroWorkersThrowsInvalidArgument) {
  EXPECT_THROW(sp::ThreadPool(0), std::invalid_argument);
  EXPECT_THROW(sp::ThreadPool(sp::PoolOptions::with_workers(0)), std::invalid_argument);
}

TEST(ForkJoinPoolOptions, WorkersAreNamedAfterTheOption) {
  sptest::Watchdog dog("ForkJoinPoolOptions.Names");
  sp::PoolOptions o = unpinned(3);
  o.threads.name = "fjname";
  std::mutex mu;
  std::vector<std::string> from_hook(3);
  o.threads.on_start = [&](std::size_t id) {
    std::lock_guard<std::mutex> lock(mu);
    from_hook.at(id) = sptest::current_thread_name();
  };
  std::vector<std::string> from_jobs;
  {
    sp::ThreadPool pool(o);
    pool.run([&] {
      sp::TaskGroup tg;
      for (int i = 0; i < 30; ++i)
        tg.spawn([&] {
          const std::string want = "fjname-" + std::to_string(sp::current_worker_id().value_or(999));
          const std::string got = sptest::current_thread_name();
          std::lock_guard<std::mutex> lock(mu);
          if (got != want) from_jobs.push_back(got + " (want " + want + ")");
        });
      (void)tg.wait();
    });
  }
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(from_hook[i], "fjname-" + std::to_string(i));
  EXPECT_TRUE(from_jobs.empty()) << "a job saw the name " << from_jobs.front();
}

TEST(ForkJoinPoolOptions, StartAndStopHooksRunOncePerWorkerWithIdsZeroToNMinusOne) {
  sptest::Watchdog dog("ForkJoinPoolOptions.Hooks");
  for (std::size_t n : {1, 2, 5}) {
    std::mutex mu;
    std::vector<std::size_t> started, stopped;
    std::vector<bool> start_on_own_thread;
    sp::PoolOptions o = unpinned(n);
    o.threads.on_start = [&](std::size_t id) {
      std::lock_guard<std::mutex> lock(mu);
      started.push_back(id);
      start_on_own_thread.push_back(sp::current_worker_id() == id);
    };
    o.threads.on_stop = [&](std::size_t id) {
      std::lock_guard<std::mutex> lock(mu);
      stopped.push_back(id);
    };
    {
      sp::ThreadPool pool(o);
      EXPECT_EQ(pool.run([] { return sptest::fib_join(12); }), 144);
    }
    std::vector<std::size_t> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = i;
    std::sort(started.begin(), started.end());
    std::sort(stopped.begin(), stopped.end());
    EXPECT_EQ(started, want) << n << " workers";
    EXPECT_EQ(stopped, want) << n << " workers";
    EXPECT_EQ(std::count(start_on_own_thread.begin(), start_on_own_thread.end(), true), static_cast<long>(n))
        << "on_start(id) must run on worker id's own thread";
  }
}

// Observed: an on_stop hook that throws is recorded like a task exception and
// discarded by the pool's destructor (thread_options.hpp); nothing else happens.
TEST(ForkJoinPoolOptions, AThrowingStopHookIsDiscardedByTheDestructor) {
  sptest::Watchdog dog("ForkJoinPoolOptions.StopHookThrows");
  sp::PoolOptions o = unpinned(2);
  std::atomic<int> stops{0};
  o.threads.on_stop = [&](std::size_t) {
    stops.fetch_add(1);
    throw std::runtime_error("on_stop");
  };
  {
    sp::ThreadPool pool(o);
    EXPECT_EQ(pool.run([] { return 1; }), 1);
  }
  EXPECT_EQ(stops.load(), 2);
}

// An on_start hook that throws would stop the engine and strand any job already
// accepted (a run() caller would block for good), so the constructor waits for
// every worker's start and rethrows the hook's exception: no pool, no stranded job.
TEST(ForkJoinPoolOptions, AStartHookThatThrowsMakesTheConstructorRethrowIt) {
  sptest::Watchdog dog("ForkJoinPoolOptions.StartHookThrows");
  sp::PoolOptions o = unpinned(2);
  o.threads.on_start = [](std::size_t id) {
    if (id == 1) throw std::runtime_error("on_start 1");
  };
  try {
    sp::ThreadPool pool(o);
    FAIL() << "the constructor returned";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "on_start 1");
  }
}

// A slow start hook delays the constructor, not the jobs: run() right after
// construction finds every worker started.
TEST(ForkJoinPoolOptions, TheConstructorReturnsOnlyOnceEveryStartHookHasRun) {
  sptest::Watchdog dog("ForkJoinPoolOptions.SlowStartHook");
  std::atomic<int> started{0};
  sp::PoolOptions o = unpinned(4);
  o.threads.on_start = [&](std::size_t) {
    std::this_thread::sleep_for(20ms);
    started.fetch_add(1);
  };
  sp::ThreadPool pool(o);
  EXPECT_EQ(started.load(), 4);
  EXPECT_EQ(pool.run([] { return 7; }), 7);
}

// Destroying a pool from inside one of its own jobs cannot work (the worker
// would have to join itself): the program stops with a message that names the
// mistake, not std::terminate's bare "without an active exception".
TEST(ForkJoinPoolDeathTest, DestroyingThePoolFromItsOwnJobStopsWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto* pool = new sp::ThreadPool(unpinned(2));
        pool->run([pool] { delete pool; });
      },
      "destroyed from inside one of its own tasks");
}

TEST(ExecutorDeathTest, DestroyingTheExecutorFromItsOwnTaskStopsWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        sp::ExecutorConfig cfg;
        cfg.pin_threads = false;
        std::atomic<sp::Executor<int>*> self{nullptr};
        auto* ex = new sp::Executor<int>(cfg, [&](int, auto&) { delete self.load(); });
        self.store(ex);
        (void)ex->spawn_external(1);
        std::this_thread::sleep_for(std::chrono::seconds(30));  // the task stops the program first
      },
      "destroyed from inside one of its own tasks");
}

}  // namespace

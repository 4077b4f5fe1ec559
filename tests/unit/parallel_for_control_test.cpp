// parallel_for and parallel_for_range: edge cases (an empty range calls nothing,
// first > last throws std::invalid_argument naming both), exceptions (the first
// reaches the caller after every running body returned, and no new indices are
// handed out) and nesting (loops in loop bodies, in join() branches, in
// TaskGroup tasks, at the leaves of a join tree). Coverage, index types and where
// loops run: parallel_for_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../support/forkjoin_workloads.hpp"
#include "../support/loop_support.hpp"
#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using namespace std::chrono_literals;
using sptest::Part;

namespace {

using sptest::IndexError;
using sptest::LoopParam;
using sptest::loop_param_name;
using sptest::loop_params;

// --- edge cases ----------------------------------------------------------------

TEST(ParallelForEdges, EmptyRangeCallsNothingThroughEveryOverload) {
  sptest::Watchdog dog("ParallelForEdges.Empty");
  std::atomic<int> calls{0};
  auto body = [&](int) { calls.fetch_add(1); };
  auto range = [&](int, int) { calls.fetch_add(1); };
  sp::ThreadPool& pool = sptest::loop_pool(2);
  for (Part part : sptest::kAllParts)
    sptest::with_partitioner(part, [&](auto p) {
      for (int at : {0, -7, 1 << 30}) {
        sp::parallel_for(pool, at, at, body, p);
        sp::parallel_for(pool, at, at, 4, body, p);
        sp::parallel_for(at, at, body, p);
        sp::parallel_for(at, at, 4, body, p);
        sp::parallel_for_range(pool, at, at, range, p);
        sp::parallel_for_range(pool, at, at, 4, range, p);
        sp::parallel_for_range(at, at, range, p);
        sp::parallel_for_range(at, at, 4, range, p);
        pool.run([&] { sp::parallel_for(at, at, body, p); });
      }
    });
  sp::parallel_for(std::size_t{5}, std::size_t{5}, [&](std::size_t) { calls.fetch_add(1); });
  EXPECT_EQ(calls.load(), 0);
}

TEST(ParallelForEdges, FirstAfterLastThrowsInvalidArgumentNamingBothAndCallsNothing) {
  sptest::Watchdog dog("ParallelForEdges.Reversed");
  std::atomic<int> calls{0};
  auto expect_named = [](const std::function<void()>& f, const std::string& first, const std::string& last,
                         const std::string& what) {
    try {
      f();
      ADD_FAILURE() << what << ": no exception";
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(first), std::string::npos) << what << ": \"" << msg << "\" does not name first";
      EXPECT_NE(msg.find(last), std::string::npos) << what << ": \"" << msg << "\" does not name last";
    }
  };
  sp::ThreadPool& pool = sptest::loop_pool(2);
  for (Part part : sptest::kAllParts)
    sptest::with_partitioner(part, [&](auto p) {
      const std::string what = sptest::part_name(part);
      auto body = [&](int) { calls.fetch_add(1); };
      expect_named([&] { sp::parallel_for(pool, 5, -3, body, p); }, "5", "-3", what + " explicit pool");
      expect_named([&] { sp::parallel_for(12, 11, 2, body, p); }, "12", "11", what + " default pool");
      expect_named([&] { sp::parallel_for_range(pool, 1, 0, [&](int, int) { calls.fetch_add(1); }, p); }, "1",
                   "0", what + " range");
      expect_named([&] { pool.run([&] { sp::parallel_for(-1, -2, body, p); }); }, "-1", "-2",
                   what + " from a worker");
      expect_named([&] { sp::parallel_for(std::size_t{10}, std::size_t{2}, [](std::size_t) {}, p); }, "10", "2",
                   what + " size_t");
    });
  EXPECT_EQ(calls.load(), 0);
}

// --- exceptions ----------------------------------------------------------------

class ParallelForExceptions : public sptest::LoopTest {};

TEST_P(ParallelForExceptions, TheThrowingBodysExceptionReachesTheCallerAndThePoolStaysUsable) {
  sptest::Watchdog dog("ParallelForExceptions.Reaches");
  const long n = 5000;
  for (long k : {0L, 1L, n / 2, n - 1}) {
    for (long grain : {1L, 64L}) {
      try {
        with_part([&](auto p) {
          sp::parallel_for(pool(), 0L, n, grain, [&](long i) {
            if (i == k) throw IndexError(i);
          }, p);
        });
        ADD_FAILURE() << "no exception, k = " << k;
      } catch (const IndexError& e) {
        EXPECT_EQ(e.index, k);
      }
    }
  }
  sptest::VisitCounter seen(1000);
  with_part([&](auto p) { sp::parallel_for(pool(), 0, 1000, [&](int i) { seen.visit(i); }, p); });
  EXPECT_EQ(seen.exactly_once(), "") << "after the exceptions";
}

TEST_P(ParallelForExceptions, WhenEveryBodyThrowsOneExceptionReachesTheCaller) {
  sptest::Watchdog dog("ParallelForExceptions.Every");
  for (int rep = 0; rep < 20; ++rep) {
    with_part([&](auto p) {
      EXPECT_THROW(sp::parallel_for(pool(), 0, 3000, 1, [](int i) { throw IndexError(i); }, p), IndexError);
      EXPECT_THROW(sp::parallel_for_range(pool(), 0, 3000, 7, [](int b, int) { throw IndexError(b); }, p),
                   IndexError);
    });
  }
}

// On one worker everything is sequential: the indices visited are exactly
// [0, k] (no new index after the throw), whatever the partitioner.
class ParallelForExceptionsOneWorker : public ParallelForExceptions {};

TEST_P(ParallelForExceptionsOneWorker, NothingAfterTheThrowingIndexRuns) {
  const int n = 4000;
  for (int k : {0, 1, 999, n / 2, n / 2 + 3, n - 1})
    for (int grain : {1, 16}) {
      sptest::VisitCounter seen(n);
      with_part([&](auto p) {
        EXPECT_THROW(sp::parallel_for(pool(), 0, n, grain,
                                      [&](int i) {
                                        seen.visit(i);
                                        if (i == k) throw IndexError(i);
                                      },
                                      p),
                     IndexError);
      });
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(seen.count(static_cast<std::size_t>(i)), i <= k ? 1u : 0u)
            << "index " << i << ", throw at " << k << ", grain " << grain;
    }
}

// With several workers the throw at index 0 stops the hand-out: far fewer than n
// bodies run. Not for the static partitioner: it hands each worker its whole
// part at once, and a part already started runs to its end (by design).
class ParallelForExceptionsBalancing : public ParallelForExceptions {};

TEST_P(ParallelForExceptionsBalancing, AThrowStopsTheHandOutOfNewIndices) {
  sptest::Watchdog dog("ParallelForExceptions.Stops");
  const int n = 20'000;  // not scaled: the bound below needs the bodies to outlast a time slice
  // How many bodies start before the stop is seen depends on how long the
  // throwing thread runs before it records the exception. With a core per
  // worker that is microseconds; with more workers than cores it can be
  // descheduled for a time slice while the others keep going (CI once saw 1630
  // of 4000 under ASan with 8 workers on 2 cores). So the tight bound holds only
  // without oversubscription; beyond it, the hand-out must still stop early.
  // Another test on the same cores (ctest -j2) can deschedule the thrower too:
  // the tight bound gets up to 3 runs, and fails only if every run misses it
  // (a hand-out that does not stop runs nearly all n bodies every time).
  const bool oversubscribed = GetParam().workers > std::max(1u, std::thread::hardware_concurrency());
  const int bound = oversubscribed ? n : n / 4;
  std::vector<int> runs;
  for (int attempt = 0; attempt < 3 && (runs.empty() || runs.back() >= bound); ++attempt) {
    std::atomic<int> ran{0};
    with_part([&](auto p) {
      EXPECT_THROW(sp::parallel_for(pool(), 0, n, 1,
                                    [&](int i) {
                                      ran.fetch_add(1);
                                      if (i == 0) throw IndexError(i);
                                      sptest::busy_pause(2us);
                                    },
                                    p),
                   IndexError);
    });
    runs.push_back(ran.load());
  }
  EXPECT_LT(runs.back(), bound) << "bodies kept being called after index 0 threw; bodies run in each try: "
                                << ::testing::PrintToString(runs);
}

// Index n/2 starts a part (every partitioner, 2 and 8 workers). Index 0 waits until
// that body runs elsewhere, then throws while it still sleeps: the exception must
// reach the caller only after that body returned.
class ParallelForExceptionsConcurrent : public ParallelForExceptions {};

TEST_P(ParallelForExceptionsConcurrent, TheExceptionReachesTheCallerAfterEveryRunningBodyReturned) {
  sptest::Watchdog dog("ParallelForExceptions.AfterRunning");
  const int n = 8000;
  // Index 0 waits for index n/2 to start elsewhere: nothing may run inline
  // first (the caller's probe would run index 0 before anything is published).
  sptest::CutoffScope publish(sptest::CutoffScope::kPublishAtOnce);
  for (int rep = 0; rep < 3; ++rep) {
    std::atomic<bool> slow_started{false}, slow_done{false};
    bool started_at_rethrow = false, done_at_rethrow = false;
    try {
      with_part([&](auto p) {
        sp::parallel_for(pool(), 0, n, 1, [&](int i) {
          if (i == 0) {
            (void)sptest::wait_until([&] { return slow_started.load(); }, 5s);
            throw IndexError(0);
          }
          if (i == n / 2) {
            slow_started.store(true);
            std::this_thread::sleep_for(30ms);
            slow_done.store(true);
          }
        }, p);
      });
      ADD_FAILURE() << "no exception";
    } catch (const IndexError&) {
      started_at_rethrow = slow_started.load();
      done_at_rethrow = slow_done.load();
    }
    EXPECT_TRUE(started_at_rethrow) << "rep " << rep << ": index n/2 never ran beside index 0 (vacuous)";
    if (started_at_rethrow) {
      EXPECT_TRUE(done_at_rethrow) << "rep " << rep << ": rethrown while a body still ran";
    }
  }
}

TEST_P(ParallelForExceptions, AnExceptionInAnInnerLoopReachesTheOuterCaller) {
  sptest::Watchdog dog("ParallelForExceptions.Inner");
  std::atomic<int> outer_calls{0};
  with_part([&](auto p) {
    EXPECT_THROW(sp::parallel_for(pool(), 0, 64, 1,
                                  [&](int r) {
                                    outer_calls.fetch_add(1);
                                    sp::parallel_for(0, 64, [&](int c) {
                                      if (r == 5 && c == 40) throw IndexError(r * 64 + c);
                                    }, p);
                                  },
                                  p),
                 IndexError);
  });
  EXPECT_GE(outer_calls.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(AllPartitioners, ParallelForExceptions, ::testing::ValuesIn(loop_params({1, 2, 8})),
                         loop_param_name);
INSTANTIATE_TEST_SUITE_P(AllPartitioners, ParallelForExceptionsOneWorker, ::testing::ValuesIn(loop_params({1})),
                         loop_param_name);
INSTANTIATE_TEST_SUITE_P(AllPartitioners, ParallelForExceptionsConcurrent, ::testing::ValuesIn(loop_params({2, 8})),
                         loop_param_name);
INSTANTIATE_TEST_SUITE_P(StealingAndAdaptive, ParallelForExceptionsBalancing,
                         ::testing::Values(LoopParam{1, Part::stealing}, LoopParam{1, Part::adaptive},
                                           LoopParam{2, Part::stealing}, LoopParam{2, Part::adaptive},
                                           LoopParam{8, Part::stealing}, LoopParam{8, Part::adaptive}),
                         loop_param_name);

TEST(ParallelForExceptionsOutside, ReachTheCallingThreadFromTheDefaultPool) {
  sptest::Watchdog dog("ParallelForExceptionsOutside");
  ASSERT_FALSE(sp::current_worker_id().has_value());
  EXPECT_THROW(sp::parallel_for(0, 1000, [](int i) {
    if (i == 500) throw IndexError(i);
  }), IndexError);
  EXPECT_THROW(sp::parallel_for_range(0, 1000, [](int b, int e) {
    if (b <= 999 && 999 < e) throw IndexError(999);
  }), IndexError);
}

// --- nesting ---------------------------------------------------------------------

class ParallelForNesting : public ::testing::TestWithParam<LoopParam> {
 protected:
  sp::ThreadPool& pool() const { return sptest::loop_pool(GetParam().workers); }
};

// A grid: the outer loop over rows with this test's partitioner, the inner
// loop over columns (on the same pool, no pool argument) with each partitioner.
TEST_P(ParallelForNesting, LoopsInsideLoopBodiesVisitEveryCellOnce) {
  sptest::Watchdog dog("ParallelForNesting.Grid");
  const int rows = static_cast<int>(sptest::scaled(300, 60)), cols = 301;
  for (Part inner : sptest::kAllParts) {
    sptest::VisitCounter seen(static_cast<std::size_t>(rows * cols));
    std::atomic<int> foreign{0};
    const void* mine = &pool().shared();
    const std::thread::id caller = std::this_thread::get_id();  // the outer loop's caller takes part
    sptest::with_partitioner(GetParam().part, [&](auto outer_p) {
      sp::parallel_for(pool(), 0, rows, [&](int r) {
        sptest::with_partitioner(inner, [&](auto inner_p) {
          sp::parallel_for(0, cols, [&](int c) {
            const void* ex = sp::detail::current_executor();
            if (ex != mine && !(ex == nullptr && std::this_thread::get_id() == caller)) foreign.fetch_add(1);
            seen.visit(r * cols + c);
          }, inner_p);
        });
      }, outer_p);
    });
    EXPECT_EQ(seen.exactly_once(), "") << "inner " << sptest::part_name(inner);
    EXPECT_EQ(foreign.load(), 0) << "inner bodies ran off the outer loop's pool";
  }
}

TEST_P(ParallelForNesting, ThreeLevelsDeepWithRangeLoopsInside) {
  sptest::Watchdog dog("ParallelForNesting.ThreeLevels");
  const int a = 12, b = 13, c = static_cast<int>(sptest::scaled(200, 40));
  sptest::VisitCounter seen(static_cast<std::size_t>(a * b * c));
  sptest::with_partitioner(GetParam().part, [&](auto p) {
    sp::parallel_for(pool(), 0, a, [&](int i) {
      sp::parallel_for(0, b, [&](int j) {
        sp::parallel_for_range(0, c, 3, [&](int lo, int hi) {
          for (int k = lo; k < hi; ++k) seen.visit((i * b + j) * c + k);
        }, p);
      }, p);
    }, p);
  });
  EXPECT_EQ(seen.exactly_once(), "");
}

TEST_P(ParallelForNesting, LoopsInsideJoinBranchesAndTaskGroupTasks) {
  sptest::Watchdog dog("ParallelForNesting.JoinAndTaskGroup");
  const int n = static_cast<int>(sptest::scaled(20'000, 2'000));
  sptest::VisitCounter seen(static_cast<std::size_t>(4 * n));
  sptest::with_partitioner(GetParam().part, [&](auto p) {
    pool().run([&] {
      (void)sp::join([&] { sp::parallel_for(0, n, [&](int i) { seen.visit(i); }, p); },
                     [&] { sp::parallel_for(n, 2 * n, [&](int i) { seen.visit(i); }, p); });
      sp::TaskGroup tg;
      tg.spawn([&] { sp::parallel_for(2 * n, 3 * n, [&](int i) { seen.visit(i); }, p); });
      tg.spawn([&] { sp::parallel_for_range(3 * n, 4 * n, [&](int lo, int hi) {
        for (int i = lo; i < hi; ++i) seen.visit(i);
      }, p); });
      EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
    });
  });
  EXPECT_EQ(seen.exactly_once(), "");
}

// A join tree (fib-shaped) whose every leaf runs a small loop.
TEST_P(ParallelForNesting, LoopsAtTheLeavesOfARecursiveJoinTree) {
  sptest::Watchdog dog("ParallelForNesting.JoinTree");
  std::atomic<long> total{0};
  std::function<void(int)> walk;
  sptest::with_partitioner(GetParam().part, [&](auto p) {
    walk = [&, p](int d) {
      if (d < 2) {
        sp::parallel_for(0, 50, [&](int i) { total.fetch_add(i); }, p);
        return;
      }
      (void)sp::join([&] { walk(d - 1); }, [&] { walk(d - 2); });
    };
  });
  pool().run([&] { walk(14); });
  EXPECT_EQ(total.load(), sptest::fib_serial(15) * (49 * 50 / 2));
}

INSTANTIATE_TEST_SUITE_P(AllPartitioners, ParallelForNesting, ::testing::ValuesIn(loop_params({1, 2, 8})),
                         loop_param_name);

}  // namespace

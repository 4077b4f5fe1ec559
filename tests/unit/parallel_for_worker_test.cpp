// Loops called on a worker of their pool (algorithms/loop_parts.hpp, run_loop;
// algorithms/README.md, "Loops on a worker probe too"): the worker runs the
// loop alone up to the inline cutoff (one worker: all of it), then splits the
// rest among the pool's workers, itself included. Covered, on 1, 2, 8 and 32
// workers (8 and 32 oversubscribe the machine) and every partitioner: every
// index exactly once for every cutoff, with and without the pool argument;
// below the cutoff every body on the calling worker, range chunks within the
// grain; past it, the rest split among all the workers; an exception in the
// probe reaches the caller and leaves the pool usable. Behaviour only: no
// timings.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>

#include "../support/loop_support.hpp"
#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using namespace std::chrono_literals;
using sptest::CutoffScope;
using sptest::IndexError;
using sptest::LoopParam;

namespace {

class ParallelForOnAWorker : public sptest::LoopTest {};

TEST_P(ParallelForOnAWorker, EveryIndexExactlyOnceForEveryCutoff) {
  sptest::Watchdog dog("ParallelForOnAWorker.Coverage");
  for (std::uint64_t cutoff : CutoffScope::kAll) {
    CutoffScope scope(cutoff);
    for (int grain : {0, 1, 7})
      for (int n : {1, 2, 97, 10007, static_cast<int>(sptest::scaled(200'003, 20'011))})
        for (bool pool_argument : {false, true}) {
          sptest::VisitCounter seen(static_cast<std::size_t>(n));
          auto visit = [&](int i) { seen.visit(i); };
          pool().run([&] {
            with_part([&](auto p) {
              if (pool_argument) sp::parallel_for(pool(), 0, n, grain, visit, p);
              else sp::parallel_for(0, n, grain, visit, p);
            });
          });
          ASSERT_EQ(seen.exactly_once(), "") << CutoffScope::name(cutoff) << ", n = " << n << ", grain " << grain
                                             << (pool_argument ? ", pool given" : ", no pool");
        }
  }
}

// Bodies of 1 us: 20 ms of work, which idle workers would share if any of it
// were published.
TEST_P(ParallelForOnAWorker, BelowTheCutoffEveryBodyRunsOnTheCallingWorker) {
  sptest::Watchdog dog("ParallelForOnAWorker.Inline");
  CutoffScope scope(CutoffScope::kAlwaysInline);
  const int n = 20'000;
  std::atomic<int> elsewhere{0};
  sptest::VisitCounter seen(static_cast<std::size_t>(n));
  sptest::ChunkLog log;
  pool().run([&] {
    const std::thread::id me = std::this_thread::get_id();
    with_part([&](auto p) {
      sp::parallel_for(0, n, 3, [&](int i) {
        if (std::this_thread::get_id() != me) elsewhere.fetch_add(1);
        seen.visit(i);
        sptest::busy_pause(1us);
      }, p);
      // The range form keeps its promise inline: no chunk over the grain.
      sp::parallel_for_range(0L, 5000L, 3L, [&](long b, long e) {
        if (std::this_thread::get_id() != me) elsewhere.fetch_add(1);
        log.add(0L, b, e);
      }, p);
    });
  });
  EXPECT_EQ(seen.exactly_once(), "");
  EXPECT_EQ(log.covers(5000), "");
  EXPECT_LE(log.largest(), 3u);
  EXPECT_EQ(elsewhere.load(), 0) << "bodies ran off the calling worker below the cutoff";
}

// Past the cutoff the rest is split among all the workers. Index 0 takes 20 us,
// so the probe (default cutoff) stops after it, on the calling worker; the
// other W indices, one part each, wait until all W have started, which only
// W workers at once can do (20 s, then the test gives up).
TEST_P(ParallelForOnAWorker, PastTheCutoffTheRestIsSplitAmongAllWorkers) {
  const std::size_t workers = GetParam().workers;  // no structured binding: lambdas capture these
  if (workers == 1) GTEST_SKIP() << "one worker: nobody else to split with";
  sptest::Watchdog dog("ParallelForOnAWorker.Rest");
  for (int round = 0; round < 5; ++round) {
    sptest::StartTogether parts(workers);
    std::atomic<bool> first_here{false};
    pool().run([&] {
      const std::thread::id me = std::this_thread::get_id();
      with_part([&](auto p) {
        sp::parallel_for(std::size_t{0}, workers + 1, std::size_t{1}, [&](std::size_t i) {
          if (i == 0) {
            first_here.store(std::this_thread::get_id() == me);
            sptest::busy_pause(20us);
          } else {
            parts.arrive_and_wait();
          }
        }, p);
      });
    });
    ASSERT_FALSE(parts.gave_up()) << "round " << round << ": only " << parts.arrived_at_give_up() << " of " << workers
                                  << " parts started within 20 s";
    EXPECT_TRUE(first_here.load()) << "the probe runs index 0 on the calling worker";
  }
}

TEST_P(ParallelForOnAWorker, AnExceptionInTheProbeReachesTheCallerAndThePoolGoesOn) {
  sptest::Watchdog dog("ParallelForOnAWorker.Exception");
  CutoffScope scope(CutoffScope::kAlwaysInline);
  std::atomic<int> ran{0};
  try {
    pool().run([&] {
      with_part([&](auto p) {
        sp::parallel_for(0, 5000, 1, [&](int i) {
          ran.fetch_add(1);
          if (i == 10) throw IndexError(i);
        }, p);
      });
    });
    ADD_FAILURE() << "the body's exception was lost";
  } catch (const IndexError& e) {
    EXPECT_EQ(e.index, 10);
  }
  EXPECT_EQ(ran.load(), 11) << "the probe runs in order and stops at the first exception";
  sptest::VisitCounter seen(3000);
  pool().run([&] { with_part([&](auto p) { sp::parallel_for(0, 3000, [&](int i) { seen.visit(i); }, p); }); });
  EXPECT_EQ(seen.exactly_once(), "") << "after the exception";
}

INSTANTIATE_TEST_SUITE_P(AllPartitioners, ParallelForOnAWorker, ::testing::ValuesIn(sptest::loop_params({1, 2, 8, 32})),
                         sptest::loop_param_name);

}  // namespace

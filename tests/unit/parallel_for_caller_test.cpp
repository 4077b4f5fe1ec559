// Loops called from a thread outside any pool (algorithms/caller_share.hpp,
// algorithms/README.md "The caller's share"): the caller runs the loop alone up
// to the inline cutoff (one worker: all of it), then hands the rest over.
// Covered: every index exactly once with the rest handed over at once, with
// the default cutoff and fully inline (1, 2, 8 and 32 workers: 8 and 32
// oversubscribe the machine), range chunks within the grain; the probe runs on
// the caller and the rest on the workers; below the cutoff and on one worker,
// everything on the caller; exceptions thrown in the caller's share (the probe,
// or a one-worker loop) and in a worker's share; nested loops, join() and
// TaskGroups in the caller's bodies stay on the loop's pool; parallel_reduce
// bit for bit the same for every cutoff and worker count. Behaviour only: no
// timings.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../support/loop_support.hpp"
#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using namespace std::chrono_literals;
using sptest::CutoffScope;
using sptest::IndexError;
using sptest::LoopParam;
using sptest::Part;

namespace {

class ParallelForCaller : public sptest::LoopTest {};

TEST_P(ParallelForCaller, EveryIndexExactlyOnceForEveryCutoff) {
  sptest::Watchdog dog("ParallelForCaller.Coverage");
  for (std::uint64_t cutoff : CutoffScope::kAll) {
    CutoffScope scope(cutoff);
    for (int grain : {0, 1, 7, 1000})
      for (int n : {1, 2, 3, 7, 97, 1009, 10007, static_cast<int>(sptest::scaled(200'003, 20'011))}) {
        sptest::VisitCounter seen(static_cast<std::size_t>(n));
        with_part([&](auto p) { sp::parallel_for(pool(), 0, n, grain, [&](int i) { seen.visit(i); }, p); });
        ASSERT_EQ(seen.exactly_once(), "") << CutoffScope::name(cutoff) << ", n = " << n << ", grain " << grain;
      }
  }
}

TEST_P(ParallelForCaller, RangeChunksCoverDisjointlyWithinTheGrain) {
  sptest::Watchdog dog("ParallelForCaller.Chunks");
  for (std::uint64_t cutoff : CutoffScope::kAll) {
    CutoffScope scope(cutoff);
    for (long grain : {1L, 5L, 64L})
      for (long n : {1L, 63L, 4099L, 50'021L}) {
        sptest::ChunkLog log;
        with_part([&](auto p) {
          sp::parallel_for_range(pool(), -7L, n - 7, grain, [&](long b, long e) { log.add(-7L, b, e); }, p);
        });
        EXPECT_LE(log.largest(), static_cast<std::uint64_t>(grain)) << CutoffScope::name(cutoff) << ", n = " << n;
        EXPECT_EQ(log.covers(static_cast<std::uint64_t>(n)), "") << CutoffScope::name(cutoff) << ", n = " << n;
      }
  }
}

// Slow bodies (20 us, past the cutoff after the first) with several workers:
// the caller's probe runs the first index, the workers the rest. With the rest
// handed over at once, no body runs on the caller.
TEST_P(ParallelForCaller, WithSeveralWorkersTheProbeRunsOnTheCallerAndTheRestOnTheWorkers) {
  if (GetParam().workers == 1) GTEST_SKIP() << "one worker: everything runs on the caller (tested below)";
  sptest::Watchdog dog("ParallelForCaller.BothSides");
  const std::thread::id me = std::this_thread::get_id();
  for (std::uint64_t cutoff : {CutoffScope::kPublishAtOnce, sp::detail::kDefaultInlineCutoffNs}) {
    CutoffScope scope(cutoff);
    std::atomic<int> on_caller{0}, elsewhere{0};
    with_part([&](auto p) {
      sp::parallel_for(pool(), 0, 400, 1, [&](int) {
        (std::this_thread::get_id() == me ? on_caller : elsewhere).fetch_add(1);
        sptest::busy_pause(20us);
      }, p);
    });
    EXPECT_EQ(on_caller.load() + elsewhere.load(), 400);
    EXPECT_GT(elsewhere.load(), 0) << CutoffScope::name(cutoff);
    if (cutoff == CutoffScope::kPublishAtOnce) {
      EXPECT_EQ(on_caller.load(), 0);
    } else {
      EXPECT_GE(on_caller.load(), 1) << "the probe runs index 0 on the caller";
    }
  }
}

TEST_P(ParallelForCaller, BelowTheCutoffOrOnOneWorkerEverythingRunsOnTheCaller) {
  sptest::Watchdog dog("ParallelForCaller.Inline");
  const std::thread::id me = std::this_thread::get_id();
  const std::uint64_t cutoff = GetParam().workers == 1 ? CutoffScope::kPublishAtOnce : CutoffScope::kAlwaysInline;
  CutoffScope scope(cutoff);
  std::atomic<int> elsewhere{0};
  sptest::VisitCounter seen(20'000);
  with_part([&](auto p) {
    sp::parallel_for(pool(), 0, 20'000, 3, [&](int i) {
      if (std::this_thread::get_id() != me) elsewhere.fetch_add(1);
      seen.visit(i);
    }, p);
  });
  EXPECT_EQ(seen.exactly_once(), "");
  EXPECT_EQ(elsewhere.load(), 0);
  EXPECT_EQ(sp::detail::guest_pool_slot(), nullptr) << "the guest scope was not closed";
}

// The first body the caller runs throws (in the probe, or in part 0 with the
// rest published at once); then the first body a worker runs throws.
TEST_P(ParallelForCaller, ExceptionsFromTheCallersShareAndFromAWorkersShareReachTheCaller) {
  sptest::Watchdog dog("ParallelForCaller.Exceptions");
  const std::thread::id me = std::this_thread::get_id();
  for (std::uint64_t cutoff : CutoffScope::kAll) {
    CutoffScope scope(cutoff);
    // With the rest handed over at once and several workers, no body runs on
    // the caller. Otherwise the caller's first body (the probe's, or one worker:
    // all of them) throws.
    const bool none_on_caller = cutoff == CutoffScope::kPublishAtOnce && GetParam().workers > 1;
    bool thrown = false;
    for (int attempt = 0; attempt < 20 && !thrown && !none_on_caller; ++attempt) {
      try {
        with_part([&](auto p) {
          sp::parallel_for(pool(), 0, 5000, 1, [&](int i) {
            if (std::this_thread::get_id() == me) throw IndexError(i);
          }, p);
        });
      } catch (const IndexError&) {
        thrown = true;
      }
    }
    EXPECT_TRUE(thrown || none_on_caller) << CutoffScope::name(cutoff) << ": the caller's throw was lost";
    // The pool and the guest scope are fine afterwards.
    EXPECT_EQ(sp::detail::guest_pool_slot(), nullptr);
    sptest::VisitCounter seen(3000);
    with_part([&](auto p) { sp::parallel_for(pool(), 0, 3000, [&](int i) { seen.visit(i); }, p); });
    EXPECT_EQ(seen.exactly_once(), "") << "after the exception, " << CutoffScope::name(cutoff);
  }
  if (GetParam().workers == 1) return;  // no body runs on a worker
  CutoffScope scope(CutoffScope::kPublishAtOnce);
  bool thrown = false;
  for (int attempt = 0; attempt < 20 && !thrown; ++attempt) {
    try {
      with_part([&](auto p) {
        sp::parallel_for(pool(), 0, 400, 1, [&](int i) {
          if (std::this_thread::get_id() != me) throw IndexError(i);
          sptest::busy_pause(20us);
        }, p);
      });
    } catch (const IndexError&) {
      thrown = true;
    }
  }
  EXPECT_TRUE(thrown) << "in 20 tries no worker ran a body, or its exception was lost";
}

// Nested loops, join() and TaskGroup in bodies without a pool argument: on the
// loop's pool (its workers or the calling thread), never on default_pool().
TEST_P(ParallelForCaller, NestedCallsInTheCallersBodiesStayOnTheLoopsPool) {
  sptest::Watchdog dog("ParallelForCaller.Nesting");
  const void* mine = &pool().shared();
  const std::thread::id me = std::this_thread::get_id();
  for (std::uint64_t cutoff : CutoffScope::kAll) {
    CutoffScope scope(cutoff);
    const int rows = 40, cols = 97;
    sptest::VisitCounter seen(static_cast<std::size_t>(rows * cols * 3));
    std::atomic<int> foreign{0};
    auto here = [&] {
      const void* ex = sp::detail::current_executor();
      if (ex != mine && !(ex == nullptr && std::this_thread::get_id() == me)) foreign.fetch_add(1);
    };
    with_part([&](auto p) {
      sp::parallel_for(pool(), 0, rows, 1, [&](int r) {
        const int base = r * cols * 3;
        sp::parallel_for(0, cols, [&](int c) {
          here();
          seen.visit(base + c);
        }, p);
        (void)sp::join([&] { here(); for (int c = 0; c < cols; ++c) seen.visit(base + cols + c); },
                       [&] { here(); });
        sp::TaskGroup tg;
        for (int c = 0; c < cols; ++c) tg.spawn([&, c] { here(); seen.visit(base + 2 * cols + c); });
        (void)tg.wait();
      }, p);
    });
    EXPECT_EQ(seen.exactly_once(), "") << CutoffScope::name(cutoff);
    EXPECT_EQ(foreign.load(), 0) << CutoffScope::name(cutoff) << ": nested work ran off the loop's pool";
  }
  EXPECT_EQ(sp::detail::guest_pool_slot(), nullptr);
}

TEST_P(ParallelForCaller, ReduceIsBitForBitTheSameForEveryCutoff) {
  sptest::Watchdog dog("ParallelForCaller.Reduce");
  auto term = [](long i) { return (i % 3 == 0 ? -1.0 : 1.0) / (1.0 + static_cast<double>(i % 1013)) * 1e-3 * i; };
  const long n = static_cast<long>(sptest::scaled(300'007, 30'011));
  std::vector<double> got;
  for (std::uint64_t cutoff : CutoffScope::kAll) {
    CutoffScope scope(cutoff);
    with_part([&](auto p) { got.push_back(sp::parallel_reduce(pool(), 0L, n, 0.0, term, std::plus<>{}, p)); });
    got.push_back(pool().run([&] { return sp::parallel_reduce(0L, n, 0.0, term, std::plus<>{}); }));
  }
  // The same on one worker with the default partitioner, from outside.
  const double one = sp::parallel_reduce(sptest::loop_pool(1), 0L, n, 0.0, term, std::plus<>{});
  for (double g : got) EXPECT_EQ(std::bit_cast<std::uint64_t>(g), std::bit_cast<std::uint64_t>(one));
}

INSTANTIATE_TEST_SUITE_P(AllPartitioners, ParallelForCaller, ::testing::ValuesIn(sptest::loop_params({1, 2, 8, 32})),
                         sptest::loop_param_name);

// Many outside threads, each taking part in its own loop on one pool at once.
TEST(ParallelForCallerConcurrent, ManyCallersTakePartAtOnce) {
  sptest::Watchdog dog("ParallelForCallerConcurrent");
  CutoffScope scope(CutoffScope::kPublishAtOnce);
  sptest::loop_from_threads(sptest::loop_pool(2), static_cast<int>(sptest::scaled(50'000, 5'000)), 5);
}

}  // namespace

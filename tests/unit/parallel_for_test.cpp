// parallel_for and parallel_for_range coverage: every index visited exactly once
// for many sizes (0, 1, around the grain, primes, 10^7 in Release) and grains,
// on 1, 2, 8 and 32 workers, with each of the three partitioners; index types
// (int, long long, size_t, unsigned, short, unsigned char, negative ranges) and
// their extremes; the chunks parallel_for_range hands out (disjoint, covering,
// no larger than the grain); ranges longer than 2^32 (rounds of the stealing
// partitioner) and as long as a 64-bit type allows; where loops run (outside any
// pool: default_pool() and the calling thread; on a worker: its pool; an
// explicit pool, from outside (its workers and the caller), from its own worker
// and from another pool's worker; many callers at once). The caller's share and
// the inline cutoff: parallel_for_caller_test.cpp.
// Edge cases, exceptions and nesting: parallel_for_control_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../support/loop_support.hpp"
#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using sptest::Part;

namespace {

using sptest::LoopParam;
using sptest::loop_param_name;

std::vector<LoopParam> every_worker_count_and_partitioner() { return sptest::loop_params({1, 2, 8, 32}); }

// Sizes for one grain: the small ones, around the grain, and primes.
std::vector<int> sizes_for(int grain) {
  std::vector<int> v = {0, 1, 2, 3, 7, 97, 1009, 10007};
  if (grain > 1) v.insert(v.end(), {grain - 1, grain, grain + 1, 2 * grain + 1});
  v.push_back(sptest::stress_scale() > 1 ? 30011 : 100003);
  if (sptest::stress_scale() == 1) v.push_back(1000003);
  return v;
}

class ParallelForCoverage : public ::testing::TestWithParam<LoopParam> {
 protected:
  sp::ThreadPool& pool() const { return sptest::loop_pool(GetParam().workers); }
};

TEST_P(ParallelForCoverage, EveryIndexExactlyOnceForManySizesAndGrains) {
  sptest::Watchdog dog("ParallelForCoverage.ManySizes");
  for (int grain : {0, 1, 7, 1000}) {
    for (int n : sizes_for(grain)) {
      sptest::VisitCounter seen(static_cast<std::size_t>(n));  // also counts visits outside [0, n)
      sptest::with_partitioner(GetParam().part, [&](auto p) {
        sp::parallel_for(pool(), 0, n, grain, [&](int i) { seen.visit(i); }, p);
      });
      EXPECT_EQ(seen.exactly_once(), "") << "n = " << n << ", grain " << grain;
    }
  }
}

TEST_P(ParallelForCoverage, OverloadWithoutAGrainCoversToo) {
  sptest::Watchdog dog("ParallelForCoverage.NoGrain");
  for (int n : {0, 1, 5, 4099, 65537}) {
    sptest::VisitCounter seen(static_cast<std::size_t>(n));
    sptest::with_partitioner(GetParam().part,
                             [&](auto p) { sp::parallel_for(pool(), 0, n, [&](int i) { seen.visit(i); }, p); });
    EXPECT_EQ(seen.exactly_once(), "") << "n = " << n;
  }
}

TEST_P(ParallelForCoverage, TenMillionIndicesExactlyOnce) {
  if (sptest::stress_scale() > 1) GTEST_SKIP() << "10^7 indices only in Release builds (scale 1)";
  sptest::Watchdog dog("ParallelForCoverage.TenMillion");
  const int n = 10'000'000;
  sptest::VisitCounter seen(static_cast<std::size_t>(n));
  sptest::with_partitioner(GetParam().part,
                           [&](auto p) { sp::parallel_for(pool(), 0, n, [&](int i) { seen.visit(i); }, p); });
  EXPECT_EQ(seen.exactly_once(), "");
}

// parallel_for_range: disjoint non-empty chunks covering [0, n); the stealing
// and adaptive partitioners never hand out more than the grain at once, the
// static one hands out one contiguous part per worker, of near-equal sizes.
TEST_P(ParallelForCoverage, RangeChunksAreDisjointCoveringAndNoLargerThanTheGrain) {
  sptest::Watchdog dog("ParallelForCoverage.RangeChunks");
  const auto [workers, part] = GetParam();
  for (long grain : {1L, 5L, 64L, 1000L}) {
    for (long n : {1L, 4L, 63L, 64L, 65L, 999L, 10007L, static_cast<long>(sptest::scaled(300007, 30007))}) {
      sptest::ChunkLog log;
      {
        // Static: the parts' shape below holds when nothing runs inline first
        // (the caller's probe runs its own short chunks from index 0).
        sptest::CutoffScope publish(part == Part::static_ ? sptest::CutoffScope::kPublishAtOnce
                                                          : sp::detail::loop_inline_cutoff_ns.load());
        sptest::with_partitioner(part, [&](auto p) {
          sp::parallel_for_range(pool(), 0L, n, grain, [&](long b, long e) { log.add(0L, b, e); }, p);
        });
      }
      EXPECT_EQ(log.covers(static_cast<std::uint64_t>(n)), "") << "n = " << n << ", grain " << grain;
      // Every partitioner, static included (its parts run in grain-sized chunks).
      EXPECT_LE(log.largest(), static_cast<std::uint64_t>(grain)) << "n = " << n << ", grain " << grain;
      if (part == Part::static_) {
        // One part per worker, sizes within one of each other: ceil(part / grain) chunks each.
        const std::uint64_t un = static_cast<std::uint64_t>(n), ug = static_cast<std::uint64_t>(grain);
        const std::uint64_t parts = std::min<std::uint64_t>(workers, un);
        std::uint64_t chunks = 0;
        for (std::uint64_t i = 0; i < parts; ++i) {
          const std::uint64_t len = un / parts + (i < un % parts ? 1 : 0);
          chunks += (len + ug - 1) / ug;
        }
        EXPECT_EQ(log.size(), chunks) << "n = " << n << ", grain " << grain;
      }
    }
  }
}

TEST_P(ParallelForCoverage, RangeWithAutomaticGrainCovers) {
  sptest::Watchdog dog("ParallelForCoverage.RangeAutoGrain");
  for (int n : {1, 2, 129, 100003}) {
    sptest::ChunkLog log;
    sptest::with_partitioner(GetParam().part, [&](auto p) {
      sp::parallel_for_range(pool(), 0, n, [&](int b, int e) { log.add(0, b, e); }, p);
    });
    EXPECT_EQ(log.covers(static_cast<std::uint64_t>(n)), "") << "n = " << n;
    // A negative or zero grain means "automatic" too.
    sptest::ChunkLog log2;
    sptest::with_partitioner(GetParam().part, [&](auto p) {
      sp::parallel_for_range(pool(), 0, n, -5, [&](int b, int e) { log2.add(0, b, e); }, p);
    });
    EXPECT_EQ(log2.covers(static_cast<std::uint64_t>(n)), "") << "n = " << n << ", grain -5";
  }
}

INSTANTIATE_TEST_SUITE_P(AllPartitioners, ParallelForCoverage,
                         ::testing::ValuesIn(every_worker_count_and_partitioner()), loop_param_name);

// --- index types ---------------------------------------------------------------

template <class I>
struct Bounds {
  I first, last;
};

template <class I>
std::vector<Bounds<I>> ranges_of() {
  constexpr I lo = std::numeric_limits<I>::min(), hi = std::numeric_limits<I>::max();
  std::vector<Bounds<I>> v = {{I(0), I(3001)}, {I(17), I(17)}, {I(lo), I(lo + 1000)}, {I(hi - 1000), hi},
                              {I(hi - 1), hi}, {lo, I(lo + 1)}};
  if constexpr (std::is_signed_v<I>) v.insert(v.end(), {{I(-1000), I(1000)}, {I(-5000), I(-17)}, {I(-1), I(0)}});
  return v;
}

template <class I>
class ParallelForTypes : public ::testing::Test {};
using IndexTypes = ::testing::Types<int, long long, std::int64_t, std::size_t, unsigned, std::int16_t, std::uint8_t>;
TYPED_TEST_SUITE(ParallelForTypes, IndexTypes);

TYPED_TEST(ParallelForTypes, EveryIndexOnceIncludingNegativeRangesAndTheTypesExtremes) {
  using I = TypeParam;
  sptest::Watchdog dog("ParallelForTypes");
  for (std::size_t workers : {1, 2, 8})
    for (Part part : sptest::kAllParts)
      for (const Bounds<I>& r : ranges_of<I>()) {
        const std::uint64_t n = sptest::offset_of(r.first, r.last);
        const std::string where = std::string(sptest::part_name(part)) + ", " + std::to_string(workers) +
                                  " workers, [" + std::to_string(r.first) + ", " + std::to_string(r.last) + ")";
        sptest::VisitCounter seen(static_cast<std::size_t>(n));
        sptest::ChunkLog log;
        sptest::with_partitioner(part, [&](auto p) {
          sp::ThreadPool& pool = sptest::loop_pool(workers);
          sp::parallel_for(pool, r.first, r.last, I(3), [&](I i) { seen.visit(r.first, i); }, p);
          sp::parallel_for_range(pool, r.first, r.last, [&](I b, I e) { log.add(r.first, b, e); }, p);
        });
        EXPECT_EQ(seen.exactly_once(), "") << where;
        EXPECT_EQ(log.covers(n), "") << where;
      }
}

// --- long ranges ---------------------------------------------------------------

// The whole of int, 2^32 - 1 indices: two rounds of the stealing partitioner.
// The partitioners' serial runs (ChunkRef::run_serial): an empty run calls no
// chunk, a run within one grain is one call, a longer one grain-sized calls.
TEST(ChunkRefSerialRun, CallsNothingForAnEmptyRunAndGrainSizedChunksOtherwise) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> calls;
  auto chunk = [&](std::uint64_t b, std::uint64_t e) { calls.emplace_back(b, e); };
  stealpool::detail::ChunkRef ref(chunk);
  stealpool::detail::LoopControl ctl;
  ref.run_serial(5, 5, 4, ctl);
  EXPECT_TRUE(calls.empty());
  ref.run_serial(5, 8, 4, ctl);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], std::make_pair(std::uint64_t{5}, std::uint64_t{8}));
  calls.clear();
  ref.shifted(100).run_serial(0, 9, 4, ctl);
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> want{{100, 104}, {104, 108}, {108, 109}};
  EXPECT_EQ(calls, want);
}

TEST(ParallelForLongRanges, WholeIntRangeIsCoveredByRangeChunks) {
  sptest::Watchdog dog("ParallelForLongRanges.WholeInt");
  for (std::size_t workers : {1, 2, 8, 32})
    for (Part part : sptest::kAllParts) {
      sptest::ChunkLog log;
      constexpr int lo = std::numeric_limits<int>::min(), hi = std::numeric_limits<int>::max();
      sptest::with_partitioner(part, [&](auto p) {
        sp::parallel_for_range(sptest::loop_pool(workers), lo, hi, [&](int b, int e) { log.add(lo, b, e); }, p);
      });
      EXPECT_EQ(log.covers(sptest::offset_of(lo, hi)), "") << sptest::part_name(part) << ", " << workers << " workers";
    }
}

// 2^32 + 10 indices of long long around zero: three rounds of the stealing
// partitioner, the last of 10. Grains below, at and above the 2^31 round.
TEST(ParallelForLongRanges, LongLongRangeOf2To32Plus10IsCoveredWithChunksWithinTheGrain) {
  sptest::Watchdog dog("ParallelForLongRanges.TwoTo32Plus10");
  const long long first = -(1LL << 31) - 5, last = (1LL << 31) + 5;
  for (std::size_t workers : {1, 2, 8})
    for (Part part : sptest::kAllParts)
      for (long long grain : {0LL, (1LL << 20) + 3, (1LL << 31) + 7}) {
        sptest::ChunkLog log;
        sptest::with_partitioner(part, [&](auto p) {
          sp::parallel_for_range(sptest::loop_pool(workers), first, last, grain,
                                 [&](long long b, long long e) { log.add(first, b, e); }, p);
        });
        const std::string where = std::string(sptest::part_name(part)) + ", " + std::to_string(workers) +
                                  " workers, grain " + std::to_string(grain);
        EXPECT_EQ(log.covers(sptest::offset_of(first, last)), "") << where;
        if (part == Part::stealing && grain != 0) {
          EXPECT_LE(log.largest(), static_cast<std::uint64_t>(grain)) << where;
        }
      }
}

// 2^40 + 12345 indices: 513 rounds of the stealing partitioner.
TEST(ParallelForLongRanges, RangeOf2To40IndicesIsCovered) {
  sptest::Watchdog dog("ParallelForLongRanges.TwoTo40");
  const std::int64_t first = -7, last = first + (std::int64_t{1} << 40) + 12345;
  for (std::size_t workers : {1, 2, 8})
    for (Part part : sptest::kAllParts) {
      sptest::ChunkLog log;
      sptest::with_partitioner(part, [&](auto p) {
        sp::parallel_for_range(sptest::loop_pool(workers), first, last,
                               [&](std::int64_t b, std::int64_t e) { log.add(first, b, e); }, p);
      });
      EXPECT_EQ(log.covers(sptest::offset_of(first, last)), "") << sptest::part_name(part) << ", " << workers
                                                                  << " workers";
    }
}

// Ranges of 2^62 to 2^64 - 1 indices (the whole of long long and of uint64_t)
// with the partitioners that split them in few chunks (the stealing partitioner
// runs them in rounds of 2^31 and would take hours).
void expect_64_bit_ranges_covered(Part part) {
  constexpr long long smin = std::numeric_limits<long long>::min(), smax = std::numeric_limits<long long>::max();
  constexpr std::uint64_t umax = std::numeric_limits<std::uint64_t>::max();
  for (std::size_t workers : {1, 2, 8}) {
    const std::string where = std::string(sptest::part_name(part)) + ", " + std::to_string(workers) + " workers";
    sptest::ChunkLog whole_signed, whole_unsigned, quarter;
    sptest::with_partitioner(part, [&](auto p) {
      sp::ThreadPool& pool = sptest::loop_pool(workers);
      sp::parallel_for_range(pool, smin, smax, [&](long long b, long long e) { whole_signed.add(smin, b, e); }, p);
      sp::parallel_for_range(pool, std::uint64_t{0}, umax,
                             [&](std::uint64_t b, std::uint64_t e) { whole_unsigned.add(std::uint64_t{0}, b, e); }, p);
      sp::parallel_for_range(pool, std::uint64_t{0}, std::uint64_t{1} << 62,
                             [&](std::uint64_t b, std::uint64_t e) { quarter.add(std::uint64_t{0}, b, e); }, p);
    });
    EXPECT_EQ(whole_signed.covers(umax), "") << where << ", [LLONG_MIN, LLONG_MAX)";
    EXPECT_EQ(whole_unsigned.covers(umax), "") << where << ", [0, UINT64_MAX)";
    EXPECT_EQ(quarter.covers(std::uint64_t{1} << 62), "") << where << ", [0, 2^62)";
  }
}

TEST(ParallelForLongRanges, AdaptiveCoversRangesAsLongAs64BitsAllow) {
  sptest::Watchdog dog("ParallelForLongRanges.Adaptive64");
  expect_64_bit_ranges_covered(Part::adaptive);
}

// Found a bug: static_split computed part i as [n * i / parts, n * (i + 1) /
// parts), which overflows once n * (i + 1) >= 2^64 (with 2 workers half of the
// whole long long range was never visited; with 8 workers [0, 2^62) had parts
// handed out twice and parts reversed). Fixed with q = n / parts, r = n % parts.
TEST(ParallelForLongRanges, StaticCoversRangesAsLongAs64BitsAllow) {
  sptest::Watchdog dog("ParallelForLongRanges.Static64");
  expect_64_bit_ranges_covered(Part::static_);
}

// parallel_for itself (a body per index) over 2^32 + 10 indices, in Release only
// (about a second on two cores): the per-index loop across the round boundaries.
TEST(ParallelForLongRanges, PerIndexBodyOver2To32Plus10Indices) {
  if (sptest::stress_scale() > 1) GTEST_SKIP() << "4.3e9 body calls only in Release builds (scale 1)";
  sptest::Watchdog dog("ParallelForLongRanges.PerIndex", std::chrono::seconds(120));
  const long long first = -(1LL << 31) - 5, last = (1LL << 31) + 5;
  // Count the indices that are multiples of 2^20 and sum them, plus the ends.
  std::atomic<long long> marks{0}, mark_sum{0};
  std::atomic<int> saw_first{0}, saw_last{0};
  sp::parallel_for(sptest::loop_pool(2), first, last, [&](long long i) {
    if ((i & ((1LL << 20) - 1)) == 0) [[unlikely]] {
      marks.fetch_add(1, std::memory_order::relaxed);
      mark_sum.fetch_add(i, std::memory_order::relaxed);
    }
    if (i == first) [[unlikely]] saw_first.fetch_add(1);
    if (i == last - 1) [[unlikely]] saw_last.fetch_add(1);
  });
  long long want_marks = 0, want_sum = 0;
  for (long long m = -(1LL << 31); m < last; m += 1LL << 20) {
    ++want_marks;
    want_sum += m;
  }
  EXPECT_EQ(marks.load(), want_marks);
  EXPECT_EQ(mark_sum.load(), want_sum);
  EXPECT_EQ(saw_first.load(), 1);
  EXPECT_EQ(saw_last.load(), 1);
}

// --- where loops run -------------------------------------------------------------

// Counts bodies that ran off `expected` (an executor identity). A loop called
// from outside also runs bodies on the calling thread (its share): those count
// as on when `caller` is that thread.
struct WhereCheck {
  const void* expected;
  std::thread::id caller{};
  std::atomic<int> off{0}, on{0};
  void here() {
    const bool mine = sp::detail::current_executor() == expected ||
                      (sp::detail::current_executor() == nullptr && std::this_thread::get_id() == caller);
    (mine ? on : off).fetch_add(1);
  }
};

TEST(ParallelForWhere, WithoutAPoolFromOutsideRunsOnTheDefaultPool) {
  sptest::Watchdog dog("ParallelForWhere.Default");
  ASSERT_FALSE(sp::current_worker_id().has_value());
  WhereCheck where{&sp::default_pool().shared(), std::this_thread::get_id()};
  sptest::VisitCounter seen(10000);
  sp::parallel_for(0, 10000, [&](int i) {
    where.here();
    seen.visit(i);
  });
  EXPECT_EQ(seen.exactly_once(), "");
  EXPECT_EQ(where.off.load(), 0);
}

TEST(ParallelForWhere, ExplicitPoolFromOutsideRunsOnThatPool) {
  sptest::Watchdog dog("ParallelForWhere.Explicit");
  sp::ThreadPool& pool = sptest::loop_pool(8);
  WhereCheck where{&pool.shared(), std::this_thread::get_id()};
  sp::parallel_for(pool, 0, 10000, [&](int) { where.here(); });
  EXPECT_EQ(where.on.load(), 10000);
}

TEST(ParallelForWhere, WithoutAPoolOnAWorkerRunsOnThatWorkersPool) {
  sptest::Watchdog dog("ParallelForWhere.OnWorker");
  sp::ThreadPool& pool = sptest::loop_pool(2);
  WhereCheck where{&pool.shared()};
  pool.run([&] { sp::parallel_for(0, 10000, [&](int) { where.here(); }); });
  EXPECT_EQ(where.on.load(), 10000);
}

TEST(ParallelForWhere, ExplicitPoolFromItsOwnWorkerAndFromAnotherPoolsWorker) {
  sptest::Watchdog dog("ParallelForWhere.CrossPool");
  sp::ThreadPool& a = sptest::loop_pool(2);
  sp::ThreadPool& b = sptest::loop_pool(8);
  WhereCheck on_a{&a.shared()}, on_b{&b.shared()};
  a.run([&] {
    sp::parallel_for(a, 0, 5000, [&](int) { on_a.here(); });
    sp::parallel_for(b, 0, 5000, [&](int) { on_b.here(); });
    // Back and forth: a loop on b whose bodies run loops on a.
    sp::parallel_for(b, 0, 20, [&](int) { sp::parallel_for(a, 0, 100, [&](int) { on_a.here(); }); });
  });
  EXPECT_EQ(on_a.on.load(), 5000 + 20 * 100);
  EXPECT_EQ(on_b.on.load(), 5000);
}

TEST(ParallelForWhere, ManyOutsideThreadsLoopOnOnePoolAtOnce) {
  sptest::Watchdog dog("ParallelForWhere.ManyThreads");
  sptest::loop_from_threads(sptest::loop_pool(2), static_cast<int>(sptest::scaled(50'000, 5'000)), 1);
}

// Every part of a loop can start while the others run. W indices, grain 1, on
// W workers: each body waits until all W have started (so with the rest
// published at once: the inline probe would run index 0 alone first, and
// wait for ever). Before leaves published
// what their worker had pushed, a part pushed below the top of the join tree
// stayed private to a worker busy with its own part, and these loops ran at
// most a few parts at once (on 16 cores: 5-7x instead of 15x for heavy loops).
class ParallelForParts : public ::testing::TestWithParam<LoopParam> {};

TEST_P(ParallelForParts, EveryPartStartsWhileTheOthersRun) {
  const std::size_t workers = GetParam().workers;  // no structured binding: lambdas capture these
  const Part part = GetParam().part;
  sptest::Watchdog dog("ParallelForParts.EveryPartStartsWhileTheOthersRun");
  sptest::CutoffScope publish(sptest::CutoffScope::kPublishAtOnce);
  sp::ThreadPool& pool = sptest::loop_pool(workers);
  for (int round = 0; round < 20; ++round) {
    sptest::StartTogether parts(workers);
    auto body = [&](std::size_t) { parts.arrive_and_wait(); };
    // From a worker: its parts start with a join tree (from outside, the rest
    // is handed to the workers whole).
    pool.run([&] {
      sptest::with_partitioner(part, [&](auto p) {
        sp::parallel_for(pool, std::size_t{0}, workers, std::size_t{1}, body, p);
        return 0;
      });
    });
    ASSERT_FALSE(parts.gave_up()) << "round " << round << ": only " << parts.arrived_at_give_up() << " of "
                                  << workers << " parts started within 20 s";
  }
}

INSTANTIATE_TEST_SUITE_P(TwoToEightWorkers, ParallelForParts, ::testing::ValuesIn(sptest::loop_params({2, 4, 8})),
                         loop_param_name);

}  // namespace

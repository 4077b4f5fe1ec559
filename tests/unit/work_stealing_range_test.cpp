// WorkStealingRange: single-threaded behaviour (take sizes, steal takes the top
// quarter / at least one / the last item, reset, 32-bit extremes), then races:
// an owner taking grains against 1, 2 and 4 thieves, the partitioner's own
// protocol (every thread an owner that steals and resets), and owner and thieves
// fighting for the last index, repeated many times. Every index must be handed
// out exactly once.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../support/loop_support.hpp"
#include "../support/test_support.hpp"
#include "stealpool/algorithms/work_stealing_range.hpp"

namespace sp = stealpool;

namespace {

constexpr std::uint32_t kMax32 = std::numeric_limits<std::uint32_t>::max();

void expect_span(std::optional<sp::IndexSpan> s, std::uint32_t lo, std::uint32_t hi, const std::string& what) {
  ASSERT_TRUE(s.has_value()) << what << ": nothing, expected [" << lo << ", " << hi << ")";
  EXPECT_EQ(s->lo, lo) << what;
  EXPECT_EQ(s->hi, hi) << what;
  EXPECT_EQ(s->size(), hi - lo) << what;
}

// --- one thread ----------------------------------------------------------------

TEST(WorkStealingRange, DefaultConstructedIsEmpty) {
  sp::WorkStealingRange r;
  EXPECT_EQ(r.size_hint(), 0u);
  EXPECT_FALSE(r.take(1).has_value());
  EXPECT_FALSE(r.take(kMax32).has_value());
  EXPECT_FALSE(r.steal().has_value());
}

TEST(WorkStealingRange, ReversedOrEqualEndsAreEmpty) {
  for (auto [lo, hi] : {std::pair<std::uint32_t, std::uint32_t>{5, 5}, {9, 3}, {kMax32, 0}, {kMax32, kMax32}}) {
    sp::WorkStealingRange r(lo, hi);
    EXPECT_EQ(r.size_hint(), 0u) << lo << ", " << hi;
    EXPECT_FALSE(r.take(1).has_value()) << lo << ", " << hi;
    EXPECT_FALSE(r.steal().has_value()) << lo << ", " << hi;
  }
}

TEST(WorkStealingRange, TakeHandsOutUpToNFromTheLowEnd) {
  sp::WorkStealingRange r(10, 30);
  EXPECT_EQ(r.size_hint(), 20u);
  expect_span(r.take(1), 10, 11, "take(1)");
  expect_span(r.take(5), 11, 16, "take(5)");
  EXPECT_EQ(r.size_hint(), 14u);
  expect_span(r.take(14), 16, 30, "take(exactly what is left)");
  EXPECT_FALSE(r.take(1).has_value());
  sp::WorkStealingRange big(100, 107);
  expect_span(big.take(1000), 100, 107, "take(more than is left)");
  sp::WorkStealingRange huge(0, kMax32);
  expect_span(huge.take(kMax32), 0, kMax32, "take(2^32 - 1)");
}

TEST(WorkStealingRange, TakeOfOneAtATimeVisitsEveryIndexInOrder) {
  sp::WorkStealingRange r(3, 40);
  std::uint32_t next = 3;
  while (auto s = r.take(1)) {
    ASSERT_EQ(s->lo, next);
    ASSERT_EQ(s->hi, next + 1);
    ++next;
  }
  EXPECT_EQ(next, 40u);
}

TEST(WorkStealingRange, StealTakesTheTopQuarterRoundedDown) {
  sp::WorkStealingRange r(0, 100);
  expect_span(r.steal(), 75, 100, "quarter of 100");
  expect_span(r.steal(), 57, 75, "quarter of 75 = 18");
  EXPECT_EQ(r.size_hint(), 57u);
  expect_span(r.take(7), 0, 7, "the owner still takes from the bottom");
  expect_span(r.steal(), 45, 57, "quarter of the 50 left, [7, 57): 12");
}

// For every length: k = len / 4 for len >= 4, else 1; never more than half
// unless only one index is left; always from the top.
TEST(WorkStealingRange, StealSizeForEveryLengthUpTo200) {
  for (std::uint32_t len = 1; len <= 200; ++len) {
    sp::WorkStealingRange r(1000, 1000 + len);
    auto s = r.steal();
    ASSERT_TRUE(s.has_value()) << "len " << len;
    const std::uint32_t want = len >= 4 ? len / 4 : 1;
    EXPECT_EQ(s->size(), want) << "len " << len;
    EXPECT_EQ(s->hi, 1000 + len) << "len " << len;
    EXPECT_GE(s->size(), 1u);
    if (len > 1) {
      EXPECT_LE(s->size(), len / 2) << "len " << len << ": more than half";
    }
    EXPECT_EQ(r.size_hint(), len - s->size()) << "len " << len;
  }
}

TEST(WorkStealingRange, StealTakesTheLastItemAndThenNothing) {
  sp::WorkStealingRange r(41, 44);
  expect_span(r.steal(), 43, 44, "3 left: one");
  expect_span(r.steal(), 42, 43, "2 left: one");
  expect_span(r.steal(), 41, 42, "the last");
  EXPECT_EQ(r.size_hint(), 0u);
  EXPECT_FALSE(r.steal().has_value());
  EXPECT_FALSE(r.take(1).has_value());
}

TEST(WorkStealingRange, StealsAloneDrainEveryIndexOnce) {
  sptest::VisitCounter seen(5000);
  sp::WorkStealingRange r(0, 5000);
  int steals = 0;
  while (auto s = r.steal()) {
    for (std::uint32_t i = s->lo; i < s->hi; ++i) seen.visit(i);
    ++steals;
  }
  EXPECT_EQ(seen.exactly_once(), "");
  // A quarter at a time: about log_{4/3}(5000 / 4) plus the last few single ones.
  EXPECT_LT(steals, 40);
}

TEST(WorkStealingRange, InterleavedTakesAndStealsHandOutEveryIndexOnce) {
  for (std::uint32_t grain : {1u, 3u, 64u}) {
    sptest::VisitCounter seen(10007);
    sp::WorkStealingRange r(0, 10007);
    for (int step = 0;; ++step) {
      auto s = step % 3 == 2 ? r.steal() : r.take(grain);
      if (!s) break;
      if (step % 3 != 2) {
        EXPECT_LE(s->size(), grain);
      }
      for (std::uint32_t i = s->lo; i < s->hi; ++i) seen.visit(i);
    }
    EXPECT_EQ(seen.exactly_once(), "") << "grain " << grain;
  }
}

TEST(WorkStealingRange, ResetInstallsANewRangeForTakeAndSteal) {
  sp::WorkStealingRange r(0, 4);
  expect_span(r.take(10), 0, 4, "drain");
  r.reset({100, 200});
  EXPECT_EQ(r.size_hint(), 100u);
  expect_span(r.steal(), 175, 200, "steal from the reset range");
  expect_span(r.take(5), 100, 105, "take from the reset range");
  expect_span(r.take(1000), 105, 175, "rest");
  r.reset({7, 7});
  EXPECT_EQ(r.size_hint(), 0u);
  EXPECT_FALSE(r.take(1).has_value());
  r.reset({0, 1});
  expect_span(r.steal(), 0, 1, "a one-index range after reset");
}

TEST(WorkStealingRange, EndsAtTheTopOf32Bits) {
  sp::WorkStealingRange r(kMax32 - 10, kMax32);
  expect_span(r.take(3), kMax32 - 10, kMax32 - 7, "take near 2^32");
  expect_span(r.steal(), kMax32 - 1, kMax32, "steal near 2^32 (7 left: one)");
  expect_span(r.take(kMax32), kMax32 - 7, kMax32 - 1, "take the rest");
  sp::WorkStealingRange whole(0, kMax32);
  EXPECT_EQ(whole.size_hint(), kMax32);
  expect_span(whole.steal(), kMax32 - kMax32 / 4, kMax32, "a quarter of 2^32 - 1");
}

// --- races ---------------------------------------------------------------------

struct RaceParam {
  std::uint32_t grain;
  int thieves;
};

class WorkStealingRangeRace : public ::testing::TestWithParam<RaceParam> {};

// One owner takes grains from the bottom while thieves steal from the top until
// the range is empty (nobody resets, so empty stays empty).
TEST_P(WorkStealingRangeRace, OwnerTakingGrainsAgainstThievesHandsOutEveryIndexOnce) {
  sptest::Watchdog dog("WorkStealingRangeRace.OwnerVsThieves");
  const std::uint32_t grain = GetParam().grain;  // no structured binding: clang 14 cannot capture one
  const int thieves = GetParam().thieves;
  const auto n = static_cast<std::uint32_t>(sptest::scaled(200'000, 5'000));
  const int reps = 5;
  sptest::VisitCounter seen(n);
  sp::WorkStealingRange r;
  std::atomic<long> stolen{0}, too_big{0};
  for (int rep = 0; rep < reps; ++rep) {
    seen.reset();
    r.reset({0, n});
    std::vector<std::function<void()>> fns;
    fns.emplace_back([&] {
      while (auto s = r.take(grain)) {
        if (s->size() > grain) too_big.fetch_add(1);
        for (std::uint32_t i = s->lo; i < s->hi; ++i) seen.visit(i);
      }
    });
    for (int t = 0; t < thieves; ++t)
      fns.emplace_back([&] {
        while (r.size_hint() != 0) {
          if (auto s = r.steal()) {
            stolen.fetch_add(s->size(), std::memory_order::relaxed);
            for (std::uint32_t i = s->lo; i < s->hi; ++i) seen.visit(i);
          }
        }
      });
    sptest::run_concurrently(std::move(fns));
    ASSERT_EQ(seen.exactly_once(), "") << "rep " << rep << ", grain " << grain << ", " << thieves << " thieves";
    EXPECT_EQ(r.size_hint(), 0u);
  }
  EXPECT_EQ(too_big.load(), 0) << "take(grain) returned more than grain";
  RecordProperty("stolen_fraction_percent", std::to_string(stolen.load() * 100 / (long{n} * reps)));
}

INSTANTIATE_TEST_SUITE_P(GrainsAndThieves, WorkStealingRangeRace,
                         ::testing::Values(RaceParam{1, 1}, RaceParam{1, 2}, RaceParam{1, 4}, RaceParam{8, 1},
                                           RaceParam{8, 2}, RaceParam{64, 4}),
                         [](const auto& info) {
                           std::string name = "G";
                           name += std::to_string(info.param.grain);
                           name += "T";
                           name += std::to_string(info.param.thieves);
                           return name;
                         });

// The stealing partitioner's protocol on bare threads: each thread owns a range,
// takes grains from it, and when it runs dry steals the top quarter of another
// range and installs it as its own (reset), where others may steal it in turn.
// A thread stops when a scan of every range finds nothing. This is the case that
// rules out a stale thief's CAS succeeding on a reset range (the ABA argument
// in algorithms/README.md).
TEST(WorkStealingRangeProtocol, OwnersThatStealAndResetHandOutEveryIndexOnce) {
  sptest::Watchdog dog("WorkStealingRangeProtocol");
  const auto n = static_cast<std::uint32_t>(sptest::scaled(300'000, 10'000));
  for (int threads : {2, 3, 4}) {
    for (std::uint32_t grain : {1u, 16u}) {
      sptest::VisitCounter seen(n);
      std::vector<sp::WorkStealingRange> ranges(static_cast<std::size_t>(threads));
      const std::uint32_t per = n / static_cast<std::uint32_t>(threads);
      for (int t = 0; t < threads; ++t)
        ranges[static_cast<std::size_t>(t)].reset(
            {static_cast<std::uint32_t>(t) * per, t + 1 == threads ? n : static_cast<std::uint32_t>(t + 1) * per});
      std::atomic<long> resets{0};
      std::vector<std::function<void()>> fns;
      for (int t = 0; t < threads; ++t)
        fns.emplace_back([&, t] {
          sp::WorkStealingRange& own = ranges[static_cast<std::size_t>(t)];
          for (;;) {
            while (auto s = own.take(grain))
              for (std::uint32_t i = s->lo; i < s->hi; ++i) seen.visit(i);
            std::optional<sp::IndexSpan> got;
            for (int k = 1; k < threads && !got; ++k) {
              sp::WorkStealingRange& victim = ranges[static_cast<std::size_t>((t + k) % threads)];
              while (!got && victim.size_hint() != 0) got = victim.steal();
            }
            if (!got) return;
            own.reset(*got);
            resets.fetch_add(1, std::memory_order::relaxed);
          }
        });
      sptest::run_concurrently(std::move(fns));
      EXPECT_EQ(seen.exactly_once(), "") << threads << " threads, grain " << grain;
      RecordProperty("resets_T" + std::to_string(threads) + "_G" + std::to_string(grain),
                     std::to_string(resets.load()));
    }
  }
}

// The last index: an owner taking one at a time and 1..3 thieves stealing race
// for a range of 1, 2 or 3 indices, many times over (persistent threads,
// randomised start offsets). Each index goes to exactly one of them.
class WorkStealingRangeLastIndex : public ::testing::TestWithParam<int> {};

TEST_P(WorkStealingRangeLastIndex, OwnerAndThievesFightForTheLastIndices) {
  sptest::Watchdog dog("WorkStealingRangeLastIndex", std::chrono::seconds(120));
  const int thieves = GetParam();
  // With more threads than the 2 cores of CI, a round costs a time slice.
  const int rounds = static_cast<int>(sptest::scaled(thieves == 1 ? 20'000 : 4'000, 300));
  sp::WorkStealingRange r;
  std::array<std::atomic<int>, 3> claims{};
  std::atomic<long> owner_won_single{0}, thief_won_single{0};
  std::uint32_t len = 1;
  const std::uint32_t base = 77;
  auto setup = [&](int round) {
    len = 1 + static_cast<std::uint32_t>(round % 3);
    for (auto& c : claims) c.store(0, std::memory_order::relaxed);
    r.reset({base, base + len});  // empty: every body of the last round drained it
  };
  auto claim = [&](sp::IndexSpan s, bool owner) {
    for (std::uint32_t i = s.lo; i < s.hi; ++i) claims[i - base].fetch_add(1, std::memory_order::relaxed);
    if (len == 1) (owner ? owner_won_single : thief_won_single).fetch_add(1, std::memory_order::relaxed);
  };
  std::vector<std::function<void()>> bodies;
  bodies.emplace_back([&] {
    while (auto s = r.take(1)) claim(*s, true);
  });
  for (int t = 0; t < thieves; ++t)
    bodies.emplace_back([&] {
      while (r.size_hint() != 0)
        if (auto s = r.steal()) claim(*s, false);
    });
  auto check = [&](int round) {
    for (std::uint32_t i = 0; i < 3; ++i) {
      const int want = i < len ? 1 : 0;
      ASSERT_EQ(claims[i].load(), want) << "round " << round << ", length " << len << ", index " << base + i;
    }
    ASSERT_EQ(r.size_hint(), 0u) << "round " << round;
  };
  // The race is real only if both sides win some of it (in practice each wins
  // between a sixth and a half of the rounds). On a loaded machine one side can
  // be scheduled first in every round of a run, so a run in which one side never
  // won is repeated, up to 5 runs in all, before that counts as a failure.
  const long singles_per_run = (rounds + 2) / 3;
  int runs = 0;
  do {
    sptest::repeat_race(rounds, setup, bodies, check);
    ++runs;
  } while (runs < 5 && singles_per_run >= 500 && (owner_won_single.load() == 0 || thief_won_single.load() == 0));
  const long singles = singles_per_run * runs;
  EXPECT_EQ(owner_won_single.load() + thief_won_single.load(), singles);
  if (singles_per_run >= 500) {
    EXPECT_GT(owner_won_single.load(), 0) << "the owner never won the last index: no race was run";
    EXPECT_GT(thief_won_single.load(), 0) << "no thief ever won the last index: no race was run";
  }
  RecordProperty("single_index_won_by_owner", std::to_string(owner_won_single.load()));
  RecordProperty("single_index_won_by_thief", std::to_string(thief_won_single.load()));
}

INSTANTIATE_TEST_SUITE_P(Thieves, WorkStealingRangeLastIndex, ::testing::Values(1, 2, 3), [](const auto& info) {
  std::string name = "T";
  name += std::to_string(info.param);
  return name;
});

}  // namespace

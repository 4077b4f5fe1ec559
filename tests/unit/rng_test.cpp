// XorShift64, derive_worker_seed and detail::pick_victim.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "stealpool/engine/core/worker_step.hpp"
#include "stealpool/rng.hpp"

namespace sp = stealpool;

namespace {

TEST(XorShift64, SameSeedGivesTheSameSequence) {
  sp::XorShift64 a(12345), b(12345), c(12346);
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t x = a.next_u64();
    ASSERT_EQ(x, b.next_u64()) << "draw " << i;
    differs |= x != c.next_u64();
  }
  EXPECT_TRUE(differs) << "a different seed gave the same sequence";
  EXPECT_EQ(a.state(), b.state());
}

TEST(XorShift64, SeedZeroIsNotStuckAtZero) {
  sp::XorShift64 r(0);
  EXPECT_NE(r.state(), 0u);
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t x = r.next_u64();
    ASSERT_NE(x, 0u);
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(XorShift64, IsUsableAtCompileTime) {
  constexpr std::uint64_t first = [] {
    sp::XorShift64 r(1);
    return r.next_u64();
  }();
  sp::XorShift64 r(1);
  EXPECT_EQ(r.next_u64(), first);
}

TEST(XorShift64, NextBelowStaysInRangeAndCoversIt) {
  sp::XorShift64 r(0x853c49e6748fea9bull);
  for (std::size_t bound : {1u, 2u, 3u, 7u, 31u, 1000u}) {
    std::vector<int> hits(bound, 0);
    for (std::size_t i = 0; i < 200 * bound; ++i) {
      const std::size_t v = r.next_below(bound);
      ASSERT_LT(v, bound);
      ++hits[v];
    }
    for (std::size_t v = 0; v < bound; ++v) EXPECT_GT(hits[v], 0) << "bound " << bound << " never drew " << v;
  }
  EXPECT_EQ(r.next_below(0), 0u);
  EXPECT_EQ(r.next_below(1), 0u);
}

TEST(XorShift64, DerivedWorkerSeedsAreDeterministicAndDistinct) {
  std::set<std::uint64_t> seeds;
  for (std::size_t w = 0; w < 256; ++w) {
    const std::uint64_t s = sp::derive_worker_seed(42, w);
    EXPECT_EQ(s, sp::derive_worker_seed(42, w));
    seeds.insert(s);
  }
  EXPECT_EQ(seeds.size(), 256u);
  EXPECT_NE(sp::derive_worker_seed(42, 0), sp::derive_worker_seed(43, 0));
}

TEST(PickVictim, NeverReturnsSelfAndCoversEveryOtherWorker) {
  sp::XorShift64 rng(7);
  for (std::size_t workers : {2u, 3u, 4u, 9u, 32u}) {
    for (std::size_t self = 0; self < workers; ++self) {
      std::vector<int> hits(workers, 0);
      for (std::size_t i = 0; i < 100 * workers; ++i) {
        const std::size_t v = sp::detail::pick_victim(rng, self, workers);
        ASSERT_LT(v, workers);
        ASSERT_NE(v, self) << "workers " << workers;
        ++hits[v];
      }
      for (std::size_t v = 0; v < workers; ++v) {
        if (v != self) {
          EXPECT_GT(hits[v], 0) << "workers " << workers << " self " << self << " never picked " << v;
        }
      }
    }
  }
}

TEST(PickVictim, TwoWorkersAlwaysPickTheOther) {
  sp::XorShift64 rng(99);
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(sp::detail::pick_victim(rng, 0, 2), 1u);
    ASSERT_EQ(sp::detail::pick_victim(rng, 1, 2), 0u);
  }
}

}  // namespace

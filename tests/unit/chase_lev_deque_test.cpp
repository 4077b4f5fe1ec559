// Behaviour of ChaseLevDeque: its sequential spec (LIFO pop, FIFO steal, exact
// "empty"), growth, item types, and exactly-once delivery under real threads with
// the owner kept near empty, where pop and steal race for the last item.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "stealpool/queue/chase_lev_deque.hpp"

namespace sp = stealpool;

namespace {

// Stress sizes: divided by 10 under sanitizers; STEALPOOL_TEST_SCALE=<k>
// multiplies them for long runs.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define STEALPOOL_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define STEALPOOL_TEST_SANITIZED 1
#endif
#endif
#ifndef STEALPOOL_TEST_SANITIZED
#define STEALPOOL_TEST_SANITIZED 0
#endif

std::size_t scaled(std::size_t n) {
  const char* env = std::getenv("STEALPOOL_TEST_SCALE");
  const std::size_t k = env != nullptr && std::atoi(env) > 0 ? static_cast<std::size_t>(std::atoi(env)) : 1;
  return n * k / (STEALPOOL_TEST_SANITIZED ? 10 : 1);
}

// An item whose second word is derived from the first: a torn or stale slot read
// that slipped through would show as a bad check.
struct Tagged {
  std::uint64_t id;
  std::uint64_t check;
};
Tagged tagged(std::uint64_t id) { return {id, id * 0x9E3779B97F4A7C15ull ^ 0x5bd1e995ull}; }
bool intact(const Tagged& x) { return x.check == tagged(x.id).check; }

struct Big {  // the largest inline item
  std::uint64_t w[8];
};
static_assert(sizeof(Big) == sp::detail::kMaxInlineItemBytes);

struct NoDefault {  // trivially copyable, not default-constructible
  explicit NoDefault(int v) : a(v), b(-v) {}
  int a;
  int b;
};
static_assert(std::is_trivially_copyable_v<NoDefault> && !std::is_default_constructible_v<NoDefault>);

struct ThreeBytes {  // not a multiple of a word
  unsigned char c[3];
};

// ---- sequential spec ----------------------------------------------------------

TEST(ChaseLevDeque, NewDequeIsEmptyForOwnerAndThieves) {
  sp::ChaseLevDeque<int> q;
  EXPECT_FALSE(q.pop().has_value());
  EXPECT_TRUE(q.steal().is_empty());
  EXPECT_EQ(q.size_hint(), 0u);
  EXPECT_TRUE(q.empty_hint());
}

TEST(ChaseLevDeque, PopReturnsItemsInLifoOrder) {
  sp::ChaseLevDeque<int> q;
  for (int i = 0; i < 10; ++i) q.push(i);
  EXPECT_EQ(q.size_hint(), 10u);
  for (int i = 9; i >= 0; --i) EXPECT_EQ(q.pop(), i);
  EXPECT_FALSE(q.pop().has_value());
}

TEST(ChaseLevDeque, StealReturnsItemsInFifoOrder) {
  sp::ChaseLevDeque<int> q;
  for (int i = 0; i < 10; ++i) q.push(i);
  for (int i = 0; i < 10; ++i) {
    sp::Steal<int> s = q.steal();
    ASSERT_TRUE(s.is_success());
    EXPECT_EQ(s.value(), i);
  }
}

TEST(ChaseLevDeque, StealFromEmptyReportsEmptyNotRetry) {
  sp::ChaseLevDeque<int> q;
  EXPECT_EQ(q.steal().status(), sp::StealStatus::empty);
  q.push(1);
  (void)q.pop();
  EXPECT_EQ(q.steal().status(), sp::StealStatus::empty);
  q.push(2);
  ASSERT_TRUE(q.steal().is_success());
  EXPECT_EQ(q.steal().status(), sp::StealStatus::empty);
  EXPECT_FALSE(q.pop().has_value());
}

TEST(ChaseLevDeque, PopAndStealMeetInTheMiddleWithoutDuplicates) {
  sp::ChaseLevDeque<int> q;
  for (int i = 0; i < 9; ++i) q.push(i);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(q.pop(), 8 - k);
    sp::Steal<int> s = q.steal();
    ASSERT_TRUE(s.is_success());
    EXPECT_EQ(s.value(), k);
  }
  EXPECT_EQ(q.pop(), 4);  // the last item
  EXPECT_TRUE(q.steal().is_empty());
  EXPECT_FALSE(q.pop().has_value());
}

TEST(ChaseLevDeque, GrowsAcrossManyDoublingsKeepingOrderAndContent) {
  constexpr int kItems = 1 << 17;  // 16 doublings from capacity 2
  sp::ChaseLevDeque<Tagged> q(1);
  EXPECT_EQ(q.capacity(), 2u);
  for (int i = 0; i < kItems; ++i) q.push(tagged(static_cast<std::uint64_t>(i)));
  EXPECT_GE(q.capacity(), static_cast<std::size_t>(kItems));
  EXPECT_EQ(q.size_hint(), static_cast<std::size_t>(kItems));
  for (int i = kItems - 1; i >= kItems / 2; --i) {  // the newer half, LIFO
    std::optional<Tagged> x = q.pop();
    ASSERT_TRUE(x.has_value());
    ASSERT_EQ(x->id, static_cast<std::uint64_t>(i));
    ASSERT_TRUE(intact(*x));
  }
  for (int i = 0; i < kItems / 2; ++i) {  // the older half, FIFO
    sp::Steal<Tagged> s = q.steal();
    ASSERT_TRUE(s.is_success());
    ASSERT_EQ(s.value().id, static_cast<std::uint64_t>(i));
    ASSERT_TRUE(intact(s.value()));
  }
  EXPECT_TRUE(q.steal().is_empty());
}

TEST(ChaseLevDeque, GrowsWhileItsIndicesWrapAroundTheBuffer) {
  // Push 3, steal 2: top keeps moving, so each growth copies a wrapped range.
  sp::ChaseLevDeque<std::uint64_t> q(2);
  std::uint64_t pushed = 0, stolen = 0;
  for (int round = 0; round < 5000; ++round) {
    for (int k = 0; k < 3; ++k) q.push(pushed++);
    for (int k = 0; k < 2; ++k) {
      sp::Steal<std::uint64_t> s = q.steal();
      ASSERT_TRUE(s.is_success());
      ASSERT_EQ(s.value(), stolen++);
    }
  }
  EXPECT_GE(q.capacity(), 5000u);
  for (std::uint64_t i = pushed; i-- > stolen;) ASSERT_EQ(q.pop(), i);
  EXPECT_FALSE(q.pop().has_value());
}

TEST(ChaseLevDeque, StoresItemsOfUpTo64Bytes) {
  sp::ChaseLevDeque<Big> q(2);
  for (std::uint64_t i = 0; i < 100; ++i) q.push(Big{{i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7}});
  sp::Steal<Big> s = q.steal();
  ASSERT_TRUE(s.is_success());
  for (std::uint64_t j = 0; j < 8; ++j) EXPECT_EQ(s.value().w[j], j);
  std::optional<Big> x = q.pop();
  ASSERT_TRUE(x.has_value());
  for (std::uint64_t j = 0; j < 8; ++j) EXPECT_EQ(x->w[j], 99 + j);
}

TEST(ChaseLevDeque, StoresNonDefaultConstructibleAndOddSizedItems) {
  sp::ChaseLevDeque<NoDefault> q;
  q.push(NoDefault(7));
  q.push(NoDefault(8));
  sp::Steal<NoDefault> s = q.steal();
  ASSERT_TRUE(s.is_success());
  EXPECT_EQ(s.value().a, 7);
  EXPECT_EQ(s.value().b, -7);
  EXPECT_EQ(q.pop()->b, -8);

  sp::ChaseLevDeque<ThreeBytes> r;
  r.push(ThreeBytes{{1, 2, 3}});
  std::optional<ThreeBytes> y = r.pop();
  ASSERT_TRUE(y.has_value());
  EXPECT_EQ(y->c[2], 3);
}

TEST(ChaseLevDeque, RejectsCapacityOutsideOneTo2Pow40) {
  EXPECT_THROW(sp::ChaseLevDeque<int>(0), std::invalid_argument);
  EXPECT_THROW(sp::ChaseLevDeque<int>((std::size_t{1} << 40) + 1), std::invalid_argument);
  try {
    sp::ChaseLevDeque<int> q(0);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("got 0"), std::string::npos) << e.what();
  }
}

TEST(ChaseLevDeque, RoundsCapacityUpToAPowerOfTwoOfAtLeastTwo) {
  EXPECT_EQ(sp::ChaseLevDeque<int>(1).capacity(), 2u);
  EXPECT_EQ(sp::ChaseLevDeque<int>(5).capacity(), 8u);
  EXPECT_EQ(sp::ChaseLevDeque<int>(64).capacity(), 64u);
}

TEST(ChaseLevDeque, StealBatchAndPopMovesAtMostHalfOfWhatItSawAndLosesNothing) {
  for (std::size_t n = 1; n <= 70; ++n) {
    for (std::size_t limit : {1u, 4u, 32u, 100u}) {
      sp::ChaseLevDeque<std::size_t> q, dest;
      for (std::size_t i = 0; i < n; ++i) q.push(i);
      sp::Steal<std::size_t> first = q.steal_batch_and_pop(dest, limit);
      ASSERT_TRUE(first.is_success());
      EXPECT_EQ(first.value(), 0u) << "the oldest item comes first";
      const std::size_t moved = dest.size_hint();
      const std::size_t bound = std::max<std::size_t>(1, std::min((n + 1) / 2, limit));
      EXPECT_LE(1 + moved, bound) << "n=" << n << " limit=" << limit;
      // dest holds the next oldest, in order (its steal end is FIFO) ...
      for (std::size_t i = 1; i <= moved; ++i) {
        sp::Steal<std::size_t> s = dest.steal();
        ASSERT_TRUE(s.is_success());
        EXPECT_EQ(s.value(), i);
      }
      // ... and the source keeps the rest.
      EXPECT_EQ(q.size_hint(), n - 1 - moved);
      for (std::size_t i = n; i-- > 1 + moved;) ASSERT_EQ(q.pop(), i);
      EXPECT_FALSE(q.pop().has_value());
    }
  }
}

TEST(ChaseLevDeque, StealBatchAndPopFromEmptyReportsEmptyAndMovesNothing) {
  sp::ChaseLevDeque<int> q, dest;
  EXPECT_TRUE(q.steal_batch_and_pop(dest).is_empty());
  EXPECT_TRUE(dest.empty_hint());
}

// ---- concurrent exactly-once ----------------------------------------------------

struct RaceParams {
  int thieves;
  bool batch;  // thieves use steal_batch_and_pop into their own deque
};

std::uint64_t xorshift(std::uint64_t& s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return s;
}

class ChaseLevDequeRace : public ::testing::TestWithParam<RaceParams> {};

// One owner pushes unique ids in bursts of 1-3 and mostly pops them all again,
// so the deque stays near empty and pop races steal for the last item (now and
// then a burst of 200 makes it grow while thieves read). Per-id counters then
// show every id was taken exactly once. Without the pop fence this fails within
// a run (checked by hand); a missing steal fence needs Relacy (x86 keeps loads
// in order).
TEST_P(ChaseLevDequeRace, EveryItemIsTakenExactlyOnceWithTheOwnerNearEmpty) {
  const RaceParams p = GetParam();
  const std::uint64_t n = scaled(1'000'000);
  sp::ChaseLevDeque<Tagged> q(2);
  std::vector<std::atomic<std::uint32_t>> taken(n);
  std::atomic<std::uint64_t> torn{0};
  std::atomic<bool> owner_done{false};
  std::atomic<int> thieves_ready{0};
  std::atomic<std::uint64_t> stolen{0};
  auto record = [&](const Tagged& x) {
    if (!intact(x) || x.id >= n) torn.fetch_add(1, std::memory_order::relaxed);
    else taken[x.id].fetch_add(1, std::memory_order::relaxed);
  };

  std::vector<std::thread> thieves;
  for (int i = 0; i < p.thieves; ++i) {
    thieves.emplace_back([&] {
      sp::ChaseLevDeque<Tagged> mine;
      thieves_ready.fetch_add(1, std::memory_order::relaxed);
      for (;;) {
        const bool finished = owner_done.load(std::memory_order::acquire);  // read before the steal
        sp::Steal<Tagged> s = p.batch ? q.steal_batch_and_pop(mine, 8) : q.steal();
        if (s.is_success()) {
          record(s.value());
          stolen.fetch_add(1, std::memory_order::relaxed);
          while (std::optional<Tagged> x = mine.pop()) {
            record(*x);
            stolen.fetch_add(1, std::memory_order::relaxed);
          }
        } else if (s.is_empty()) {
          if (finished) return;
          std::this_thread::yield();
        }
      }
    });
  }

  const int thief_count = GetParam().thieves;
  while (thieves_ready.load(std::memory_order::relaxed) < thief_count) std::this_thread::yield();
  std::uint64_t seed = 0x2545F4914F6CDD1Dull, next = 0;
  while (next < n) {
    std::uint64_t burst = 1 + xorshift(seed) % 3;
    if (xorshift(seed) % 2048 == 0) burst = 200;
    for (std::uint64_t k = 0; k < burst && next < n; ++k) q.push(tagged(next++));
    // Mostly pop everything just pushed: thieves then win items only by racing
    // the owner for the last ones. Sometimes leave a few for them.
    const std::uint64_t pops = xorshift(seed) % 4 != 0 ? burst : xorshift(seed) % (burst + 1);
    for (std::uint64_t k = 0; k < pops; ++k) {
      std::optional<Tagged> x = q.pop();
      if (!x) break;
      record(*x);
    }
  }
  while (std::optional<Tagged> x = q.pop()) record(*x);
  owner_done.store(true, std::memory_order::release);
  for (std::thread& t : thieves) t.join();

  std::printf("  %llu of %llu items stolen\n", static_cast<unsigned long long>(stolen.load()),
              static_cast<unsigned long long>(n));
  EXPECT_GT(stolen.load(), 0u) << "the thieves never took anything: the test proved nothing";
  EXPECT_EQ(torn.load(), 0u);
  std::uint64_t lost = 0, duplicated = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t c = taken[i].load();
    if (c == 0 && lost++ == 0) ADD_FAILURE() << "first lost id " << i;
    if (c > 1 && duplicated++ == 0) ADD_FAILURE() << "first duplicated id " << i << " taken " << c << " times";
  }
  EXPECT_EQ(lost, 0u);
  EXPECT_EQ(duplicated, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    OwnerAgainstThieves, ChaseLevDequeRace,
    ::testing::Values(RaceParams{1, false}, RaceParams{3, false}, RaceParams{7, false}, RaceParams{1, true},
                      RaceParams{3, true}, RaceParams{7, true}),
    [](const ::testing::TestParamInfo<RaceParams>& info) {
      return std::to_string(info.param.thieves) + (info.param.thieves == 1 ? "Thief" : "Thieves") +
             (info.param.batch ? "StealingBatches" : "StealingOne");
    });

}  // namespace

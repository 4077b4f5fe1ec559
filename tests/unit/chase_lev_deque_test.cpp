// Behaviour only ChaseLevDeque has: steal_batch_and_pop, sequentially and under
// real threads with the owner kept near empty, where pop and a batch steal race
// for the last item. The spec it shares with LockedWsq (LIFO pop, FIFO steal,
// exact "empty", growth, item types, the single-steal race) is in
// deque_spec_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "../support/queue_support.hpp"
#include "stealpool/queue/chase_lev_deque.hpp"

namespace sp = stealpool;
using namespace sptest::queue;

namespace {

// ---- steal_batch_and_pop --------------------------------------------------------

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

class ChaseLevDequeRace : public ::testing::TestWithParam<int> {};

// race_owner_near_empty with thieves that use steal_batch_and_pop(mine, 8) into
// their own deque and then pop everything it moved (the single-steal race for
// both deque kinds is in deque_spec_test.cpp). Without the pop fence this fails
// within a run (checked by hand); a missing steal fence needs Relacy (x86 keeps
// loads in order).
TEST_P(ChaseLevDequeRace, EveryItemIsTakenExactlyOnceWithTheOwnerNearEmpty) {
  sp::ChaseLevDeque<Tagged> q(2);
  race_owner_near_empty(q, GetParam(), [&q](int) {
    return [&q, mine = std::make_unique<sp::ChaseLevDeque<Tagged>>()](auto&& take) {
      sp::Steal<Tagged> s = q.steal_batch_and_pop(*mine, 8);
      while (std::optional<Tagged> x = mine->pop()) take(*x);
      return s;
    };
  });
}

INSTANTIATE_TEST_SUITE_P(OwnerAgainstThieves, ChaseLevDequeRace, ::testing::Values(1, 3, 7),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::to_string(info.param) + (info.param == 1 ? "Thief" : "Thieves") +
                                  "StealingBatches";
                         });

}  // namespace

// detail::RefillPacer: a lone worker waits before its next injector take only
// after a streak of small takes (a producer trickling faster than it takes);
// a take that finds nothing, or a large one, or one of a single task after a
// wait, ends the streak.
#include <gtest/gtest.h>

#include <cstddef>

#include "stealpool/engine/core/refill_pacer.hpp"

namespace spd = stealpool::detail;

namespace {

using Pacer = spd::RefillPacer;

TEST(RefillPacer, AFreshWorkerTakesWithoutWaiting) { EXPECT_FALSE(Pacer{}.should_wait()); }

TEST(RefillPacer, WaitsOnceTakesHaveComeSmallTwiceInARow) {
  Pacer p;
  p.on_take(1);
  EXPECT_FALSE(p.should_wait());
  p.on_take(Pacer::kSmallTake - 1);
  EXPECT_TRUE(p.should_wait());
  for (int i = 0; i < 1000; ++i) p.on_take(3);  // a long trickle keeps it waiting
  EXPECT_TRUE(p.should_wait());
}

TEST(RefillPacer, AnEmptyTakeEndsTheStreakSoAlternatingTakesNeverWait) {
  Pacer p;
  for (int round = 0; round < 100; ++round) {
    p.on_take(1);  // the one task the producer handed over
    EXPECT_FALSE(p.should_wait()) << round;
    p.on_take(0);  // nothing more until its result is back
    EXPECT_FALSE(p.should_wait()) << round;
  }
  p.on_take(2);
  p.on_take(2);
  ASSERT_TRUE(p.should_wait());
  p.on_take(0);
  EXPECT_FALSE(p.should_wait());
}

// A wait that gathered one task at most: the producer is not outrunning the
// worker (a ping-pong whose producer beat the poll twice), so the next take
// does not wait. Two small takes in a row start a streak again.
TEST(RefillPacer, OneTaskAfterAWaitEndsTheStreak) {
  Pacer p;
  p.on_take(1);
  p.on_take(1);
  ASSERT_TRUE(p.should_wait());
  p.on_take(1);  // after the wait
  EXPECT_FALSE(p.should_wait());
  p.on_take(1);
  EXPECT_FALSE(p.should_wait());
  p.on_take(1);
  EXPECT_TRUE(p.should_wait());
  p.on_take(2);  // the wait gathered a run, if a small one: keep waiting
  EXPECT_TRUE(p.should_wait());
}

TEST(RefillPacer, ALargeTakeEndsTheStreak) {
  Pacer p;
  p.on_take(1);
  p.on_take(1);
  ASSERT_TRUE(p.should_wait());
  p.on_take(Pacer::kSmallTake);
  EXPECT_FALSE(p.should_wait());
  p.on_take(255);
  EXPECT_FALSE(p.should_wait());
}

}  // namespace

// detail::RefillPacer: a worker waits before its next injector take only
// after a streak of small takes (a producer trickling faster than it takes);
// a take that finds nothing, or a large one, or one of a single task after a
// wait, ends the streak. A wait that gathers one task or none doubles the
// streak the next wait needs; one that gathers a run brings it back to two.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

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
// does not wait, and the next streak must be twice as long.
TEST(RefillPacer, OneTaskAfterAWaitEndsTheStreak) {
  Pacer p;
  p.on_take(1);
  p.on_take(1);
  ASSERT_TRUE(p.should_wait());
  p.on_take(1);  // after the wait
  EXPECT_FALSE(p.should_wait());
  EXPECT_EQ(p.streak_needed(), 2 * Pacer::kStreak);
  for (std::uint32_t i = 1; i < 2 * Pacer::kStreak; ++i) {
    p.on_take(1);
    EXPECT_FALSE(p.should_wait()) << i;
  }
  p.on_take(1);
  EXPECT_TRUE(p.should_wait());
  p.on_take(2);  // the wait gathered a run, if a small one: keep waiting
  EXPECT_TRUE(p.should_wait());
  EXPECT_EQ(p.streak_needed(), 2 * Pacer::kStreak);
}

// A producer slower than the worker (a file walker feeding tasks of some
// microseconds): every wait gathers one task or none. The streak a wait needs
// doubles each time, up to kMaxStreak, so waits become rare.
TEST(RefillPacer, FruitlessWaitsGrowTheStreakUpToTheMost) {
  for (std::size_t after_wait : {std::size_t{0}, std::size_t{1}}) {
    Pacer p;
    std::uint32_t needed = Pacer::kStreak;
    for (int wait = 0; wait < 10; ++wait) {
      for (std::uint32_t i = 0; i < needed; ++i) {
        ASSERT_FALSE(p.should_wait()) << "wait " << wait << ", take " << i;
        p.on_take(1);
      }
      ASSERT_TRUE(p.should_wait()) << "wait " << wait;
      p.on_take(after_wait);
      needed = needed * 2 > Pacer::kMaxStreak ? Pacer::kMaxStreak : needed * 2;
      ASSERT_EQ(p.streak_needed(), needed) << "after wait " << wait << ", which gathered " << after_wait;
      ASSERT_FALSE(p.should_wait());
    }
    EXPECT_EQ(p.streak_needed(), Pacer::kMaxStreak);
  }
}

// Once a wait gathers a run again (a fast producer is back), waits need the
// short streak again.
TEST(RefillPacer, AWaitThatGathersARunBringsTheStreakBack) {
  Pacer p;
  for (int wait = 0; wait < 8; ++wait) {  // grow it to the most
    while (!p.should_wait()) p.on_take(1);
    p.on_take(0);
  }
  ASSERT_EQ(p.streak_needed(), Pacer::kMaxStreak);
  while (!p.should_wait()) p.on_take(1);
  p.on_take(Pacer::kSmallTake);  // the wait paid
  EXPECT_EQ(p.streak_needed(), Pacer::kStreak);
  p.on_take(1);
  p.on_take(1);
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

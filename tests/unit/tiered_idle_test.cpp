// detail::TieredIdle: spin_iters rounds of poll-and-yield,
// then park with park_timeout; each park that times out doubles the timeout, up
// to 64x, after which the worker parks with no timeout. Work or a notified
// wake-up starts over from spinning; a yield that came back late ends the
// spinning (engine/idle_yield.hpp times the yields).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <thread>

#include "stealpool/engine/core/tiered_idle.hpp"
#include "stealpool/engine/idle_yield.hpp"

namespace spd = stealpool::detail;
using namespace std::chrono_literals;

namespace {

// Steps through the first tier: spin_iters rounds, each a yield (a worker that
// polls gives the CPU away between polls, so it never starves a producer).
void expect_spin_then_yield(spd::TieredIdle& idle, std::uint32_t spin_iters) {
  for (std::uint32_t round = 1; round <= spin_iters; ++round) {
    const spd::IdleAction a = idle.on_idle();
    ASSERT_EQ(a.kind, spd::IdleKind::yield) << "spin round " << round;
  }
}

TEST(TieredIdle, YieldsForSpinItersRoundsThenParks) {
  spd::TieredIdle idle(200, 200us);
  ASSERT_NO_FATAL_FAILURE(expect_spin_then_yield(idle, 200));
  const spd::IdleAction a = idle.on_idle();
  EXPECT_EQ(a.kind, spd::IdleKind::park);
  EXPECT_EQ(a.timeout, 200us);
  // Until the park is reported, it keeps asking to park with the same timeout.
  EXPECT_EQ(idle.on_idle().kind, spd::IdleKind::park);
  EXPECT_EQ(idle.on_idle().timeout, 200us);
}

TEST(TieredIdle, ZeroSpinItersGoesStraightToParking) {
  spd::TieredIdle idle(0, 1ms);
  ASSERT_NO_FATAL_FAILURE(expect_spin_then_yield(idle, 0));
  EXPECT_EQ(idle.on_idle().kind, spd::IdleKind::park);
}

TEST(TieredIdle, TimeoutsDoubleUpToSixtyFourTimesThenParkForever) {
  spd::TieredIdle idle(3, 200us);
  ASSERT_NO_FATAL_FAILURE(expect_spin_then_yield(idle, 3));
  std::chrono::nanoseconds expected = 200us;
  for (int doubling = 0; doubling <= 6; ++doubling) {
    const spd::IdleAction a = idle.on_idle();
    ASSERT_EQ(a.kind, spd::IdleKind::park);
    ASSERT_EQ(a.timeout, expected) << "after " << doubling << " timeouts";
    idle.on_woken(false);  // timed out, no work
    expected *= 2;
  }
  // 64x was the last finite timeout.
  for (int i = 0; i < 3; ++i) {
    const spd::IdleAction a = idle.on_idle();
    ASSERT_EQ(a.kind, spd::IdleKind::park);
    EXPECT_EQ(a.timeout, spd::Parker::kForever);
    idle.on_woken(false);
  }
}

TEST(TieredIdle, NotifiedWakeStartsOverFromSpinning) {
  spd::TieredIdle idle(5, 100us);
  ASSERT_NO_FATAL_FAILURE(expect_spin_then_yield(idle, 5));
  ASSERT_EQ(idle.on_idle().kind, spd::IdleKind::park);
  idle.on_woken(false);
  idle.on_woken(false);
  ASSERT_EQ(idle.current_timeout(), 400us);
  idle.on_woken(true);
  ASSERT_NO_FATAL_FAILURE(expect_spin_then_yield(idle, 5));
  const spd::IdleAction a = idle.on_idle();
  EXPECT_EQ(a.kind, spd::IdleKind::park);
  EXPECT_EQ(a.timeout, 100us) << "a notified wake must reset the doubling";
}

TEST(TieredIdle, WorkStartsOverFromSpinning) {
  spd::TieredIdle idle(4, 100us);
  ASSERT_NO_FATAL_FAILURE(expect_spin_then_yield(idle, 4));
  for (int i = 0; i < 10; ++i) idle.on_woken(false);  // parked forever by now
  ASSERT_EQ(idle.current_timeout(), spd::Parker::kForever);
  idle.on_work();
  ASSERT_NO_FATAL_FAILURE(expect_spin_then_yield(idle, 4));
  EXPECT_EQ(idle.on_idle().timeout, 100us);
}

TEST(TieredIdle, HugeParkTimeoutDoesNotOverflowWhenDoubled) {
  spd::TieredIdle idle(0, std::chrono::hours(24 * 365 * 100));  // ~100 years
  ASSERT_NO_FATAL_FAILURE(expect_spin_then_yield(idle, 0));
  for (int i = 0; i < 8; ++i) {
    const spd::IdleAction a = idle.on_idle();
    ASSERT_EQ(a.kind, spd::IdleKind::park);
    ASSERT_GT(a.timeout.count(), 0) << "timeout overflowed after " << i << " doublings";
    idle.on_woken(false);
  }
  spd::TieredIdle hour(0, std::chrono::hours(1));
  ASSERT_NO_FATAL_FAILURE(expect_spin_then_yield(hour, 0));
  for (int i = 0; i <= 6; ++i) {
    ASSERT_EQ(hour.on_idle().timeout, std::chrono::hours(1) * (1 << i));
    hour.on_woken(false);
  }
}

}  // namespace

// ---- a yield that came back late (engine/idle_yield.hpp) --------------------------

TEST(TieredIdle, ALateYieldEndsTheYieldTierAndWorkStartsItOver) {
  spd::TieredIdle idle(200, 200us);
  ASSERT_NO_FATAL_FAILURE(expect_spin_then_yield(idle, 3));
  idle.on_late_yield();
  const spd::IdleAction a = idle.on_idle();
  EXPECT_EQ(a.kind, spd::IdleKind::park) << "the 196 yield rounds left must be skipped";
  EXPECT_EQ(a.timeout, 200us) << "a late yield shortens the yielding, not the park";
  idle.on_work();
  ASSERT_NO_FATAL_FAILURE(expect_spin_then_yield(idle, 200));
  EXPECT_EQ(idle.on_idle().kind, spd::IdleKind::park);
}

TEST(TieredIdle, AYieldThatGaveTheCpuAwayForLongerThanKLateYieldIsLate) {
  // The stand-in yield sleeps 40 kLateYield: another thread held the CPU.
  spd::TieredIdle idle(200, 200us);
  ASSERT_EQ(idle.on_idle().kind, spd::IdleKind::yield);
  spd::timed_idle_yield(idle, [] { std::this_thread::sleep_for(40 * spd::kLateYield); });
  EXPECT_EQ(idle.on_idle().kind, spd::IdleKind::park);
}

TEST(TieredIdle, AYieldThatReturnsAtOnceLeavesTheTierAsItWas) {
  // A stand-in that returns at once is not late unless this thread itself is
  // descheduled between the two clock reads for over kLateYield: of 50 rounds,
  // most must stay in the yield tier (not all: a loaded CI machine may
  // preempt us, and then the park is the right call).
  int yield_rounds = 0;
  for (int i = 0; i < 50; ++i) {
    spd::TieredIdle idle(200, 200us);
    ASSERT_EQ(idle.on_idle().kind, spd::IdleKind::yield);
    spd::timed_idle_yield(idle, [] {});
    if (idle.on_idle().kind == spd::IdleKind::yield) ++yield_rounds;
  }
  EXPECT_GE(yield_rounds, 25);
}

// detail::Parker: a sticky wake-up token. An unpark before park is not lost;
// tokens do not accumulate; a timeout returns false; a cross-thread unpark wakes
// a sleeper parked with no timeout.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "../support/test_support.hpp"
#include "stealpool/platform/parker.hpp"

namespace spd = stealpool::detail;
using namespace std::chrono_literals;

namespace {

TEST(Parker, UnparkBeforeParkMakesParkReturnTrueAtOnce) {
  sptest::Watchdog dog("UnparkBeforeParkMakesParkReturnTrueAtOnce");
  spd::Parker p;
  p.unpark();
  EXPECT_TRUE(p.park(spd::Parker::kForever)) << "the token left by unpark() was lost";
}

TEST(Parker, SeveralUnparksLeaveOneToken) {
  spd::Parker p;
  p.unpark();
  p.unpark();
  p.unpark();
  EXPECT_TRUE(p.park(1ms));
  EXPECT_FALSE(p.park(1ms)) << "tokens accumulated";
}

TEST(Parker, TimeoutWithoutTokenReturnsFalse) {
  spd::Parker p;
  EXPECT_FALSE(p.park(1ms));
  EXPECT_FALSE(p.park(1ns));
  // After timeouts the parker still accepts a token.
  p.unpark();
  EXPECT_TRUE(p.park(1ms));
}

TEST(Parker, ZeroAndNegativeTimeoutsDoNotSleepForeverAndKeepTheToken) {
  sptest::Watchdog dog("ZeroAndNegativeTimeouts");
  spd::Parker p;
  EXPECT_FALSE(p.park(0ns));
  EXPECT_FALSE(p.park(-5ms));
  p.unpark();
  EXPECT_TRUE(p.park(0ns)) << "a token present before a zero-timeout park must be consumed";
}

TEST(Parker, CrossThreadUnparkWakesAForeverSleeper) {
  sptest::Watchdog dog("CrossThreadUnparkWakesAForeverSleeper");
  for (int round = 0; round < 200; ++round) {
    spd::Parker p;
    std::atomic<bool> woke{false};
    std::thread sleeper([&] {
      EXPECT_TRUE(p.park(spd::Parker::kForever));
      woke.store(true);
    });
    if (round % 2 == 0) std::this_thread::sleep_for(100us);  // sometimes really asleep
    p.unpark();
    sleeper.join();
    ASSERT_TRUE(woke.load());
  }
}

TEST(Parker, UnparkPublishesWritesMadeBeforeIt) {
  sptest::Watchdog dog("UnparkPublishesWritesMadeBeforeIt");
  for (int round = 0; round < 200; ++round) {
    spd::Parker p;
    int payload = 0;  // plain: ordered only by the token (TSan checks it)
    std::thread sleeper([&] {
      while (!p.park(spd::Parker::kForever)) {
      }
      EXPECT_EQ(payload, round + 1);
    });
    payload = round + 1;
    p.unpark();
    sleeper.join();
  }
}

TEST(Parker, TimedParkIsEndedByAnUnparkFromAnotherThread) {
  sptest::Watchdog dog("TimedParkIsEndedByAnUnpark");
  spd::Parker p;
  std::atomic<bool> parked_result{false};
  std::thread sleeper([&] { parked_result.store(p.park(std::chrono::hours(1))); });
  std::this_thread::sleep_for(2ms);
  p.unpark();
  sleeper.join();
  EXPECT_TRUE(parked_result.load()) << "a 1 h park ended without consuming the token";
}

// A finite timeout so long that now() + timeout overflows steady_clock must behave
// like a long sleep ended by unpark(), not like an already expired deadline.
TEST(Parker, HugeFiniteTimeoutIsEndedByUnparkNotTreatedAsExpired) {
  sptest::Watchdog dog("HugeFiniteTimeoutIsEndedByUnpark");
  spd::Parker p;
  std::atomic<bool> returned{false};
  bool result = false;
  std::thread sleeper([&] {
    result = p.park(spd::Parker::kForever - 1ns);
    returned.store(true);
  });
  std::this_thread::sleep_for(20ms);
  const bool returned_early = returned.load();
  p.unpark();
  sleeper.join();
  EXPECT_FALSE(returned_early) << "park(kForever - 1ns) returned before any unpark (deadline overflowed)";
  EXPECT_TRUE(result);
}

}  // namespace

// Yield policies: NeverYield, AlwaysYield, EveryN, AdaptiveYield, and the
// argument checks. (The executor-level "task re-enqueues itself with a cursor"
// test is in executor_test.cpp.)
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "stealpool/yield_policy.hpp"

namespace sp = stealpool;
using namespace std::chrono_literals;

namespace {

TEST(YieldPolicy, NeverYieldNeverYields) {
  sp::NeverYield p;
  for (int i = 0; i < 1000; ++i) ASSERT_FALSE(p.should_yield());
  p.reset();
  EXPECT_FALSE(p.should_yield());
}

TEST(YieldPolicy, AlwaysYieldAlwaysYields) {
  sp::AlwaysYield p;
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(p.should_yield());
  p.reset();
  EXPECT_TRUE(p.should_yield());
}

TEST(YieldPolicy, EveryNYieldsOnEveryNthUnit) {
  for (std::uint32_t n : {1u, 2u, 7u, 64u}) {
    sp::EveryN p(n);
    EXPECT_EQ(p.n(), n);
    for (std::uint32_t i = 1; i <= 5 * n; ++i) ASSERT_EQ(p.should_yield(), i % n == 0) << "n " << n << " unit " << i;
  }
}

TEST(YieldPolicy, EveryNResetStartsANewCount) {
  sp::EveryN p(3);
  EXPECT_FALSE(p.should_yield());
  EXPECT_FALSE(p.should_yield());
  p.reset();
  EXPECT_FALSE(p.should_yield());
  EXPECT_FALSE(p.should_yield());
  EXPECT_TRUE(p.should_yield());
}

TEST(YieldPolicy, EveryNRejectsZero) {
  try {
    sp::EveryN p(0);
    ADD_FAILURE() << "EveryN(0) did not throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("n must be"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("0"), std::string::npos) << e.what();
  }
}

TEST(YieldPolicy, AdaptiveYieldRejectsBadArguments) {
  EXPECT_THROW(sp::AdaptiveYield(0ns), std::invalid_argument);
  EXPECT_THROW(sp::AdaptiveYield(-1ms), std::invalid_argument);
  EXPECT_THROW(sp::AdaptiveYield(1ms, 0), std::invalid_argument);
  try {
    sp::AdaptiveYield p(1ms, 0);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("check_every"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(sp::AdaptiveYield());
}

TEST(YieldPolicy, AdaptiveYieldNeverYieldsBeforeItsSliceElapses) {
  sp::AdaptiveYield p(std::chrono::hours(1), 4);
  for (int i = 0; i < 10000; ++i) ASSERT_FALSE(p.should_yield()) << "unit " << i;
}

TEST(YieldPolicy, AdaptiveYieldReadsTheClockOnlyEveryCheckEveryUnits) {
  sp::AdaptiveYield p(1ns, 4);
  std::this_thread::sleep_for(1ms);  // the slice is over
  EXPECT_FALSE(p.should_yield());
  EXPECT_FALSE(p.should_yield());
  EXPECT_FALSE(p.should_yield());
  EXPECT_TRUE(p.should_yield()) << "the 4th unit checks the clock and the slice is over";
  // A yield starts a new slice and a new count.
  std::this_thread::sleep_for(1ms);
  EXPECT_FALSE(p.should_yield());
  EXPECT_FALSE(p.should_yield());
  EXPECT_FALSE(p.should_yield());
  EXPECT_TRUE(p.should_yield());
}

TEST(YieldPolicy, AdaptiveYieldResetStartsANewSlice) {
  sp::AdaptiveYield p(std::chrono::hours(1), 1);
  EXPECT_FALSE(p.should_yield());
  p.reset();
  EXPECT_FALSE(p.should_yield());
}

}  // namespace

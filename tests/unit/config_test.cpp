// ExecutorConfig: the seed's defaults, and validation that names the bad field
// and value. Also the Executor constructor's argument checks, which throw before
// any worker starts.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;

namespace {

// Returns what() of the std::invalid_argument `fn` throws ("" if it throws none).
template <class Fn>
std::string invalid_argument_message(Fn fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ExecutorConfig, DefaultsEqualTheSpecificationButForPinning) {
  const sp::ExecutorConfig cfg;
  EXPECT_EQ(cfg.workers, 1u);
  EXPECT_EQ(cfg.seed, 0x853c49e6748fea9bull);
  EXPECT_EQ(cfg.steal_tries, 4u);
  EXPECT_EQ(cfg.spin_iters, 200u);
  EXPECT_EQ(cfg.park_timeout, std::chrono::microseconds(200));
  // Seed 000 pins on Linux; we do not by default (affinity.hpp says why).
  EXPECT_FALSE(cfg.pin_threads);
  EXPECT_FALSE(sp::default_pin_threads());
  EXPECT_NO_THROW(cfg.validate());
}

TEST(ExecutorConfig, WakeOnHoardThresholdIsTheSpecifications) {
  EXPECT_EQ(sp::kWakeOnHoardThreshold, 32u);
}

TEST(ExecutorConfig, ZeroWorkersIsRejectedNamingFieldAndValue) {
  sp::ExecutorConfig cfg;
  cfg.workers = 0;
  const std::string msg = invalid_argument_message([&] { cfg.validate(); });
  EXPECT_NE(msg.find("workers"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0"), std::string::npos) << msg;
}

TEST(ExecutorConfig, TooManyWorkersIsRejectedNamingFieldAndValue) {
  sp::ExecutorConfig cfg;
  cfg.workers = sp::ExecutorConfig::kMaxWorkers;
  EXPECT_NO_THROW(cfg.validate());
  cfg.workers = sp::ExecutorConfig::kMaxWorkers + 1;
  const std::string msg = invalid_argument_message([&] { cfg.validate(); });
  EXPECT_NE(msg.find("workers"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(sp::ExecutorConfig::kMaxWorkers + 1)), std::string::npos) << msg;
}

TEST(ExecutorConfig, ZeroStealTriesIsRejectedNamingFieldAndValue) {
  sp::ExecutorConfig cfg;
  cfg.steal_tries = 0;
  const std::string msg = invalid_argument_message([&] { cfg.validate(); });
  EXPECT_NE(msg.find("steal_tries"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0"), std::string::npos) << msg;
}

TEST(ExecutorConfig, StealTriesAboveTheMaximumIsRejectedNamingFieldAndValue) {
  sp::ExecutorConfig cfg;
  cfg.steal_tries = sp::ExecutorConfig::kMaxStealTries;
  EXPECT_NO_THROW(cfg.validate());
  cfg.steal_tries = UINT32_MAX;
  const std::string msg = invalid_argument_message([&] { cfg.validate(); });
  EXPECT_NE(msg.find("steal_tries"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(UINT32_MAX)), std::string::npos) << msg;
}

TEST(ExecutorConfig, SpinItersAboveTheMaximumIsRejectedNamingFieldAndValue) {
  sp::ExecutorConfig cfg;
  cfg.spin_iters = sp::ExecutorConfig::kMaxSpinIters;
  EXPECT_NO_THROW(cfg.validate());
  cfg.spin_iters = sp::ExecutorConfig::kMaxSpinIters + 1;
  const std::string msg = invalid_argument_message([&] { cfg.validate(); });
  EXPECT_NE(msg.find("spin_iters"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(sp::ExecutorConfig::kMaxSpinIters + 1)), std::string::npos) << msg;
}

// The largest values validate() accepts still let join() return promptly (the
// issue that led to the limits: UINT32_MAX kept join() of one task waiting for
// minutes). No timing is judged: a hang trips the test's timeout. A release
// build takes about 8 s here (spin phases of 100,000 rounds of 4,096 steal
// tries), a sanitizer build 30 s and more for nothing a sanitizer could add:
// it runs in the plain builds only.
TEST(ExecutorConfig, TheLargestAcceptedStealTriesAndSpinItersStillJoin) {
  if (sptest::kDefaultScale > 1) GTEST_SKIP() << "release builds only: a bound on time, not on memory or races";
  sp::ExecutorConfig cfg;
  cfg.pin_threads = false;
  cfg.workers = 2;
  cfg.steal_tries = sp::ExecutorConfig::kMaxStealTries;
  cfg.spin_iters = sp::ExecutorConfig::kMaxSpinIters;
  int ran = 0;
  sp::Executor<int> ex(cfg, [&](int v, auto&) { ran += v; });
  ASSERT_TRUE(ex.spawn_external(1));
  EXPECT_EQ(ex.join().tasks_executed, 1u);
  EXPECT_EQ(ran, 1);
}

TEST(ExecutorConfig, NonPositiveParkTimeoutIsRejectedNamingFieldAndValue) {
  sp::ExecutorConfig cfg;
  cfg.park_timeout = std::chrono::nanoseconds(0);
  std::string msg = invalid_argument_message([&] { cfg.validate(); });
  EXPECT_NE(msg.find("park_timeout"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0"), std::string::npos) << msg;

  cfg.park_timeout = std::chrono::nanoseconds(-5);
  msg = invalid_argument_message([&] { cfg.validate(); });
  EXPECT_NE(msg.find("park_timeout"), std::string::npos) << msg;
  EXPECT_NE(msg.find("-5"), std::string::npos) << msg;
}

TEST(ExecutorConfig, ZeroSpinItersAndSeedZeroAreValid) {
  sp::ExecutorConfig cfg;
  cfg.spin_iters = 0;
  cfg.seed = 0;
  cfg.park_timeout = std::chrono::nanoseconds(1);
  EXPECT_NO_THROW(cfg.validate());
}

TEST(ExecutorConstructor, RejectsAnInvalidConfigBeforeStartingWorkers) {
  sp::ExecutorConfig cfg;
  cfg.pin_threads = false;
  cfg.workers = 0;
  bool ran = false;
  const std::string msg = invalid_argument_message([&] {
    sp::Executor<int> ex(cfg, [&](int, auto&) { ran = true; });
  });
  EXPECT_NE(msg.find("workers"), std::string::npos) << msg;
  EXPECT_FALSE(ran);
}

TEST(ExecutorConstructor, RejectsAnEmptyRunner) {
  sp::ExecutorConfig cfg;
  cfg.pin_threads = false;
  sp::Executor<int>::Runner empty;
  const std::string msg = invalid_argument_message([&] { sp::Executor<int> ex(cfg, empty); });
  EXPECT_NE(msg.find("runner"), std::string::npos) << msg;
}

TEST(ExecutorConstructor, RejectsAnEmptyScratchInit) {
  sp::ExecutorConfig cfg;
  cfg.pin_threads = false;
  sp::Executor<int, int>::ScratchInit empty;
  const std::string msg = invalid_argument_message([&] {
    sp::Executor<int, int> ex(cfg, empty, [](int, sp::WorkerCtx<int, int>&) {});
  });
  EXPECT_NE(msg.find("scratch_init"), std::string::npos) << msg;
}

}  // namespace

// Behaviour only LockedWsq (seed 001) has: what the thieves' lock does and does
// not block (try_steal's retry and timeout, the owner's lock-free fast path,
// growth under the lock), and the owner's "empty" while thieves are mid-claim.
// The spec it shares with ChaseLevDeque (LIFO pop, FIFO steal and try_steal,
// exact "empty", growth, item types, the exactly-once race) is in
// deque_spec_test.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

#include "../support/queue_support.hpp"
#include "stealpool/queue/locked_wsq.hpp"

namespace sp = stealpool;
using namespace std::chrono_literals;
using sptest::queue::scaled;

namespace {

// A Sync policy whose thieves' lock a test can hold from outside: the queue uses
// Sync::mutex when the policy has one.
struct HoldableSync : sp::detail::StdSync {
  struct mutex : std::mutex {
    mutex() { latest = this; }
    static inline mutex* latest = nullptr;
  };
};

// ---- the lock -----------------------------------------------------------------

TEST(LockedWsq, TryStealReportsRetryWhileTheLockIsHeldAndSucceedsAfter) {
  sp::LockedWsq<int, HoldableSync> q;
  q.push(1);
  HoldableSync::mutex* lock = HoldableSync::mutex::latest;
  lock->lock();
  EXPECT_TRUE(q.try_steal(0ns).is_retry());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(q.try_steal(5ms).is_retry());
  EXPECT_GE(std::chrono::steady_clock::now() - start, 5ms) << "gave up before the timeout";
  lock->unlock();
  sp::Steal<int> s = q.try_steal(0ns);
  ASSERT_TRUE(s.is_success());
  EXPECT_EQ(s.value(), 1);
}

TEST(LockedWsq, OwnerPushesAndPopsWithoutTheLockWhileAThiefHoldsIt) {
  sp::LockedWsq<int, HoldableSync> q(32);
  HoldableSync::mutex* lock = HoldableSync::mutex::latest;
  std::lock_guard held(*lock);
  for (int i = 0; i < 10; ++i) q.push(i);   // no growth needed
  for (int i = 9; i >= 0; --i) EXPECT_EQ(q.pop(), i);  // down to the last item
}

TEST(LockedWsq, PushThatMustGrowWaitsForTheLock) {
  sp::LockedWsq<int, HoldableSync> q(32);
  HoldableSync::mutex* lock = HoldableSync::mutex::latest;
  lock->lock();
  std::thread owner([&] {
    for (int i = 0; i < 40; ++i) q.push(i);
  });
  // 31 items fit with the spare slot; the 32nd push needs the lock.
  while (q.size_hint() < 31) std::this_thread::yield();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(q.size_hint(), 31u);
  lock->unlock();
  owner.join();
  EXPECT_EQ(q.capacity(), 64u);
  for (int i = 0; i < 40; ++i) {
    sp::Steal<int> s = q.steal();
    ASSERT_TRUE(s.is_success());
    EXPECT_EQ(s.value(), i);
  }
}

// ---- concurrent -----------------------------------------------------------------

// The owner's "empty" must be the truth even while thieves are mid-claim (their
// transient head): after every pop that says empty, nothing may be left behind.
TEST(LockedWsqRaceEmpty, OwnerPopReportsEmptyOnlyWhenNothingIsLeft) {
  const std::uint64_t rounds = scaled(1'000'000);
  sp::LockedWsq<std::uint64_t> q;
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> stolen{0};
  std::thread thief([&] {
    while (!stop.load(std::memory_order::relaxed))
      if (q.try_steal(0ns).is_success()) stolen.fetch_add(1, std::memory_order::relaxed);
  });
  std::uint64_t popped = 0, false_empty = 0;
  for (std::uint64_t r = 0; r < rounds; ++r) {
    q.push(r);
    if (q.pop()) ++popped;
    // After an "empty" pop no item can remain: the owner is the only pusher.
    else if (q.pop()) ++false_empty, ++popped;
  }
  stop.store(true, std::memory_order::relaxed);
  thief.join();
  while (q.pop()) ++popped;
  EXPECT_EQ(false_empty, 0u);
  EXPECT_EQ(popped + stolen.load(), rounds);
}

}  // namespace

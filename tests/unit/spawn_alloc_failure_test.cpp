// A spawn whose queueing fails to allocate (std::bad_alloc from boxing, a
// deque growing, or a new injector block) throws to the spawner and leaves no
// trace: the task is not counted, so join() and TaskGroup::wait() return once
// the tasks that were queued have run, instead of waiting forever for one that
// does not exist.
//
// This binary replaces the global operator new: on a thread that arms it, an
// allocation of 1 KiB or more fails (the task boxes and group jobs here are
// smaller; deque buffers and injector blocks are larger).
//
// Seen to fail: with WorkerCtx::counted()'s give-back removed, the executor
// tests hang in join() (the watchdog aborts); with TaskGroup::spawn's unspawn()
// removed, the group tests hang in wait().
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <new>

#include "../support/forkjoin_workloads.hpp"
#include "../support/test_support.hpp"
#include "stealpool/forkjoin.hpp"
#include "stealpool/stealpool.hpp"

namespace {

thread_local bool fail_large_allocations = false;
constexpr std::size_t kLarge = 1024;

void* allocate(std::size_t n, std::size_t align) {
  if (fail_large_allocations && n >= kLarge) throw std::bad_alloc();
  void* p = align <= alignof(std::max_align_t) ? std::malloc(n == 0 ? 1 : n)
                                               : std::aligned_alloc(align, (n + align - 1) / align * align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

// Arms the failure on this thread for its scope.
struct FailLargeAllocations {
  FailLargeAllocations() { fail_large_allocations = true; }
  ~FailLargeAllocations() { fail_large_allocations = false; }
};

}  // namespace

void* operator new(std::size_t n) { return allocate(n, alignof(std::max_align_t)); }
void* operator new[](std::size_t n) { return allocate(n, alignof(std::max_align_t)); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate(n, static_cast<std::size_t>(a)); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace sp = stealpool;
using namespace std::chrono_literals;

namespace {

enum class Path { local, global };

// A root task spawns children on `path` until a spawn throws std::bad_alloc;
// every child that was accepted must run, and join() must return.
void spawn_until_allocation_fails(Path path) {
  sptest::Watchdog dog("SpawnAllocationFailure", 120s);
  std::atomic<int> accepted{0}, ran{0};
  std::atomic<bool> threw{false};
  sp::Executor<int> ex(sptest::config_with(2), [&](int v, sp::WorkerCtx<int, sp::NoScratch>& ctx) {
    if (v != 0) {
      ran.fetch_add(1);
      return;
    }
    FailLargeAllocations armed;
    for (int i = 0; i < 1'000'000; ++i) {
      try {
        if (path == Path::local) ctx.spawn_local(1);
        else ctx.spawn_global(1);
      } catch (const std::bad_alloc&) {
        threw = true;
        return;
      }
      accepted.fetch_add(1);
    }
  });
  ASSERT_TRUE(ex.spawn_external(0));
  const sp::MetricsSnapshot m = ex.join();
  ASSERT_TRUE(threw.load()) << "no allocation failed: the test proved nothing";
  EXPECT_GT(accepted.load(), 0);
  EXPECT_EQ(ran.load(), accepted.load());
  EXPECT_EQ(m.tasks_executed, static_cast<std::uint64_t>(accepted.load()) + 1);
}

TEST(SpawnAllocationFailure, AFailedLocalSpawnThrowsAndJoinStillReturns) { spawn_until_allocation_fails(Path::local); }

TEST(SpawnAllocationFailure, AFailedGlobalSpawnThrowsAndJoinStillReturns) {
  spawn_until_allocation_fails(Path::global);
}

TEST(SpawnAllocationFailure, AFailedGroupSpawnFromOutsideThrowsAndWaitStillReturns) {
  sptest::Watchdog dog("AFailedGroupSpawnFromOutside", 120s);
  sp::ThreadPool pool(sptest::unpinned(2));
  std::atomic<int> ran{0};
  int accepted = 0;
  sp::TaskGroup tg(pool);
  {
    FailLargeAllocations armed;
    try {
      for (int i = 0; i < 1'000'000; ++i, ++accepted) tg.spawn([&] { ran.fetch_add(1); });
      FAIL() << "no allocation failed: the test proved nothing";
    } catch (const std::bad_alloc&) {
    }
  }
  EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
  EXPECT_GT(accepted, 0);
  EXPECT_EQ(ran.load(), accepted);
}

// One worker: the spawning task's own deque fills (nobody steals), the spawns
// overflow to the injector, and a new injector block fails to allocate.
TEST(SpawnAllocationFailure, AFailedGroupSpawnFromAFullDequeThrowsAndWaitStillReturns) {
  sptest::Watchdog dog("AFailedGroupSpawnFromAFullDeque", 120s);
  sp::ThreadPool pool(sptest::unpinned(1));
  const int accepted = pool.run([] {
    std::atomic<int> ran{0};
    int ok = 0;
    sp::TaskGroup tg;
    {
      FailLargeAllocations armed;
      try {
        for (int i = 0; i < 1'000'000; ++i, ++ok) tg.spawn([&] { ran.fetch_add(1); });
      } catch (const std::bad_alloc&) {
      }
    }
    EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
    EXPECT_EQ(ran.load(), ok);
    return ok;
  });
  EXPECT_GT(accepted, 8192) << "the spawns should have filled the deque before failing";
  EXPECT_LT(accepted, 1'000'000) << "no allocation failed: the test proved nothing";
}

}  // namespace

// A spawn whose queueing fails to allocate throws std::bad_alloc to the
// spawner and leaves no trace: the task is not counted and not queued, so
// join() and TaskGroup::wait() return once the tasks that were accepted have
// run, instead of waiting forever for one that does not exist.
//
// This binary replaces the global operator new (tests/support/armed_new.hpp)
// with one that, on a thread that arms it, fails the Nth allocation. Each scenario first runs unarmed and
// counts the allocations its spawns make (boxed tasks, deque growth, injector
// blocks, JobArena chunks and their bookkeeping, heap jobs from outside the
// pool), then runs again once for every N up to that count, so every
// allocation a spawn path makes is the failing one in some run.
//
// Seen to fail: with WorkerCtx::counted()'s give-back removed, the executor
// scenarios hang in join() (the watchdog aborts); with TaskGroup::spawn's
// unspawn() removed, the group scenarios hang in wait().
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <new>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "../support/armed_new.hpp"
#include "../support/forkjoin_workloads.hpp"
#include "../support/park_counter.hpp"
#include "../support/test_support.hpp"
#include "stealpool/forkjoin.hpp"
#include "stealpool/queue/injector.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using namespace std::chrono_literals;

namespace {

// What one run of a scenario saw.
struct Outcome {
  long spawns_accepted = 0;
  long tasks_ran = 0;
  long allocations = 0;  // by the spawning thread while armed
  bool threw = false;
};

// Armed to fail allocation n, calls spawn(i) for i < count until one throws
// std::bad_alloc; records what was accepted and how many allocations were made.
template <class Spawn>
void spawn_armed(long n, int count, Outcome& out, Spawn spawn) {
  sptest::alloc::Armed armed(n);
  try {
    for (int i = 0; i < count; ++i, ++out.spawns_accepted) spawn(i);
  } catch (const std::bad_alloc&) {
    out.threw = true;
  }
  out.allocations = armed.count();
}

// Runs `scenario(fail_at)` unarmed to count its allocations, then once per
// allocation with that one failing; each run must throw (unless it made fewer
// than n allocations: with thieves about, a deque grows less often when they
// took items), and must run exactly the tasks it accepted.
void fail_each_allocation(const std::string& name, const std::function<Outcome(long)>& scenario) {
  const Outcome clean = scenario(0);
  ASSERT_FALSE(clean.threw) << name;
  ASSERT_EQ(clean.tasks_ran, clean.spawns_accepted) << name;
  ASSERT_GT(clean.allocations, 0) << name << ": the spawns allocated nothing: the test would prove nothing";
  long failed = 0;
  for (long n = 1; n <= clean.allocations; ++n) {
    const Outcome o = scenario(n);
    ASSERT_TRUE(o.threw || o.allocations < n)
        << name << ": allocation " << n << " of " << o.allocations << " happened but did not fail a spawn";
    ASSERT_EQ(o.tasks_ran, o.spawns_accepted) << name << ", allocation " << n << " failed";
    failed += o.threw ? 1 : 0;
  }
  EXPECT_GE(failed, clean.allocations / 2) << name << ": most runs should have failed a spawn";
}

// A task bigger than TaskBox's inline limit: every spawn boxes it.
struct Boxed {
  long payload[6] = {};
};

enum class Path { local, global };

// A root task of an executor spawns `count` children on `path`, armed.
Outcome executor_spawns(Path path, int count, long fail_at) {
  Outcome out;
  std::atomic<long> ran{0};
  sp::Executor<Boxed> ex(sptest::config_with(2), [&](Boxed b, sp::WorkerCtx<Boxed, sp::NoScratch>& ctx) {
    if (b.payload[0] != 0) {
      ran.fetch_add(1);
      return;
    }
    spawn_armed(fail_at, count, out, [&](int) {
      Boxed child;
      child.payload[0] = 1;
      if (path == Path::local) ctx.spawn_local(child);
      else ctx.spawn_global(child);
    });
  });
  EXPECT_TRUE(ex.spawn_external(Boxed{}));
  const sp::MetricsSnapshot m = ex.join();
  out.tasks_ran = ran.load();
  EXPECT_EQ(m.tasks_executed, static_cast<std::uint64_t>(out.spawns_accepted) + 1);
  return out;
}

TEST(SpawnAllocationFailure, EveryFailedAllocationOfALocalSpawnThrowsAndJoinStillReturns) {
  sptest::Watchdog dog("SpawnAllocationFailure.Local", 240s);
  fail_each_allocation("spawn_local", [](long n) { return executor_spawns(Path::local, 600, n); });
}

TEST(SpawnAllocationFailure, EveryFailedAllocationOfAGlobalSpawnThrowsAndJoinStillReturns) {
  sptest::Watchdog dog("SpawnAllocationFailure.Global", 240s);
  fail_each_allocation("spawn_global", [](long n) { return executor_spawns(Path::global, 600, n); });
}

// An external batch whose queueing fails part-way (the injector's next block)
// leaves the blocks before it queued, and they run: the pool, asleep when the
// batch came, must be woken for them, not left asleep until join(). Allocation
// n (the spare block claimed with the n-th block's last slot) fails: n - 1
// blocks went in. Seen to fail without the wake-up in spawn_batch's handler:
// nothing runs until join().
TEST(SpawnAllocationFailure, APartlyQueuedBatchWakesAParkedPool) {
  sptest::Watchdog dog("SpawnAllocationFailure.PartlyQueuedBatch", 120s);
  constexpr long kBlock = static_cast<long>(sp::Injector<long>::kBlockSlots);
  for (long n = 1; n <= 3; ++n) {
    sptest::ParkCounter parks;
    sp::ExecutorConfig cfg = sptest::config_with(1);
    cfg.trace = &parks;
    std::atomic<long> ran{0};
    sp::Executor<long> ex(cfg, [&](long, auto&) { ran.fetch_add(1); });
    ASSERT_TRUE(sptest::wait_until([&] { return parks.parks() >= 1; })) << "the worker never parked";
    std::this_thread::sleep_for(20ms);  // past its re-check (park_counter.hpp): asleep
    const std::vector<long> batch(static_cast<std::size_t>(3 * kBlock + 10), 1);
    bool threw = false;
    {
      sptest::alloc::Armed armed(n);
      try {
        (void)ex.spawn_external_batch(std::span<const long>(batch));
      } catch (const std::bad_alloc&) {
        threw = true;
      }
    }
    ASSERT_TRUE(threw) << "allocation " << n;
    const long queued = (n - 1) * kBlock;
    EXPECT_TRUE(sptest::wait_until([&] { return ran.load() == queued; }))
        << "allocation " << n << ": " << ran.load() << " of the " << queued << " queued tasks ran before join()";
    (void)ex.join();
    EXPECT_EQ(ran.load(), queued) << "allocation " << n;
  }
}

// A thread that is not a worker spawns into a group: a heap job per spawn,
// injector blocks.
TEST(SpawnAllocationFailure, EveryFailedAllocationOfAGroupSpawnFromOutsideThrowsAndWaitStillReturns) {
  sptest::Watchdog dog("SpawnAllocationFailure.GroupOutside", 240s);
  sp::ThreadPool pool(sptest::unpinned(2));
  fail_each_allocation("TaskGroup::spawn from outside", [&](long n) {
    Outcome out;
    std::atomic<long> ran{0};
    sp::TaskGroup tg(pool);
    spawn_armed(n, 300, out, [&](int) { tg.spawn([&] { ran.fetch_add(1); }); });
    EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
    out.tasks_ran = ran.load();
    return out;
  });
}

// One worker spawns from a job: JobArena chunks, then (nobody steals) the
// deque fills and spawns overflow to the injector, whose blocks are allocated
// too. The callable is too big for an arena block in the second case, so the
// heap-job path from a worker is covered as well.
// A new pool per run: a warm arena would make fewer allocations than the
// unarmed run counted.
template <std::size_t kCaptureBytes>
void group_spawns_from_a_worker(int count) {
  fail_each_allocation("TaskGroup::spawn on a worker, capture " + std::to_string(kCaptureBytes), [&](long n) {
    sp::ThreadPool pool(sptest::unpinned(1));
    return pool.run([&] {
      Outcome out;
      std::atomic<long> ran{0};
      struct Capture {
        unsigned char bytes[kCaptureBytes];
      } capture{};
      sp::TaskGroup tg;
      spawn_armed(n, count, out, [&](int) { tg.spawn([&ran, capture] { ran.fetch_add(1 + capture.bytes[0]); }); });
      EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
      out.tasks_ran = ran.load();
      return out;
    });
  });
}

TEST(SpawnAllocationFailure, EveryFailedAllocationOfAGroupSpawnOnAWorkerThrowsAndWaitStillReturns) {
  sptest::Watchdog dog("SpawnAllocationFailure.GroupWorker", 240s);
  // 8192 fill the one worker's deque; the rest go to the injector.
  group_spawns_from_a_worker<8>(8192 + 600);
}

TEST(SpawnAllocationFailure, EveryFailedAllocationOfAnOversizedGroupSpawnThrowsAndWaitStillReturns) {
  sptest::Watchdog dog("SpawnAllocationFailure.GroupWorkerOversized", 240s);
  static_assert(200 > sp::detail::JobArena::kPayload, "the capture must not fit an arena block");
  group_spawns_from_a_worker<200>(300);
}

}  // namespace

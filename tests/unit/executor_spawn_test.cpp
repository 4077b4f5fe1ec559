// Executor spawn paths: spawn_external, spawn_external_batch, ExecutorHandle
// spawn / spawn_batch (span<T> and span<const T>), is_accepting; rejection after
// join or shutdown leaves the caller's task(s) unchanged; task types that travel
// by value and boxed; unrun tasks are destroyed and counted; nothing leaks.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using sptest::config_with;
using sptest::TaskCounters;
using sptest::Tracked;

namespace {

template <class T>
constexpr bool kInline = sp::detail::TaskBox<T>::kInline;

TEST(ExecutorSpawn, AllSpawnEntryPointsAcceptWhileOpen) {
  std::atomic<int> sum{0};
  sp::Executor<int> ex(config_with(2), [&](int v, auto&) { sum.fetch_add(v); });
  auto h = ex.handle();
  EXPECT_TRUE(h.is_accepting());
  const int one = 1;
  EXPECT_TRUE(ex.spawn_external(one));  // const T&
  EXPECT_TRUE(ex.spawn_external(2));    // T&&
  EXPECT_TRUE(h.spawn(one * 4));
  const int c = 8;
  EXPECT_TRUE(h.spawn(c));
  std::array<int, 2> a{16, 32};
  EXPECT_TRUE(ex.spawn_external_batch(std::span<int>(a)));
  EXPECT_TRUE(ex.spawn_external_batch(std::span<const int>(a)));  // 16, 32 again
  std::array<int, 1> b{64};
  EXPECT_TRUE(h.spawn_batch(std::span<int>(b)));
  EXPECT_TRUE(h.spawn_batch(std::span<const int>(b)));
  std::thread other([h]() mutable { EXPECT_TRUE(h.spawn(256)); });  // handles are copyable, usable anywhere
  other.join();
  EXPECT_EQ(ex.workers(), 2u);
  const sp::MetricsSnapshot m = ex.join();
  EXPECT_EQ(sum.load(), 1 + 2 + 4 + 8 + 48 + 48 + 64 + 64 + 256);
  EXPECT_EQ(m.tasks_executed, 11u);
  EXPECT_FALSE(h.is_accepting());
}

TEST(ExecutorSpawn, SpawnAfterJoinIsRejectedAndStringTaskKept) {
  sp::Executor<std::string> ex(config_with(1), [](std::string, auto&) {});
  auto h = ex.handle();
  (void)ex.join();
  EXPECT_FALSE(h.is_accepting());
  std::string s = "a task long enough to defeat the small string optimisation";
  const std::string original = s;
  EXPECT_FALSE(ex.spawn_external(std::move(s)));
  EXPECT_EQ(s, original) << "a rejected spawn must leave the task with the caller";
  EXPECT_FALSE(h.spawn(std::move(s)));
  EXPECT_EQ(s, original);
  EXPECT_FALSE(ex.spawn_external(s));
  EXPECT_FALSE(h.spawn(s));
}

TEST(ExecutorSpawn, SpawnAfterJoinIsRejectedAndMoveOnlyTaskKept) {
  sp::Executor<std::unique_ptr<int>> ex(config_with(2), [](std::unique_ptr<int>, auto&) {});
  (void)ex.join();
  auto p = std::make_unique<int>(42);
  EXPECT_FALSE(ex.spawn_external(std::move(p)));
  ASSERT_NE(p, nullptr) << "the rejected task was moved from";
  EXPECT_EQ(*p, 42);
  auto h = ex.handle();
  EXPECT_FALSE(h.spawn(std::move(p)));
  ASSERT_NE(p, nullptr);
}

TEST(ExecutorSpawn, SpawnAfterShutdownIsRejectedAndTaskKept) {
  sp::Executor<std::unique_ptr<int>> ex(config_with(2), [](std::unique_ptr<int>, auto&) {});
  auto h = ex.handle();
  ex.shutdown();
  EXPECT_FALSE(h.is_accepting());
  auto p = std::make_unique<int>(7);
  EXPECT_FALSE(ex.spawn_external(std::move(p)));
  EXPECT_FALSE(h.spawn(std::move(p)));
  ASSERT_NE(p, nullptr);
  std::vector<std::unique_ptr<int>> batch;
  batch.push_back(std::make_unique<int>(1));
  EXPECT_FALSE(h.spawn_batch(std::span<std::unique_ptr<int>>(batch)));
  ASSERT_NE(batch[0], nullptr);
  (void)ex.join();
}

TEST(ExecutorSpawn, RejectedBatchLeavesEveryTaskWithTheCaller) {
  sp::Executor<std::unique_ptr<int>> ex(config_with(2), [](std::unique_ptr<int>, auto&) {});
  (void)ex.join();
  std::vector<std::unique_ptr<int>> batch;
  for (int i = 0; i < 100; ++i) batch.push_back(std::make_unique<int>(i));  // > one 64-task chunk
  EXPECT_FALSE(ex.spawn_external_batch(std::span<std::unique_ptr<int>>(batch)));
  EXPECT_FALSE(ex.handle().spawn_batch(std::span<std::unique_ptr<int>>(batch)));
  for (int i = 0; i < 100; ++i) {
    ASSERT_NE(batch[i], nullptr) << "task " << i << " was moved from by a rejected batch";
    EXPECT_EQ(*batch[i], i);
  }
}

TEST(ExecutorSpawn, AcceptedBatchOfMovableTasksIsMovedFromAndRuns) {
  std::atomic<long> sum{0};
  sp::Executor<std::unique_ptr<int>> ex(config_with(2), [&](std::unique_ptr<int> p, auto&) { sum.fetch_add(*p); });
  std::vector<std::unique_ptr<int>> batch;
  for (int i = 0; i < 200; ++i) batch.push_back(std::make_unique<int>(i));
  ASSERT_TRUE(ex.spawn_external_batch(std::span<std::unique_ptr<int>>(batch)));
  for (const auto& p : batch) EXPECT_EQ(p, nullptr) << "an accepted task was not moved from";
  const sp::MetricsSnapshot m = ex.join();
  EXPECT_EQ(sum.load(), 199 * 200 / 2);
  EXPECT_EQ(m.tasks_executed, 200u);
}

TEST(ExecutorSpawn, AcceptedBatchOfConstTasksIsCopiedAndRuns) {
  std::atomic<std::size_t> chars{0};
  sp::Executor<std::string> ex(config_with(2), [&](std::string s, auto&) { chars.fetch_add(s.size()); });
  const std::vector<std::string> batch(150, std::string(40, 'x'));
  ASSERT_TRUE(ex.spawn_external_batch(std::span<const std::string>(batch)));
  ASSERT_TRUE(ex.handle().spawn_batch(std::span<const std::string>(batch)));
  for (const auto& s : batch) EXPECT_EQ(s, std::string(40, 'x')) << "a const batch was modified";
  (void)ex.join();
  EXPECT_EQ(chars.load(), 2u * 150 * 40);
}

TEST(ExecutorSpawn, EmptyBatchIsAcceptedWhileOpenAndRejectedAfterClose) {
  std::atomic<int> runs{0};
  sp::Executor<std::string> ex(config_with(1), [&](std::string, auto&) { runs.fetch_add(1); });
  std::vector<std::string> none;
  EXPECT_TRUE(ex.spawn_external_batch(std::span<std::string>(none)));
  EXPECT_TRUE(ex.handle().spawn_batch(std::span<const std::string>(none)));
  const sp::MetricsSnapshot m = ex.join();
  EXPECT_EQ(runs.load(), 0);
  EXPECT_EQ(m.tasks_executed, 0u);
  EXPECT_FALSE(ex.spawn_external_batch(std::span<std::string>(none)));
  EXPECT_FALSE(ex.handle().spawn_batch(std::span<const std::string>(none)));
}

TEST(ExecutorSpawn, LargeInlineBatchSpanningSeveralInjectorBlocksRunsEveryTask) {
  constexpr std::uint32_t kTasks = 5000;  // blocks hold 255
  std::vector<std::atomic<std::uint8_t>> runs(kTasks);
  sp::Executor<std::uint32_t> ex(config_with(2), [&](std::uint32_t i, auto&) { runs[i].fetch_add(1); });
  std::vector<std::uint32_t> batch(kTasks);
  for (std::uint32_t i = 0; i < kTasks; ++i) batch[i] = i;
  ASSERT_TRUE(ex.spawn_external_batch(std::span<std::uint32_t>(batch)));
  (void)ex.join();
  for (std::uint32_t i = 0; i < kTasks; ++i) ASSERT_EQ(runs[i].load(), 1) << "task " << i;
}

// --- task types ---------------------------------------------------------------

struct SmallPod {
  std::uint32_t id;
  double weight;
  char tag[8];
};
struct BigPod {  // trivially copyable but 40 bytes: boxed
  std::uint64_t words[5];
};
static_assert(kInline<int> && kInline<SmallPod>, "small trivially copyable tasks travel by value");
static_assert(!kInline<BigPod> && !kInline<std::string> && !kInline<std::unique_ptr<int>>,
              "large or non-trivial tasks are boxed");

// Layout, not timing: every external spawn is a CAS on the state word, and
// workers read the config at every step. On one cache line (pair), each spawn's
// CAS was a coherence miss while a worker polled: 1.3-1.9x slower single spawns
// on 2 cores (docs/results-log.md, 2026-11-27, "Single external spawns").
// queued_hint(): what the running worker's own deque holds. One worker, so no
// thief takes anything between the spawns and the reads.
TEST(ExecutorSpawn, QueuedHintCountsTheTasksWaitingInTheWorkersOwnDeque) {
  std::vector<std::size_t> seen;
  sp::Executor<int> ex(config_with(1), [&](int v, sp::WorkerCtx<int, sp::NoScratch>& w) {
    if (v != 0) return;
    seen.push_back(w.queued_hint());
    for (int i = 1; i <= 5; ++i) {
      w.spawn_local(i);
      seen.push_back(w.queued_hint());
    }
  });
  ASSERT_TRUE(ex.spawn_external(0));
  ex.join();
  EXPECT_EQ(seen, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
}

TEST(ExecutorSpawn, StateWordHasACacheLinePairOfItsOwn) {
  using Shared = sp::detail::ExecutorShared<int>;
  constexpr auto kLine = sp::detail::kCacheLine;
  Shared shared(config_with(2));
  const auto addr = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
  const std::uintptr_t state = addr(&shared.state);
  EXPECT_EQ(state % kLine, 0u) << "the state word must start a line pair";
  // The last byte of the config lies in an earlier pair, the injector (its
  // padded head and tail) in a later one.
  EXPECT_LT((addr(&shared.config) + sizeof(shared.config) - 1) / kLine, state / kLine);
  EXPECT_GE(addr(&shared.injector), state + kLine);
}

TEST(ExecutorTaskTypes, SmallTriviallyCopyableTaskArrivesIntact) {
  std::atomic<int> good{0};
  sp::Executor<SmallPod> ex(config_with(2), [&](SmallPod p, auto&) {
    if (p.weight == p.id * 0.5 && p.tag[0] == 'a' + static_cast<char>(p.id % 26)) good.fetch_add(1);
  });
  for (std::uint32_t i = 0; i < 1000; ++i) {
    SmallPod p{i, i * 0.5, {}};
    p.tag[0] = static_cast<char>('a' + i % 26);
    ASSERT_TRUE(ex.spawn_external(p));
  }
  (void)ex.join();
  EXPECT_EQ(good.load(), 1000);
}

TEST(ExecutorTaskTypes, LargeTriviallyCopyableTaskIsBoxedAndArrivesIntact) {
  std::atomic<int> good{0};
  sp::Executor<BigPod> ex(config_with(2), [&](BigPod p, sp::WorkerCtx<BigPod, sp::NoScratch>& ctx) {
    bool ok = true;
    for (int k = 1; k < 5; ++k) ok &= p.words[k] == p.words[0] + k;
    if (ok) good.fetch_add(1);
    if (p.words[0] % 2 == 0 && p.words[0] < 1000) ctx.spawn_local(BigPod{{p.words[0] + 1001, p.words[0] + 1002,
                                                                         p.words[0] + 1003, p.words[0] + 1004,
                                                                         p.words[0] + 1005}});
  });
  for (std::uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(ex.spawn_external(BigPod{{i, i + 1, i + 2, i + 3, i + 4}}));
  (void)ex.join();
  EXPECT_EQ(good.load(), 1500);
}

TEST(ExecutorTaskTypes, StringAndUniquePtrTasksRunWithTheirValues) {
  std::atomic<std::size_t> string_chars{0};
  std::atomic<long> ptr_sum{0};
  {
    sp::Executor<std::string> ex(config_with(2), [&](std::string s, sp::WorkerCtx<std::string, sp::NoScratch>& ctx) {
      string_chars.fetch_add(s.size());
      if (s.size() > 1) ctx.spawn_local(s.substr(1));  // 30 + 29 + ... + 1 chars per root
    });
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(ex.spawn_external(std::string(30, 'q')));
    (void)ex.join();
  }
  EXPECT_EQ(string_chars.load(), 50u * (30 * 31 / 2));
  {
    sp::Executor<std::unique_ptr<int>> ex(config_with(2),
                                          [&](std::unique_ptr<int> p, sp::WorkerCtx<std::unique_ptr<int>, sp::NoScratch>& ctx) {
                                            ptr_sum.fetch_add(*p);
                                            if (*p > 0) ctx.spawn_global(std::make_unique<int>(*p - 1));
                                          });
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(ex.spawn_external(std::make_unique<int>(10)));
    (void)ex.join();
  }
  EXPECT_EQ(ptr_sum.load(), 50 * 55);
}

// --- unrun tasks: destroyed, counted, never leaked ------------------------------

TEST(ExecutorTaskLifetime, TasksLeftUnrunAfterShutdownAreDestroyedAndCounted) {
  sptest::Watchdog dog("TasksLeftUnrunAfterShutdownAreDestroyedAndCounted");
  for (std::size_t workers : {1u, 2u}) {
    TaskCounters c;
    std::atomic<int> started{0};
    std::atomic<bool> stopped{false};
    {
      sp::Executor<Tracked> ex(config_with(workers), [&](Tracked t, auto&) {
        t.mark_ran();
        started.fetch_add(1);
        (void)sptest::wait_until([&] { return stopped.load(); });  // until shutdown() has returned
      });
      std::vector<Tracked> batch;
      for (int i = 0; i < 100; ++i) batch.emplace_back(&c, i);
      ASSERT_TRUE(ex.spawn_external_batch(std::span<Tracked>(batch)));
      ASSERT_TRUE(sptest::wait_until([&] { return started.load() >= 1; }));
      ex.shutdown();
      stopped = true;
      const sp::MetricsSnapshot m = ex.join();
      EXPECT_GE(m.tasks_executed, 1u);
      EXPECT_LE(m.tasks_executed, workers) << "a worker started a new task after shutdown()";
      EXPECT_EQ(m.tasks_executed + m.tasks_dropped, 100u) << "workers " << workers;
      EXPECT_EQ(c.ran.load(), static_cast<long>(m.tasks_executed));
      EXPECT_EQ(c.destroyed_unrun.load(), static_cast<long>(m.tasks_dropped))
          << "every dropped task must be destroyed at join()";
    }
    EXPECT_EQ(c.live(), 0) << "tasks leaked, workers " << workers;
  }
}

TEST(ExecutorTaskLifetime, DestroyingAnUnjoinedExecutorRunsEveryTaskAndLeaksNone) {
  TaskCounters c;
  {
    sp::Executor<Tracked> ex(config_with(2), [](Tracked t, auto&) { t.mark_ran(); });
    for (int i = 0; i < 500; ++i) ASSERT_TRUE(ex.spawn_external(Tracked(&c, i)));
  }  // ~Executor joins
  EXPECT_EQ(c.ran.load(), 500);
  EXPECT_EQ(c.destroyed_run.load(), 500);
  EXPECT_EQ(c.live(), 0);
}

// A spawn that passed the gate before join() closed it is counted, so join()
// waits for it even while its push is still under way (here: a slow move).
struct MoveGate {
  std::atomic<bool> entered{false};
  std::atomic<bool> release{false};
};
class GatedTask {
 public:
  GatedTask(MoveGate* g, TaskCounters* c) : gate_(g), tracked_(c, 0) {}
  GatedTask(GatedTask&& o) noexcept : gate_(std::exchange(o.gate_, nullptr)), tracked_(std::move(o.tracked_)) {
    if (gate_ == nullptr) return;  // only the first move (inside spawn, after the gate) blocks
    gate_->entered.store(true);
    while (!gate_->release.load()) std::this_thread::yield();
    gate_ = nullptr;
  }
  void run() { tracked_.mark_ran(); }

 private:
  MoveGate* gate_;
  Tracked tracked_;
};

TEST(ExecutorTaskLifetime, JoinWaitsForASpawnAcceptedBeforeTheGateClosed) {
  sptest::Watchdog dog("JoinWaitsForASpawnAcceptedBeforeTheGateClosed");
  TaskCounters c;
  MoveGate g;
  std::atomic<int> spawn_result{-1};
  sp::MetricsSnapshot m;
  {
    sp::Executor<GatedTask> ex(config_with(2), [](GatedTask t, auto&) { t.run(); });
    auto h = ex.handle();
    std::thread producer([&] { spawn_result = h.spawn(GatedTask(&g, &c)); });
    ASSERT_TRUE(sptest::wait_until([&] { return g.entered.load(); }));
    std::thread joiner([&] { m = ex.join(); });
    ASSERT_TRUE(sptest::wait_until([&] { return !h.is_accepting(); }));  // join() closed the gate
    g.release = true;
    producer.join();
    joiner.join();
  }
  EXPECT_EQ(spawn_result.load(), 1);
  EXPECT_EQ(c.ran.load(), 1) << "an accepted task did not run before join() returned";
  EXPECT_EQ(m.tasks_executed, 1u);
  EXPECT_EQ(c.live(), 0);
}

// BUG probe: a spawn that passed the gate just before shutdown(), and pushes only
// after join() has drained the queues, returns true; the task must then still
// be destroyed exactly once (run or dropped), never leaked.
TEST(ExecutorTaskLifetime, TaskAcceptedJustBeforeShutdownIsDestroyedNotLeaked) {
  sptest::Watchdog dog("TaskAcceptedJustBeforeShutdownIsDestroyedNotLeaked");
  TaskCounters c;
  MoveGate g;
  std::atomic<int> spawn_result{-1};
  sp::MetricsSnapshot m;
  {
    std::optional<sp::Executor<GatedTask>> ex;
    ex.emplace(config_with(2), [](GatedTask t, auto&) { t.run(); });
    std::thread producer([&, h = ex->handle()]() mutable {
      spawn_result = h.spawn(GatedTask(&g, &c));  // h dies with this thread
    });
    ASSERT_TRUE(sptest::wait_until([&] { return g.entered.load(); }));
    ex->shutdown();
    m = ex->join();  // returns: shutdown() does not wait for in-flight tasks
    g.release = true;
    producer.join();
    ex.reset();
  }
  ASSERT_EQ(spawn_result.load(), 1) << "the spawn had passed the gate";
  EXPECT_EQ(c.ran.load() + c.destroyed_unrun.load(), 1)
      << "BUG: spawn() returned true, but the task was neither run nor destroyed: it was pushed into the "
         "injector after join() drained it, and ~Injector frees blocks without destroying boxed items";
  EXPECT_EQ(c.live(), 0) << "BUG: the accepted task leaked";
}

// A batch whose k-th task throws while being moved: the tasks not queued must
// stay with the caller (the header: "Tasks are moved from only when it returns
// true"), the executor keeps working and join() does not hang.
class ThrowOnMove {
 public:
  explicit ThrowOnMove(int v, bool explode = false) : v_(v), explode_(explode) {}
  ThrowOnMove(ThrowOnMove&& o) : v_(o.v_), explode_(o.explode_) {
    if (explode_) throw std::runtime_error("move failed");
    o.v_ = -1;  // moved-from marker
  }
  ThrowOnMove(const ThrowOnMove&) = default;
  int value() const { return v_; }

 private:
  int v_;
  bool explode_;
};

TEST(ExecutorSpawn, BatchWhoseTaskMoveThrowsKeepsUnqueuedTasksWithTheCaller) {
  sptest::Watchdog dog("BatchWhoseTaskMoveThrows");
  std::vector<std::atomic<int>> runs(100);
  sp::Executor<ThrowOnMove> ex(config_with(2), [&](ThrowOnMove t, auto&) { runs[t.value()].fetch_add(1); });
  std::vector<ThrowOnMove> batch;
  for (int i = 0; i < 100; ++i) batch.emplace_back(i, i == 70);  // chunk 0: 0..63, chunk 1: 64..99
  EXPECT_THROW((void)ex.spawn_external_batch(std::span<ThrowOnMove>(batch)), std::runtime_error);
  ASSERT_TRUE(ex.spawn_external(ThrowOnMove(99)));  // still open and working
  (void)ex.join();
  std::vector<int> lost;
  for (int i = 0; i < 99; ++i) {
    const bool ran = runs[i].load() == 1;
    const bool kept = batch[i].value() == i;
    EXPECT_LE(runs[i].load(), 1) << "task " << i;
    if (ran == kept) lost.push_back(i);  // neither (lost) or both (duplicated)
  }
  EXPECT_TRUE(lost.empty()) << "BUG: " << lost.size() << " tasks (first " << (lost.empty() ? -1 : lost.front())
                            << ", last " << (lost.empty() ? -1 : lost.back())
                            << ") were moved out of the caller's batch, then destroyed unqueued";
}

}  // namespace

namespace {

// spawn_batch takes any contiguous range of tasks, not only a span.
TEST(ExecutorSpawn, BatchAcceptsVectorsConstVectorsAndArrays) {
  std::atomic<int> sum{0};
  sp::Executor<int> ex(config_with(2), [&](int v, auto&) { sum.fetch_add(v); });
  std::vector<int> v{1, 2, 3};
  const std::vector<int> cv{10, 20};
  std::array<int, 2> a{100, 200};
  EXPECT_TRUE(ex.spawn_external_batch(v));
  EXPECT_TRUE(ex.spawn_external_batch(cv));
  EXPECT_TRUE(ex.handle().spawn_batch(a));
  (void)ex.join();
  EXPECT_EQ(sum.load(), 336);
  EXPECT_FALSE(ex.handle().spawn_batch(v)) << "rejected after join";
}

}  // namespace

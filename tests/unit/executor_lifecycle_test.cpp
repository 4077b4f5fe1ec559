// Executor lifecycle: join (twice, from a worker), the joining destructor, moves,
// handles outliving the executor, shutdown from outside and inside, per-worker
// scratch and worker ids, the task's rng and metrics, and thread pinning.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sys/resource.h>
#include <sched.h>
#endif

#include "../support/queue_support.hpp"
#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using sptest::config_with;
using sptest::TaskCounters;
using sptest::Tracked;

namespace {

// [START-gate]: when a worker thread cannot be started, the constructor throws
// std::system_error and none of the threads it had started runs the start
// hook or scratch_init (nor, so, any task). The address space is capped just
// above one 64 MiB stack for the duration. Not under a sanitizer: its
// allocator does not survive the cap.
TEST(ExecutorLifecycle, AWorkerThatCannotStartStopsTheOthersBeforeAnyUserCodeRuns) {
  if (sptest::queue::kSanitized) GTEST_SKIP() << "a sanitizer's shadow memory does not fit under RLIMIT_AS";
  auto address_space = [] {
    unsigned long pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    return static_cast<std::uint64_t>(pages) * 4096u;
  };
  std::atomic<int> started{0};
  std::atomic<int> scratches{0};
  sp::ExecutorConfig config;
  config.workers = 8;
  sp::ThreadOptions threads;
  threads.stack_size = std::size_t{64} << 20;
  threads.on_start = [&started](std::size_t) { started.fetch_add(1); };
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
  rlimit cap = saved;
  cap.rlim_cur = address_space() + (std::uint64_t{100} << 20);  // one 64 MiB stack fits, two do not
  ASSERT_EQ(setrlimit(RLIMIT_AS, &cap), 0);
  bool threw = false;
  try {
    sp::Executor<int, int> ex(
        config, threads, [&scratches](std::size_t) { return scratches.fetch_add(1); },
        [](int, sp::WorkerCtx<int, int>&) {});
  } catch (const std::system_error&) {
    threw = true;
  }
  setrlimit(RLIMIT_AS, &saved);
  EXPECT_TRUE(threw) << "eight 64 MiB stacks were started under a cap that fits one";
  EXPECT_EQ(started.load(), 0) << "a start hook ran although the executor could not start";
  EXPECT_EQ(scratches.load(), 0) << "scratch_init ran although the executor could not start";
}

TEST(ExecutorLifecycle, JoinTwiceThrowsLogicError) {
  sp::Executor<int> ex(config_with(2), [](int, auto&) {});
  ASSERT_TRUE(ex.spawn_external(1));
  (void)ex.join();
  EXPECT_THROW((void)ex.join(), std::logic_error);
}

TEST(ExecutorLifecycle, JoinFromInsideOwnTaskThrowsLogicErrorAndTheRunContinues) {
  sptest::Watchdog dog("JoinFromInsideOwnTask");
  std::atomic<int> caught{0}, other{0};
  sp::Executor<int>* self = nullptr;
  sp::Executor<int> ex(config_with(2), [&](int v, auto&) {
    if (v != 0) {
      other.fetch_add(1);
      return;
    }
    try {
      (void)self->join();
    } catch (const std::logic_error& e) {
      if (std::string(e.what()).find("own workers") != std::string::npos) caught.fetch_add(1);
    }
  });
  self = &ex;  // published to the workers by the spawn below
  ASSERT_TRUE(ex.spawn_external(0));
  for (int i = 1; i <= 100; ++i) ASSERT_TRUE(ex.spawn_external(i));
  const sp::MetricsSnapshot m = ex.join();  // the real join still works
  EXPECT_EQ(caught.load(), 1);
  EXPECT_EQ(other.load(), 100);
  EXPECT_EQ(m.tasks_executed, 101u);
}

TEST(ExecutorLifecycle, DestructorJoinsWhenJoinWasNotCalled) {
  std::atomic<int> runs{0};
  {
    sp::Executor<int> ex(config_with(2), [&](int depth, sp::WorkerCtx<int, sp::NoScratch>& ctx) {
      runs.fetch_add(1);
      if (depth < 6) {
        ctx.spawn_local(depth + 1);
        ctx.spawn_global(depth + 1);
      }
    });
    ASSERT_TRUE(ex.spawn_external(0));
  }
  EXPECT_EQ(runs.load(), (1 << 7) - 1) << "the destructor returned before the tree finished";
}

TEST(ExecutorLifecycle, AnExecutorMovedIntoAnotherObjectStillWorks) {
  std::atomic<int> runs{0};
  sp::Executor<int> a(config_with(2), [&](int, auto&) { runs.fetch_add(1); });
  auto h = a.handle();
  ASSERT_TRUE(a.spawn_external(1));
  sp::Executor<int> b(std::move(a));
  ASSERT_TRUE(b.spawn_external(2));
  std::vector<sp::Executor<int>> holder;
  holder.push_back(std::move(b));
  ASSERT_TRUE(holder[0].spawn_external(3));
  ASSERT_TRUE(h.spawn(4)) << "a handle taken before the move must keep working";
  const sp::MetricsSnapshot m = holder[0].join();
  EXPECT_EQ(runs.load(), 4);
  EXPECT_EQ(m.tasks_executed, 4u);
  EXPECT_FALSE(h.spawn(5));
}

TEST(ExecutorLifecycle, AMovedFromExecutorThrowsLogicErrorAndShutdownIsANoOp) {
  sp::Executor<int> a(config_with(1), [](int, auto&) {});
  sp::Executor<int> b(std::move(a));
  EXPECT_THROW((void)a.join(), std::logic_error);
  EXPECT_THROW((void)a.spawn_external(1), std::logic_error);
  EXPECT_THROW((void)a.handle(), std::logic_error);
  EXPECT_THROW((void)a.workers(), std::logic_error);
  EXPECT_NO_THROW(a.shutdown());
  EXPECT_TRUE(b.spawn_external(1));
  EXPECT_EQ(b.join().tasks_executed, 1u);
}

TEST(ExecutorLifecycle, AHandleOutlivingItsExecutorRejectsSpawns) {
  std::optional<sp::ExecutorHandle<std::string>> h;
  std::optional<sp::ExecutorHandle<std::string>> from_task;
  std::mutex mu;
  {
    sp::Executor<std::string> ex(config_with(2), [&](std::string, sp::WorkerCtx<std::string, sp::NoScratch>& ctx) {
      std::lock_guard<std::mutex> lock(mu);
      from_task.emplace(ctx.handle());
    });
    h.emplace(ex.handle());
    ASSERT_TRUE(h->spawn(std::string("x")));
  }  // joined and destroyed; the handles keep the shared state alive
  ASSERT_TRUE(from_task.has_value());
  for (auto* handle : {&*h, &*from_task}) {
    EXPECT_FALSE(handle->is_accepting());
    std::string s = "kept by the caller, long enough to be heap allocated";
    EXPECT_FALSE(handle->spawn(std::move(s)));
    EXPECT_EQ(s, "kept by the caller, long enough to be heap allocated");
    std::vector<std::string> batch(3, "y");
    EXPECT_FALSE(handle->spawn_batch(std::span<std::string>(batch)));
    EXPECT_EQ(batch[2], "y");
    handle->shutdown();  // harmless
  }
}

TEST(ExecutorLifecycle, ShutdownFromOutsideRejectsSpawnsAndJoinReturns) {
  sptest::Watchdog dog("ShutdownFromOutside");
  std::atomic<int> runs{0};
  sp::Executor<int> ex(config_with(2), [&](int, auto&) { runs.fetch_add(1); });
  auto h = ex.handle();
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(ex.spawn_external(i));
  ex.shutdown();
  ex.shutdown();  // idempotent
  h.shutdown();
  EXPECT_FALSE(ex.spawn_external(1));
  EXPECT_FALSE(h.is_accepting());
  const sp::MetricsSnapshot m = ex.join();
  EXPECT_EQ(m.tasks_executed + m.tasks_dropped, 1000u);
  EXPECT_EQ(static_cast<std::uint64_t>(runs.load()), m.tasks_executed);
}

TEST(ExecutorLifecycle, ShutdownFromInsideATaskStopsTheWorkerAfterThatTask) {
  sptest::Watchdog dog("ShutdownFromInsideATask");
  TaskCounters c;
  {
    sp::Executor<Tracked> ex(config_with(1), [&c](Tracked t, sp::WorkerCtx<Tracked, sp::NoScratch>& ctx) {
      t.mark_ran();
      ctx.spawn_local(Tracked(&c, 1000 + t.id()));  // a child queued before the stop: dropped
      ctx.handle().shutdown();
    });
    std::vector<Tracked> batch;
    for (int i = 0; i < 50; ++i) batch.emplace_back(&c, i);
    ASSERT_TRUE(ex.spawn_external_batch(std::span<Tracked>(batch)));
    const sp::MetricsSnapshot m = ex.join();
    EXPECT_EQ(m.tasks_executed, 1u) << "one worker: exactly the task that called shutdown() ran";
    EXPECT_EQ(m.local_spawns, 1u);
    EXPECT_EQ(m.tasks_dropped, 50u) << "49 external tasks and the 1 child";
    EXPECT_FALSE(ex.spawn_external(Tracked(&c, 99)));
  }
  EXPECT_EQ(c.ran.load(), 1);
  EXPECT_EQ(c.live(), 0) << "dropped tasks leaked";
}

// --- workers: scratch, ids, per-task context ---------------------------------------

struct IdScratch {
  std::size_t id;
  std::thread::id thread;
  int uses = 0;
};

TEST(ExecutorWorkers, ScratchInitRunsOncePerWorkerOnThatWorkersThread) {
  constexpr std::size_t kWorkers = 4;
  std::mutex mu;
  std::multiset<std::size_t> init_ids;
  std::atomic<int> id_mismatch{0}, on_main_thread{0}, task_mismatch{0};
  const auto main_thread = std::this_thread::get_id();
  {
    sp::Executor<int, IdScratch> ex(
        config_with(kWorkers),
        [&](std::size_t id) {
          if (sp::current_worker_id() != id) id_mismatch.fetch_add(1);
          if (std::this_thread::get_id() == main_thread) on_main_thread.fetch_add(1);
          std::lock_guard<std::mutex> lock(mu);
          init_ids.insert(id);
          return IdScratch{id, std::this_thread::get_id()};
        },
        [&](int, sp::WorkerCtx<int, IdScratch>& ctx) {
          IdScratch& s = ctx.scratch();
          ++s.uses;
          if (s.id != ctx.worker_id() || s.thread != std::this_thread::get_id() ||
              sp::current_worker_id() != ctx.worker_id() || ctx.worker_id() >= kWorkers)
            task_mismatch.fetch_add(1);
        });
    for (int i = 0; i < 2000; ++i) ASSERT_TRUE(ex.spawn_external(i));
    EXPECT_EQ(ex.workers(), kWorkers);
    (void)ex.join();
  }
  EXPECT_EQ(init_ids, (std::multiset<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(id_mismatch.load(), 0);
  EXPECT_EQ(on_main_thread.load(), 0);
  EXPECT_EQ(task_mismatch.load(), 0);
}

TEST(ExecutorWorkers, NonWorkerThreadsSeeNoWorkerId) {
  EXPECT_EQ(sp::current_worker_id(), std::nullopt);
  EXPECT_EQ(sp::detail::current_executor(), nullptr);
  std::optional<std::size_t> seen_elsewhere = 7;
  std::thread([&] { seen_elsewhere = sp::current_worker_id(); }).join();
  EXPECT_EQ(seen_elsewhere, std::nullopt);
  // Also while and after an executor runs.
  sp::Executor<int> ex(config_with(2), [](int, auto&) {});
  ASSERT_TRUE(ex.spawn_external(1));
  EXPECT_EQ(sp::current_worker_id(), std::nullopt);
  (void)ex.join();
  EXPECT_EQ(sp::current_worker_id(), std::nullopt);
}

TEST(ExecutorWorkers, TaskRngIsDeterministicForASeed) {
  auto draws = [](std::uint64_t seed) {
    std::vector<std::uint64_t> out;
    sp::ExecutorConfig cfg = config_with(1);
    cfg.seed = seed;
    sp::Executor<int> ex(cfg, [&](int, sp::WorkerCtx<int, sp::NoScratch>& ctx) {
      for (int i = 0; i < 50; ++i) out.push_back(ctx.rng().next_u64());
    });
    EXPECT_TRUE(ex.spawn_external(0));
    (void)ex.join();
    return out;
  };
  const auto a = draws(123), b = draws(123), c = draws(124);
  ASSERT_EQ(a.size(), 50u);
  EXPECT_EQ(a, b) << "same seed, different task rng sequence";
  EXPECT_NE(a, c);
}

TEST(ExecutorWorkers, TaskSeesItsWorkersMetricsSoFar) {
  std::vector<std::uint64_t> seen;
  sp::Executor<int> ex(config_with(1), [&](int, sp::WorkerCtx<int, sp::NoScratch>& ctx) {
    const auto& cm = std::as_const(ctx).metrics();
    seen.push_back(cm.tasks_executed);
    (void)ctx.metrics();  // the mutable overload exists too
  });
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(ex.spawn_external(i));
  (void)ex.join();
  ASSERT_EQ(seen.size(), 20u);
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i + 1) << "task " << i;
}

// --- pinning ---------------------------------------------------------------------

TEST(Affinity, AllowedCpusIsNonEmptyAndAssignedRoundRobin) {
  const std::vector<int> cpus = sp::allowed_cpus();
#if defined(__linux__)
  ASSERT_FALSE(cpus.empty());
  EXPECT_TRUE(std::is_sorted(cpus.begin(), cpus.end()));
  const sp::CoreAssigner assign;
  for (std::size_t w = 0; w < 3 * cpus.size(); ++w) EXPECT_EQ(assign.cpu_for(w), cpus[w % cpus.size()]);
#endif
  EXPECT_FALSE(sp::pin_current_thread(-1));
  EXPECT_FALSE(sp::pin_current_thread(1 << 20));
}

TEST(Affinity, PinnedWorkersRunTasksAndArePinnedWhenPinningWorks) {
  bool can_pin = false;
  const std::vector<int> cpus = sp::allowed_cpus();
  if (!cpus.empty()) std::thread([&] { can_pin = sp::pin_current_thread(cpus.back()); }).join();
  sp::ExecutorConfig cfg = config_with(3);
  cfg.pin_threads = true;
  std::mutex mu;
  std::vector<std::pair<std::size_t, std::vector<int>>> affinities;
  std::atomic<int> runs{0};
  {
    sp::Executor<int, int> ex(
        cfg,
        [&](std::size_t id) {
#if defined(__linux__)
          cpu_set_t set;
          CPU_ZERO(&set);
          std::vector<int> mine;
          if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) == 0)
            for (int c = 0; c < CPU_SETSIZE; ++c)
              if (CPU_ISSET(c, &set)) mine.push_back(c);
          std::lock_guard<std::mutex> lock(mu);
          affinities.emplace_back(id, mine);
#endif
          return 0;
        },
        [&](int, sp::WorkerCtx<int, int>&) { runs.fetch_add(1); });
    for (int i = 0; i < 300; ++i) ASSERT_TRUE(ex.spawn_external(i));
    (void)ex.join();
  }
  EXPECT_EQ(runs.load(), 300);
#if defined(__linux__)
  ASSERT_EQ(affinities.size(), 3u);
  if (can_pin) {
    const sp::CoreAssigner assign;
    for (const auto& [id, mine] : affinities)
      EXPECT_EQ(mine, std::vector<int>{assign.cpu_for(id)}) << "worker " << id << " not pinned to its CPU";
  }
#endif
}

}  // namespace

// A typed executor with one worker takes injector batches into a private
// buffer instead of its deque (ExecutorWorker::steal_injector, "a lone
// worker's batches"): every task still runs once, external tasks run in the
// order they were given, and tasks left in the buffer when the executor stops
// early are dropped, counted and destroyed like those left in the queues.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;

namespace {

TEST(ExecutorLoneWorker, BatchedExternalTasksRunOnceInTheOrderGiven) {
  sptest::Watchdog dog("ExecutorLoneWorker.Order");
  constexpr std::uint32_t kTasks = 20'000;
  std::vector<std::uint32_t> order;
  order.reserve(kTasks);
  sp::Executor<std::uint32_t> ex(sptest::config_with(1),
                                 [&](std::uint32_t i, sp::WorkerCtx<std::uint32_t, sp::NoScratch>&) { order.push_back(i); });
  std::vector<std::uint32_t> batch;
  for (std::uint32_t i = 0; i < kTasks;) {
    batch.clear();
    for (std::uint32_t k = 0; k < 1 + i % 300 && i < kTasks; ++k) batch.push_back(i++);
    ASSERT_TRUE(ex.spawn_external_batch(batch));
  }
  const sp::MetricsSnapshot m = ex.join();
  ASSERT_EQ(order.size(), kTasks);
  for (std::uint32_t i = 0; i < kTasks; ++i) ASSERT_EQ(order[i], i) << "task " << i << " ran out of order";
  EXPECT_EQ(m.tasks_executed, kTasks);
  EXPECT_EQ(m.tasks_dropped, 0u);
}

// Boxed tasks (too big to store inline) that count their destructions.
struct Counted {
  std::shared_ptr<std::atomic<int>> alive;
  std::uint64_t pad[4] = {};
  explicit Counted(std::shared_ptr<std::atomic<int>> a) : alive(std::move(a)) { alive->fetch_add(1); }
  Counted(const Counted& o) : alive(o.alive) { alive->fetch_add(1); }
  Counted(Counted&& o) noexcept : alive(o.alive) { alive->fetch_add(1); }
  Counted& operator=(const Counted&) = delete;
  ~Counted() { alive->fetch_sub(1); }
};

// The first task throws: the executor stops while the rest of its batch sits
// in the worker's private buffer. They are dropped, counted in tasks_dropped,
// and destroyed.
TEST(ExecutorLoneWorker, TasksLeftInTheBufferWhenATaskThrowsAreDroppedCountedAndDestroyed) {
  sptest::Watchdog dog("ExecutorLoneWorker.Drop");
  auto alive = std::make_shared<std::atomic<int>>(0);
  std::atomic<int> ran{0};
  {
    sp::Executor<Counted> ex(sptest::config_with(1), [&](Counted, sp::WorkerCtx<Counted, sp::NoScratch>&) {
      if (ran.fetch_add(1) == 0) throw std::runtime_error("first");
    });
    std::vector<Counted> batch;
    for (int i = 0; i < 200; ++i) batch.emplace_back(alive);
    ASSERT_TRUE(ex.spawn_external_batch(batch));
    batch.clear();
    const sp::MetricsSnapshot m = ex.join(std::nothrow);
    ASSERT_TRUE(m.first_exception);
    EXPECT_EQ(m.tasks_executed + m.tasks_dropped, 200u);
    EXPECT_GE(m.tasks_dropped, 1u) << "the stop came while the batch was queued";
  }
  EXPECT_EQ(alive->load(), 0) << "a dropped task was not destroyed";
}

TEST(ExecutorLoneWorker, ShutdownDropsAndCountsWhatTheBufferHeld) {
  sptest::Watchdog dog("ExecutorLoneWorker.Shutdown");
  auto alive = std::make_shared<std::atomic<int>>(0);
  std::atomic<int> ran{0};
  sp::Executor<Counted>* self = nullptr;
  sp::Executor<Counted> ex(sptest::config_with(1), [&](Counted, sp::WorkerCtx<Counted, sp::NoScratch>&) {
    if (ran.fetch_add(1) == 10) self->shutdown();
  });
  self = &ex;
  std::vector<Counted> batch;
  for (int i = 0; i < 200; ++i) batch.emplace_back(alive);
  ASSERT_TRUE(ex.spawn_external_batch(batch));
  batch.clear();
  const sp::MetricsSnapshot m = ex.join();
  EXPECT_EQ(m.tasks_executed + m.tasks_dropped, 200u);
  EXPECT_GE(m.tasks_executed, 11u);
  EXPECT_EQ(alive->load(), 0) << "a dropped task was not destroyed";
}

}  // namespace

// Behaviour of Executor, ExecutorHandle and WorkerCtx (seed 000).
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "stealpool/stealpool.hpp"

namespace sp = stealpool;

namespace {

sp::ExecutorConfig config_with(std::size_t workers) {
  sp::ExecutorConfig cfg;
  cfg.workers = workers;
  cfg.pin_threads = false;
  return cfg;
}

TEST(Executor, RunsEveryExternallySpawnedTaskOnce) {
  constexpr int kTasks = 10000;
  std::vector<std::atomic<int>> runs(kTasks);
  sp::Executor<int> ex(config_with(2), [&](int i, auto&) { runs[i].fetch_add(1, std::memory_order::relaxed); });
  for (int i = 0; i < kTasks; ++i) ASSERT_TRUE(ex.spawn_external(i));
  sp::MetricsSnapshot m = ex.join();
  for (int i = 0; i < kTasks; ++i) ASSERT_EQ(runs[i].load(), 1) << "task " << i;
  EXPECT_EQ(m.tasks_executed, static_cast<std::uint64_t>(kTasks));
  EXPECT_EQ(m.tasks_from_local + m.tasks_from_injector + m.tasks_from_steal, m.tasks_executed);
}

}  // namespace

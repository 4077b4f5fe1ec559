// A binary tree of tasks on the typed-task executor: the README's example.
// Exits 1 if the tree was not visited exactly once (it is run as a test).
#include <stealpool/stealpool.hpp>

#include <atomic>
#include <cstdio>

struct Task {
  std::uint32_t depth;  // small and trivially copyable: travels without allocation
};
struct Scratch {
  std::uint64_t visited = 0;  // one per worker
};

int main() {
  std::atomic<std::uint64_t> total{0};
  stealpool::ExecutorConfig cfg;
  cfg.workers = 4;
  stealpool::Executor<Task, Scratch> ex(
      cfg,
      [](std::size_t /*worker_id*/) { return Scratch{}; },  // runs on each worker thread
      [&](Task t, stealpool::WorkerCtx<Task, Scratch>& ctx) {
        ++ctx.scratch().visited;
        total.fetch_add(1, std::memory_order_relaxed);
        if (t.depth < 16) {  // a binary tree of tasks
          ctx.spawn_local({t.depth + 1});  // own deque: the cheapest spawn
          ctx.spawn_local({t.depth + 1});
        }
      });
  ex.spawn_external(Task{0});                // or ex.handle().spawn(...) from any thread
  stealpool::MetricsSnapshot m = ex.join();  // waits for the whole tree, rethrows a task's exception
  std::printf("%llu tasks, %llu stolen, %llu parks\n", static_cast<unsigned long long>(total.load()),
              static_cast<unsigned long long>(m.tasks_from_steal), static_cast<unsigned long long>(m.parks));
  const std::uint64_t expected = (std::uint64_t{1} << 17) - 1;
  return total.load() == expected && m.tasks_executed == expected ? 0 : 1;
}

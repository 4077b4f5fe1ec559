// The package check's consumer: builds against an installed stealpool (through
// CMake's find_package and through pkg-config) and runs a small fork-join tree.
// Exit status 0 when every task ran exactly once.
#include <stealpool/stealpool.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>

int main() {
  constexpr int kRoots = 8;
  constexpr int kDepth = 6;  // each root task spawns a binary tree of this depth
  constexpr std::uint64_t kPerRoot = (std::uint64_t{1} << (kDepth + 1)) - 1;
  constexpr std::uint64_t kExpected = kRoots * kPerRoot;

  std::atomic<std::uint64_t> ran{0};
  stealpool::ExecutorConfig cfg;
  cfg.workers = 2;
  stealpool::Executor<int> ex(cfg, [&](int depth, auto& ctx) {
    ran.fetch_add(1, std::memory_order::relaxed);
    if (depth < kDepth) {
      ctx.spawn_local(depth + 1);
      ctx.spawn_global(depth + 1);
    }
  });
  for (int i = 0; i < kRoots; ++i) {
    if (!ex.spawn_external(0)) {
      std::fprintf(stderr, "consumer: spawn_external rejected a task\n");
      return 1;
    }
  }
  stealpool::MetricsSnapshot m = ex.join();

  if (ran.load() != kExpected || m.tasks_executed != kExpected) {
    std::fprintf(stderr, "consumer: expected %llu tasks, ran %llu, metrics say %llu\n",
                 static_cast<unsigned long long>(kExpected), static_cast<unsigned long long>(ran.load()),
                 static_cast<unsigned long long>(m.tasks_executed));
    return 1;
  }
  std::printf("consumer: %llu tasks ran exactly as expected\n", static_cast<unsigned long long>(kExpected));
  return 0;
}

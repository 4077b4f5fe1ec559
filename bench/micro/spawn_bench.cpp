// Spawn cost: what one task costs end to end (spawn, queue, pop, run, account),
// per path. Tasks are empty, so the time per item is pure runtime overhead.
//
//   SpawnLocal/W        one root task spawns N children with spawn_local; W workers
//   SpawnGlobal/W       the same through spawn_global (the injector)
//   SpawnExternal/W     a producer thread calls spawn_external N times, then join
//   SpawnExternalBatch  the same with spawn_external_batch of 256
// Items/s is the throughput; time per item = 1 / items_per_second.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "stealpool/stealpool.hpp"

namespace {

constexpr std::uint32_t kTasks = 1 << 18;

stealpool::ExecutorConfig config(benchmark::State& state) {
  stealpool::ExecutorConfig cfg;
  cfg.workers = static_cast<std::size_t>(state.range(0));
  return cfg;
}

// Task 0 is the root that spawns kTasks - 1 children; the rest do nothing.
template <bool kGlobal>
void spawn_from_task(benchmark::State& state) {
  for (auto _ : state) {
    stealpool::Executor<std::uint32_t> ex(config(state), [](std::uint32_t t, auto& ctx) {
      if (t != 0) return;
      for (std::uint32_t i = 1; i < kTasks; ++i) {
        if constexpr (kGlobal) ctx.spawn_global(i);
        else ctx.spawn_local(i);
      }
    });
    ex.spawn_external(0u);
    const auto m = ex.join();
    if (m.tasks_executed != kTasks) state.SkipWithError("wrong task count");
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kTasks);
}

void SpawnLocal(benchmark::State& state) { spawn_from_task<false>(state); }
void SpawnGlobal(benchmark::State& state) { spawn_from_task<true>(state); }

void SpawnExternal(benchmark::State& state) {
  for (auto _ : state) {
    stealpool::Executor<std::uint32_t> ex(config(state), [](std::uint32_t, auto&) {});
    for (std::uint32_t i = 0; i < kTasks; ++i) benchmark::DoNotOptimize(ex.spawn_external(i));
    const auto m = ex.join();
    if (m.tasks_executed != kTasks) state.SkipWithError("wrong task count");
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kTasks);
}

void SpawnExternalBatch(benchmark::State& state) {
  std::vector<std::uint32_t> batch(256);
  for (auto _ : state) {
    stealpool::Executor<std::uint32_t> ex(config(state), [](std::uint32_t, auto&) {});
    for (std::uint32_t i = 0; i < kTasks; i += 256) {
      for (std::uint32_t k = 0; k < 256; ++k) batch[k] = i + k;
      benchmark::DoNotOptimize(ex.spawn_external_batch(std::span<const std::uint32_t>(batch)));
    }
    const auto m = ex.join();
    if (m.tasks_executed != kTasks) state.SkipWithError("wrong task count");
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kTasks);
}

}  // namespace

BENCHMARK(SpawnLocal)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SpawnGlobal)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SpawnExternal)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(SpawnExternalBatch)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();

// Micro-benchmarks of the queues: ChaseLevDeque against its baselines
// (LockedWsq, seed 001's lock-on-steal queue, and a std::deque under a
// std::mutex), and the Injector singly and in batches.
//
//   bench_queues --benchmark_filter=OwnerPushPop     owner fast path, no thief
//   bench_queues --benchmark_filter=StealContended   owner vs one spinning thief
//
// On a 2-core machine the contended benchmarks need both cores: run nothing else.
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "stealpool/queue/chase_lev_deque.hpp"
#include "stealpool/queue/injector.hpp"
#include "stealpool/queue/locked_wsq.hpp"

namespace sp = stealpool;

namespace {

using Item = std::uint64_t;

// The naive baseline: one lock for both ends.
template <class T>
class MutexDeque {
 public:
  void push(const T& item) {
    std::lock_guard lock(mutex_);
    items_.push_back(item);
  }
  std::optional<T> pop() {
    std::lock_guard lock(mutex_);
    if (items_.empty()) return std::nullopt;
    T item = items_.back();
    items_.pop_back();
    return item;
  }
  sp::Steal<T> steal() {
    std::lock_guard lock(mutex_);
    if (items_.empty()) return sp::Steal<T>::empty();
    T item = items_.front();
    items_.pop_front();
    return sp::Steal<T>::success(item);
  }

 private:
  std::mutex mutex_;
  std::deque<T> items_;
};

// One push and one pop: the owner's fast path with nobody else around.
template <class Q>
void OwnerPushPop(benchmark::State& state) {
  Q q;
  Item i = 0;
  for (auto _ : state) {
    q.push(i++);
    benchmark::DoNotOptimize(q.pop());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(OwnerPushPop<sp::ChaseLevDeque<Item>>);
BENCHMARK(OwnerPushPop<sp::LockedWsq<Item>>);
BENCHMARK(OwnerPushPop<MutexDeque<Item>>);

// Push N, then pop N: no race for the last item except at the end.
template <class Q>
void PushNThenPopN(benchmark::State& state) {
  const auto n = static_cast<Item>(state.range(0));
  Q q;
  for (auto _ : state) {
    for (Item i = 0; i < n; ++i) q.push(i);
    for (Item i = 0; i < n; ++i) benchmark::DoNotOptimize(q.pop());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(PushNThenPopN<sp::ChaseLevDeque<Item>>)->Arg(64)->Arg(4096);
BENCHMARK(PushNThenPopN<sp::LockedWsq<Item>>)->Arg(64)->Arg(4096);
BENCHMARK(PushNThenPopN<MutexDeque<Item>>)->Arg(64)->Arg(4096);

// The owner pushes a burst of 8 and pops until empty, per iteration, while one
// thief steals in a loop: the deque stays small, so owner and thief meet at the
// last items. Reported: owner items/s (pushes), the thief's steals/s, the share
// of items the thief got, and the fraction of its attempts that got one.
template <class Q>
void StealContended(benchmark::State& state) {
  constexpr int kBurst = 8;
  Q q;
  std::atomic<bool> stop{false};
  std::uint64_t attempts = 0, stolen = 0;  // written by the thief, read after join
  std::thread thief([&] {
    while (!stop.load(std::memory_order::relaxed)) {
      ++attempts;
      if (q.steal().is_success()) ++stolen;
    }
  });
  Item i = 0;
  std::uint64_t popped = 0;
  for (auto _ : state) {
    for (int k = 0; k < kBurst; ++k) q.push(i++);
    while (q.pop()) ++popped;
  }
  stop.store(true, std::memory_order::relaxed);
  thief.join();
  state.SetItemsProcessed(state.iterations() * kBurst);
  state.counters["owner_pops"] = benchmark::Counter(static_cast<double>(popped), benchmark::Counter::kIsRate);
  state.counters["thief_steals"] = benchmark::Counter(static_cast<double>(stolen), benchmark::Counter::kIsRate);
  state.counters["thief_share"] = static_cast<double>(stolen) / static_cast<double>(i == 0 ? 1 : i);
  state.counters["thief_success"] = attempts == 0 ? 0.0 : static_cast<double>(stolen) / static_cast<double>(attempts);
}
BENCHMARK(StealContended<sp::ChaseLevDeque<Item>>)->UseRealTime();
BENCHMARK(StealContended<sp::LockedWsq<Item>>)->UseRealTime();
BENCHMARK(StealContended<MutexDeque<Item>>)->UseRealTime();

// Injector, one item at a time: push one, steal one.
void InjectorPushSteal(benchmark::State& state) {
  sp::Injector<Item> q;
  Item i = 0;
  for (auto _ : state) {
    q.push(i++);
    benchmark::DoNotOptimize(q.steal());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(InjectorPushSteal);

// Injector in batches: push_batch(N), then steal_batch_and_pop(limit N) into a
// worker's deque and pop that deque empty, until all N came back.
void InjectorBatch(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  sp::Injector<Item> q;
  sp::ChaseLevDeque<Item> dest;
  std::vector<Item> batch(n);
  for (std::size_t k = 0; k < n; ++k) batch[k] = k;
  for (auto _ : state) {
    q.push_batch(batch);
    for (std::size_t got = 0; got < n;) {
      sp::Steal<Item> s = q.steal_batch_and_pop(dest, n);
      if (!s.is_success()) continue;
      ++got;
      while (std::optional<Item> x = dest.pop()) {
        benchmark::DoNotOptimize(x);
        ++got;
      }
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(InjectorBatch)->Arg(16)->Arg(255)->Arg(1024);

// Injector shared by several threads, each pushing one and stealing one.
void InjectorMpmc(benchmark::State& state) {
  static sp::Injector<Item> q;  // lives for the process: threads join the loop after setup
  Item i = static_cast<Item>(state.thread_index()) << 40;
  std::int64_t taken = 0;
  for (auto _ : state) {
    q.push(i++);
    if (q.steal().is_success()) ++taken;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["steal_success"] =
      benchmark::Counter(static_cast<double>(taken) / static_cast<double>(state.iterations()), benchmark::Counter::kAvgThreads);
}
BENCHMARK(InjectorMpmc)->Threads(1)->Threads(2)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

// tests/support/tiny_tasks.hpp: 10^8 tasks through an Executor, each as small as
// a task can be, with exactly-once accounting that costs no shared write per
// task. One external root covers leaves [0, L); every inner task splits its
// range in two and spawns both halves: on its own deque (thieves take them: steal
// churn), the right half to the injector on every eighth level (injector churn).
// 2L - 1 tasks.
//
// Accounting: each worker's scratch counts its tasks and leaves and sums, over
// the leaves it ran, the index i and mix(i) (a bijection of 64-bit words). The
// totals are flushed once per worker, when its scratch is destroyed. A leaf that
// ran twice while another never ran shifts both sums unless the two are equal,
// which a bijection rules out for one such pair; several errors cancelling in
// both sums at once would be a 2^-64 coincidence. So "every leaf exactly once"
// is checked without a per-leaf counter (the 10^7 test, tree_workload.hpp,
// keeps one per leaf).
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <utility>

#include "stealpool/executor.hpp"
#include "test_support.hpp"

namespace sptest {

struct TinyRange {  // 8 bytes: travels by value through the queues
  std::uint32_t lo, hi;
};

struct TinyTotals {
  std::atomic<std::uint64_t> tasks{0}, leaves{0}, sum{0}, mix_sum{0}, global_spawns{0};
};

class TinyScratch {
 public:
  explicit TinyScratch(TinyTotals* t) : totals_(t) {}
  TinyScratch(TinyScratch&& o) noexcept
      : totals_(std::exchange(o.totals_, nullptr)), tasks(o.tasks), leaves(o.leaves), sum(o.sum),
        mix_sum(o.mix_sum), global_spawns(o.global_spawns) {}
  TinyScratch& operator=(TinyScratch&&) = delete;
  ~TinyScratch() {  // on the worker thread, before join() returns
    if (totals_ == nullptr) return;
    totals_->tasks += tasks;
    totals_->leaves += leaves;
    totals_->sum += sum;
    totals_->mix_sum += mix_sum;
    totals_->global_spawns += global_spawns;
  }

 private:
  TinyTotals* totals_;

 public:
  std::uint64_t tasks = 0, leaves = 0, sum = 0, mix_sum = 0, global_spawns = 0;
};

struct TinyResult {
  stealpool::MetricsSnapshot metrics;
  bool accepted = false;
  std::uint64_t tasks = 0, leaves = 0, sum = 0, mix_sum = 0, global_spawns = 0;
  // What a run with every leaf exactly once gives.
  static std::uint64_t expected_sum(std::uint32_t leaves) { return std::uint64_t{leaves} * (leaves - 1) / 2; }
  static std::uint64_t expected_mix_sum(std::uint32_t leaves) {
    std::uint64_t s = 0;
    for (std::uint32_t i = 0; i < leaves; ++i) s += mix64(i);
    return s;
  }
};

inline TinyResult run_tiny_tasks(const stealpool::ExecutorConfig& cfg, std::uint32_t leaves) {
  TinyTotals totals;
  TinyResult r;
  {
    stealpool::Executor<TinyRange, TinyScratch> ex(
        cfg, [&](std::size_t) { return TinyScratch(&totals); },
        [](TinyRange n, stealpool::WorkerCtx<TinyRange, TinyScratch>& ctx) {
          TinyScratch& s = ctx.scratch();
          ++s.tasks;
          const std::uint32_t len = n.hi - n.lo;
          if (len == 1) {
            ++s.leaves;
            s.sum += n.lo;
            s.mix_sum += mix64(n.lo);
            return;
          }
          const std::uint32_t mid = n.lo + len / 2;
          if ((std::bit_width(len) & 7) == 0) {
            ctx.spawn_global({mid, n.hi});
            ++s.global_spawns;
          } else {
            ctx.spawn_local({mid, n.hi});
          }
          ctx.spawn_local({n.lo, mid});
        });
    r.accepted = ex.spawn_external(TinyRange{0, leaves});
    r.metrics = ex.join();
  }
  r.tasks = totals.tasks;
  r.leaves = totals.leaves;
  r.sum = totals.sum;
  r.mix_sum = totals.mix_sum;
  r.global_spawns = totals.global_spawns;
  return r;
}

}  // namespace sptest

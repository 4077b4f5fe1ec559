// tests/support/tree_workload.hpp: a recursive fork workload for exactly-once
// checks. One external root task covers leaves [0, L); every inner task splits
// its range in two and spawns both halves (spawn_local, and spawn_global for the
// right half on every third level), so the run has 2L - 1 tasks. Each leaf bumps
// its own counter and adds its index to a per-worker checksum; each worker's
// scratch adds its totals to the shared ones when it is destroyed.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "stealpool/executor.hpp"
#include "test_support.hpp"

namespace sptest {

struct TreeNode {
  std::uint32_t lo, hi, depth;
};

struct TreeTotals {
  std::atomic<std::uint64_t> tasks{0};
  std::atomic<std::uint64_t> leaves{0};
  std::atomic<std::uint64_t> checksum{0};
  std::atomic<std::uint64_t> local_spawns{0};
  std::atomic<std::uint64_t> global_spawns{0};
};

// Per-worker counts, flushed once when the scratch is destroyed (on the worker
// thread, before join() returns).
class TreeScratch {
 public:
  explicit TreeScratch(TreeTotals* t) : totals_(t) {}
  TreeScratch(TreeScratch&& o) noexcept
      : totals_(std::exchange(o.totals_, nullptr)), tasks(o.tasks), leaves(o.leaves), checksum(o.checksum),
        local_spawns(o.local_spawns), global_spawns(o.global_spawns) {}
  TreeScratch& operator=(TreeScratch&&) = delete;
  ~TreeScratch() {
    if (totals_ == nullptr) return;
    totals_->tasks += tasks;
    totals_->leaves += leaves;
    totals_->checksum += checksum;
    totals_->local_spawns += local_spawns;
    totals_->global_spawns += global_spawns;
  }

 private:
  TreeTotals* totals_;

 public:
  std::uint64_t tasks = 0, leaves = 0, checksum = 0, local_spawns = 0, global_spawns = 0;
};

struct TreeResult {
  stealpool::MetricsSnapshot metrics;
  std::uint64_t tasks = 0, leaves = 0, checksum = 0, local_spawns = 0, global_spawns = 0;
  std::uint64_t leaves_not_once = 0;  // leaves whose counter is not exactly 1
};

// Runs the tree over `leaves` leaves on `cfg` and reports what happened.
inline TreeResult run_tree(const stealpool::ExecutorConfig& cfg, std::uint32_t leaves) {
  std::unique_ptr<std::atomic<std::uint8_t>[]> runs(new std::atomic<std::uint8_t>[leaves]);
  for (std::uint32_t i = 0; i < leaves; ++i) runs[i].store(0, std::memory_order::relaxed);
  TreeTotals totals;
  TreeResult r;
  {
    stealpool::Executor<TreeNode, TreeScratch> ex(
        cfg, [&](std::size_t) { return TreeScratch(&totals); },
        [&](TreeNode n, stealpool::WorkerCtx<TreeNode, TreeScratch>& ctx) {
          TreeScratch& s = ctx.scratch();
          ++s.tasks;
          if (n.hi - n.lo == 1) {
            runs[n.lo].fetch_add(1, std::memory_order::relaxed);
            ++s.leaves;
            s.checksum += n.lo;
            return;
          }
          const std::uint32_t mid = n.lo + (n.hi - n.lo) / 2;
          const TreeNode left{n.lo, mid, n.depth + 1}, right{mid, n.hi, n.depth + 1};
          if (n.depth % 3 == 2) {
            ctx.spawn_global(right);
            ++s.global_spawns;
          } else {
            ctx.spawn_local(right);
            ++s.local_spawns;
          }
          ctx.spawn_local(left);
          ++s.local_spawns;
        });
    if (!ex.spawn_external(TreeNode{0, leaves, 0})) return r;
    r.metrics = ex.join();
  }
  r.tasks = totals.tasks;
  r.leaves = totals.leaves;
  r.checksum = totals.checksum;
  r.local_spawns = totals.local_spawns;
  r.global_spawns = totals.global_spawns;
  for (std::uint32_t i = 0; i < leaves; ++i) r.leaves_not_once += runs[i].load(std::memory_order::relaxed) != 1;
  return r;
}

}  // namespace sptest

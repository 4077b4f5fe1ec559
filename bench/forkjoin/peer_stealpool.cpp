// stealpool: stealpool::join at every fork, inside a ThreadPool of W workers created
// once; the calling thread only waits in pool.run(), so W = 2 means two workers.
//
//   fib      join(fib(n-1), fib(n-2)) at every call down to n < 2, as the peers.
//   nqueens  the valid placements of the next queen, split in halves by a recursive
//            join: one forked task per placement, as the peers' one task each.
//   uts      the children of a node, split the same way. The alternative, a TaskGroup
//            per node with one spawn per child as the peers do (stealbench --full: row "stealpool TaskGroup"),
//            is measured beside it: on T3, 2 cores, 0-3% slower than the join at 1
//            worker and 5% at 2 (6 interleaved runs on 2026-11-26, docs/results-log.md).
#include <stealpool/forkjoin.hpp>

#include "workloads.hpp"

namespace stealbench::fj {
namespace {

std::uint64_t fib_sp(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  auto [x, y] = stealpool::join([n] { return fib_sp(n - 1); }, [n] { return fib_sp(n - 2); });
  return x + y;
}

// --- nqueens ----------------------------------------------------------------------------
std::uint64_t nqueens_sp(int n, int row, const Board& board);

// The placements cols[lo, hi) of the queen on `row`, in two halves joined.
std::uint64_t nqueens_range(int n, int row, const Board& board, const std::int8_t* cols, int lo, int hi) {
  if (hi - lo == 1) {
    Board next = board;
    next[static_cast<std::size_t>(row)] = cols[lo];
    return nqueens_sp(n, row + 1, next);
  }
  const int mid = lo + (hi - lo) / 2;
  auto [a, b] = stealpool::join([&] { return nqueens_range(n, row, board, cols, lo, mid); },
                                [&] { return nqueens_range(n, row, board, cols, mid, hi); });
  return a + b;
}

std::uint64_t nqueens_sp(int n, int row, const Board& board) {
  if (row == n) return 1;
  std::int8_t cols[kMaxQueens];
  int k = 0;
  for (int col = 0; col < n; ++col)
    if (queen_safe(board, row, col)) cols[k++] = static_cast<std::int8_t>(col);
  return k == 0 ? 0 : nqueens_range(n, row, board, cols, 0, k);
}

// --- UTS --------------------------------------------------------------------------------
std::uint64_t uts_sp(const UtsTree& tree, const UtsNode& node);

// Children [lo, hi) of `node`, in two halves joined; each child is hashed by the task
// that visits it, as in the peers.
std::uint64_t uts_range(const UtsTree& tree, const UtsNode& node, int lo, int hi) {
  if (hi - lo == 1) return uts_sp(tree, uts_child(node, lo));
  const int mid = lo + (hi - lo) / 2;
  auto [a, b] = stealpool::join([&] { return uts_range(tree, node, lo, mid); },
                                [&] { return uts_range(tree, node, mid, hi); });
  return a + b;
}

std::uint64_t uts_sp(const UtsTree& tree, const UtsNode& node) {
  const int n = uts_num_children(tree, node);
  return n == 0 ? 1 : 1 + uts_range(tree, node, 0, n);
}

// The alternative: a TaskGroup per node and one spawn per child, as the peers do.
std::uint64_t uts_sp_group(const UtsTree& tree, const UtsNode& node) {
  const int n = uts_num_children(tree, node);
  if (n == 0) return 1;
  ChildSlots counts(n);
  stealpool::TaskGroup tg;
  for (int i = 0; i < n; ++i)
    tg.spawn([&counts, &tree, &node, i] { counts[i] = uts_sp_group(tree, uts_child(node, i)); });
  tg.wait();
  return 1 + counts.sum();
}

class StealpoolRuntime final : public Runtime {
 public:
  StealpoolRuntime(const stealpool::ExecutorConfig& config, bool uts_group) : pool_(config), uts_group_(uts_group) {}

  std::uint64_t fib(int n) override {
    return pool_.run([n] { return fib_sp(n); });
  }
  std::uint64_t nqueens(int n) override {
    return pool_.run([n] { return nqueens_sp(n, 0, Board{}); });
  }
  std::uint64_t uts(const UtsTree& tree) override {
    return pool_.run([&tree, this] {
      const UtsNode root = uts_root(tree);
      return uts_group_ ? uts_sp_group(tree, root) : uts_sp(tree, root);
    });
  }

 private:
  stealpool::ThreadPool pool_;
  bool uts_group_;
};

}  // namespace

std::unique_ptr<Runtime> make_stealpool_runtime(std::size_t workers, bool uts_group) {
  stealpool::ExecutorConfig config;
  config.workers = workers;
  return make_stealpool_runtime(config, uts_group);
}

std::unique_ptr<Runtime> make_stealpool_runtime(const stealpool::ExecutorConfig& config, bool uts_group) {
  return std::make_unique<StealpoolRuntime>(config, uts_group);
}

}  // namespace stealbench::fj

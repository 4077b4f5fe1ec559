// oneTBB peer: tbb::task_group, the idiom oneTBB's documentation gives for recursive
// fork-join (a task_group per call: run() the first branch, compute the second inline,
// wait()), inside a task_arena of W threads created once. The calling thread takes one
// of the W slots, so W = 2 means the caller plus one oneTBB worker.
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "workloads.hpp"

namespace stealbench::fj {
namespace {

std::uint64_t fib_tbb(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  std::uint64_t x = 0;
  tbb::task_group tg;
  tg.run([&] { x = fib_tbb(n - 1); });
  const std::uint64_t y = fib_tbb(n - 2);
  tg.wait();
  return x + y;
}

std::uint64_t nqueens_tbb(int n, int row, const Board& board) {
  if (row == n) return 1;
  ChildSlots counts(n);
  tbb::task_group tg;
  for (int col = 0; col < n; ++col) {
    if (!queen_safe(board, row, col)) continue;
    tg.run([&counts, &board, n, row, col] {
      Board next = board;
      next[static_cast<std::size_t>(row)] = static_cast<std::int8_t>(col);
      counts[col] = nqueens_tbb(n, row + 1, next);
    });
  }
  tg.wait();
  return counts.sum();
}

std::uint64_t uts_tbb(const UtsTree& tree, const UtsNode& node) {
  const int n = uts_num_children(tree, node);
  if (n == 0) return 1;
  ChildSlots counts(n);
  tbb::task_group tg;
  for (int i = 0; i < n; ++i)
    tg.run([&counts, &tree, &node, i] { counts[i] = uts_tbb(tree, uts_child(node, i)); });
  tg.wait();
  return 1 + counts.sum();
}

class TbbRuntime final : public Runtime {
 public:
  explicit TbbRuntime(std::size_t workers) : arena_(static_cast<int>(workers)) { arena_.initialize(); }

  std::uint64_t fib(int n) override { return arena_.execute([n] { return fib_tbb(n); }); }
  std::uint64_t nqueens(int n) override {
    return arena_.execute([n] { return nqueens_tbb(n, 0, Board{}); });
  }
  std::uint64_t uts(const UtsTree& tree) override {
    return arena_.execute([&tree] { return uts_tbb(tree, uts_root(tree)); });
  }

 private:
  tbb::task_arena arena_;
};

}  // namespace

std::unique_ptr<Runtime> make_tbb_runtime(std::size_t workers) { return std::make_unique<TbbRuntime>(workers); }

}  // namespace stealbench::fj

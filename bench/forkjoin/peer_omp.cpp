// OpenMP peer: explicit tasks (`task` + `taskwait`) started by one thread of a
// `parallel num_threads(W)` region (`single`), the way the OpenMP examples and BOTS
// write recursive fork-join. The only translation unit built with -fopenmp: with g++
// that is libgomp, with clang++ the LLVM runtime (libomp), as omp_runtime_name() says.
//
// Every task names its data sharing: results go to a slot of the parent's frame
// (shared, through a firstprivate pointer), which outlives the task because the
// parent waits for it in `taskwait`.
#include <omp.h>

#include "workloads.hpp"

namespace stealbench::fj {
namespace {

std::uint64_t fib_omp(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  std::uint64_t x = 0;
#pragma omp task shared(x) firstprivate(n)
  x = fib_omp(n - 1);
  const std::uint64_t y = fib_omp(n - 2);
#pragma omp taskwait
  return x + y;
}

std::uint64_t nqueens_omp(int n, int row, const Board* board) {
  if (row == n) return 1;
  ChildSlots counts(n);
  std::uint64_t* slots = counts.data();
  for (int col = 0; col < n; ++col) {
    if (!queen_safe(*board, row, col)) continue;
#pragma omp task firstprivate(slots, board, n, row, col)
    {
      Board next = *board;
      next[static_cast<std::size_t>(row)] = static_cast<std::int8_t>(col);
      slots[col] = nqueens_omp(n, row + 1, &next);
    }
  }
#pragma omp taskwait
  return counts.sum();
}

std::uint64_t uts_omp(const UtsTree* tree, const UtsNode* node) {
  const int n = uts_num_children(*tree, *node);
  if (n == 0) return 1;
  ChildSlots counts(n);
  std::uint64_t* slots = counts.data();
  for (int i = 0; i < n; ++i) {
#pragma omp task firstprivate(slots, tree, node, i)
    {
      const UtsNode child = uts_child(*node, i);
      slots[i] = uts_omp(tree, &child);
    }
  }
#pragma omp taskwait
  return 1 + counts.sum();
}

// Runs `f` on one thread of a team of `workers`, the others taking its tasks.
template <class F>
std::uint64_t in_team(int workers, F f) {
  std::uint64_t result = 0;
#pragma omp parallel num_threads(workers) shared(result, f)
  {
#pragma omp single
    result = f();
  }
  return result;
}

class OmpRuntime final : public Runtime {
 public:
  explicit OmpRuntime(std::size_t workers) : workers_(static_cast<int>(workers)) {
    // Start the team's threads now, not in the first timed run (the runtime keeps them).
    (void)in_team(workers_, [] { return std::uint64_t{0}; });
  }

  std::uint64_t fib(int n) override {
    return in_team(workers_, [n] { return fib_omp(n); });
  }
  std::uint64_t nqueens(int n) override {
    return in_team(workers_, [n] {
      const Board empty{};
      return nqueens_omp(n, 0, &empty);
    });
  }
  std::uint64_t uts(const UtsTree& tree) override {
    return in_team(workers_, [&tree] {
      const UtsNode root = uts_root(tree);
      return uts_omp(&tree, &root);
    });
  }

 private:
  int workers_;
};

}  // namespace

std::unique_ptr<Runtime> make_omp_runtime(std::size_t workers) { return std::make_unique<OmpRuntime>(workers); }

}  // namespace stealbench::fj

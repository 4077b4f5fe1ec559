// The fork-join workloads of stealbench's fork-join suite
// (bench/stealbench/suite_forkjoin.cpp), shared by every runtime: the serial code (the
// reference the parallel versions are timed against), the result each run must produce,
// and the interface one runtime implements (one translation unit per runtime, so that
// OpenMP's flags touch only its own).
//
//   fib(n)      naive doubly recursive Fibonacci; the parallel versions fork at every
//               call down to n < 2 (no cutoff): almost pure scheduling overhead.
//   nqueens(n)  count the placements of n non-attacking queens; the parallel versions
//               make one task per valid placement of a queen at every row.
//   uts(tree)   count the nodes of a UTS tree (workloads/, stealpool/workloads/uts.hpp); one task per child.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "stealpool/workloads/uts.hpp"

// Only declared: the OpenMP and oneTBB peers are built without stealpool.
namespace stealpool {
struct ExecutorConfig;
}

namespace stealbench::fj {

// UTS lives in workloads/ (stealpool::workloads), shared with the simulator and
// stealpool-uts-mpi; the runtimes' idioms here name its types unqualified.
using namespace ::stealpool::workloads;

// --- fib ------------------------------------------------------------------------------
inline std::uint64_t fib_serial(int n) {
  return n < 2 ? static_cast<std::uint64_t>(n) : fib_serial(n - 1) + fib_serial(n - 2);
}

inline std::uint64_t fib_expected(int n) {
  std::uint64_t a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t next = a + b;
    a = b;
    b = next;
  }
  return a;
}

// --- nqueens --------------------------------------------------------------------------
inline constexpr int kMaxQueens = 16;
// board[r] = column of the queen on row r, for the rows placed so far.
using Board = std::array<std::int8_t, kMaxQueens>;

// Whether a queen at (row, col) is safe from the queens on rows 0..row-1.
inline bool queen_safe(const Board& board, int row, int col) {
  for (int r = 0; r < row; ++r) {
    const int d = board[static_cast<std::size_t>(r)] - col;
    if (d == 0 || d == row - r || d == r - row) return false;
  }
  return true;
}

// Serial: one board, updated in place.
inline std::uint64_t nqueens_serial(int n, int row, Board& board) {
  if (row == n) return 1;
  std::uint64_t count = 0;
  for (int col = 0; col < n; ++col)
    if (queen_safe(board, row, col)) {
      board[static_cast<std::size_t>(row)] = static_cast<std::int8_t>(col);
      count += nqueens_serial(n, row + 1, board);
    }
  return count;
}

inline std::uint64_t nqueens_serial(int n) {
  Board board{};
  return nqueens_serial(n, 0, board);
}

// The known counts (OEIS A000170) for n = 0..kMaxQueens.
inline constexpr std::array<std::uint64_t, kMaxQueens + 1> kQueensSolutions{
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};

// --- result slots for the children of one task -----------------------------------------
// Where a parent's tasks leave their results, one slot each, summed after the wait:
// on the stack for the usual few children (nqueens: < kMaxQueens; UTS: 8 or 0), on
// the heap for the 2000 children of a UTS T3 root.
class ChildSlots {
 public:
  explicit ChildSlots(int n) {
    if (n > kInline) {
      heap_ = std::make_unique<std::uint64_t[]>(static_cast<std::size_t>(n));
      slots_ = heap_.get();
    }
    n_ = n;
    for (int i = 0; i < n; ++i) slots_[i] = 0;
  }
  ChildSlots(const ChildSlots&) = delete;
  ChildSlots& operator=(const ChildSlots&) = delete;

  std::uint64_t& operator[](int i) { return slots_[i]; }
  std::uint64_t* data() { return slots_; }
  std::uint64_t sum() const {
    std::uint64_t s = 0;
    for (int i = 0; i < n_; ++i) s += slots_[i];
    return s;
  }

 private:
  static constexpr int kInline = kMaxQueens;
  std::uint64_t inline_[kInline];
  std::unique_ptr<std::uint64_t[]> heap_;
  std::uint64_t* slots_ = inline_;
  int n_ = 0;
};

// --- one runtime -----------------------------------------------------------------------
// One runtime with a fixed number of workers. Created once per (runtime, workers) and
// reused for every repetition, so that thread start-up is never timed; each call runs
// one whole workload and returns its result.
class Runtime {
 public:
  virtual ~Runtime() = default;
  virtual std::uint64_t fib(int n) = 0;
  virtual std::uint64_t nqueens(int n) = 0;
  virtual std::uint64_t uts(const UtsTree& tree) = 0;
};

// Each is defined in its own translation unit; the suites call only those built
// (STEALBENCH_HAVE_TBB, STEALBENCH_HAVE_OMP).
// uts_task_group: UTS with a TaskGroup per node instead of the default recursive join
// over the children (both measured; see peer_stealpool.cpp).
std::unique_ptr<Runtime> make_stealpool_runtime(std::size_t workers, bool uts_task_group);
// The same with every knob of the pool (stealbench --trace sets config.trace).
std::unique_ptr<Runtime> make_stealpool_runtime(const stealpool::ExecutorConfig& config, bool uts_task_group);
std::unique_ptr<Runtime> make_tbb_runtime(std::size_t workers);
std::unique_ptr<Runtime> make_omp_runtime(std::size_t workers);

}  // namespace stealbench::fj

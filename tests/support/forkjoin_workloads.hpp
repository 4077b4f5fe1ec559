// tests/support/forkjoin_workloads.hpp: the fork-join workloads shared by the
// fork-join unit and stress tests, each with a serial reference:
//   fib_join(n)          fib with a join at every call
//   nqueens_join(n)      N-queens, the valid columns of each row split by joins
//   nqueens_group(n)     N-queens, one TaskGroup per row, a task per valid column
//   chain_*(depth)       deep unbalanced recursions (a join at every level)
// They use stealpool::join() and TaskGroup's default constructor, so they run on
// whatever pool the calling worker belongs to (default_pool() from outside).
#pragma once

#include <array>
#include <string>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "stealpool/forkjoin.hpp"
#include "test_support.hpp"

namespace sptest {

// A pool of `workers` threads, never pinned (the machine is shared).
inline stealpool::PoolOptions unpinned(std::size_t workers) {
  stealpool::PoolOptions o = stealpool::PoolOptions::with_workers(workers);
  o.config.pin_threads = false;
  return o;
}

inline long fib_serial(int n) {
  long a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    const long c = a + b;
    a = b;
    b = c;
  }
  return a;
}

inline long fib_join(int n) {
  if (n < 2) return n;
  auto [a, b] = stealpool::join([&] { return fib_join(n - 1); }, [&] { return fib_join(n - 2); });
  return a + b;
}

// Solutions of N-queens for n = 0..12 (n = 0: the empty board, one solution).
inline constexpr std::array<long, 13> kQueens = {1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200};

// A board being filled row by row: columns and both diagonals taken, as bit sets
// of the current row's columns.
struct QueensBoard {
  int n;
  int row;
  std::uint32_t cols, diag_l, diag_r;

  std::uint32_t free_columns() const {
    const std::uint32_t all = (std::uint32_t{1} << n) - 1;
    return ~(cols | diag_l | diag_r) & all;
  }
  QueensBoard place(std::uint32_t bit) const {
    return {n, row + 1, cols | bit, (diag_l | bit) << 1, (diag_r | bit) >> 1};
  }
};

inline long nqueens_serial_from(const QueensBoard& b) {
  if (b.row == b.n) return 1;
  long total = 0;
  for (std::uint32_t f = b.free_columns(); f != 0; f &= f - 1) total += nqueens_serial_from(b.place(f & (~f + 1)));
  return total;
}

// The free columns `f` of board b, split in halves by joins down to one column.
inline long nqueens_join_columns(const QueensBoard& b, std::uint32_t f);

inline long nqueens_join_from(const QueensBoard& b) {
  if (b.row == b.n) return 1;
  const std::uint32_t f = b.free_columns();
  return f == 0 ? 0 : nqueens_join_columns(b, f);
}

inline long nqueens_join_columns(const QueensBoard& b, std::uint32_t f) {
  if ((f & (f - 1)) == 0) return nqueens_join_from(b.place(f));  // one column left
  // Split the set bits in two halves: the lower half of them, and the rest.
  int count = 0;
  for (std::uint32_t g = f; g != 0; g &= g - 1) ++count;
  std::uint32_t low = 0, g = f;
  for (int i = 0; i < count / 2; ++i) {
    low |= g & (~g + 1);
    g &= g - 1;
  }
  auto [x, y] = stealpool::join([&] { return nqueens_join_columns(b, low); },
                                [&] { return nqueens_join_columns(b, f & ~low); });
  return x + y;
}

inline long nqueens_join(int n) { return nqueens_join_from({n, 0, 0, 0, 0}); }

// One TaskGroup per board, a task per free column, each writing its own slot.
inline long nqueens_group_from(const QueensBoard& b) {
  if (b.row == b.n) return 1;
  std::array<long, 32> counts{};
  stealpool::TaskGroup tg;
  int slot = 0;
  for (std::uint32_t f = b.free_columns(); f != 0; f &= f - 1, ++slot) {
    const QueensBoard next = b.place(f & (~f + 1));
    tg.spawn([next, &counts, slot] { counts[static_cast<std::size_t>(slot)] = nqueens_group_from(next); });
  }
  (void)tg.wait();
  long total = 0;
  for (int i = 0; i < slot; ++i) total += counts[static_cast<std::size_t>(i)];
  return total;
}

inline long nqueens_group(int n) { return nqueens_group_from({n, 0, 0, 0, 0}); }

// A leaf of the deep recursions: a little work the optimiser cannot fold away.
inline long tiny_leaf(long seed) {
  volatile long v = seed;
  return v % 3 == 7 ? 0 : 1;  // always 1
}

// Left-deep chain: join(chain(d - 1), leaf) at every level. depth + 1.
inline long chain_left(int depth) {
  if (depth == 0) return 1;
  auto [a, b] = stealpool::join([&] { return chain_left(depth - 1); }, [&] { return tiny_leaf(depth); });
  return a + b;
}

// Right-deep chain: join(leaf, chain(d - 1)), so the deep half is the one that
// is pushed (and stolen, by a thief that then recurses on its own stack). depth + 1.
inline long chain_right(int depth) {
  if (depth == 0) return 1;
  auto [a, b] = stealpool::join([&] { return tiny_leaf(depth); }, [&] { return chain_right(depth - 1); });
  return a + b;
}

// A comb: a deep spine whose every level also forks a small fib subtree, so
// there is real work to steal at every depth. depth * fib(leaf_n) + 1.
inline long chain_comb(int depth, int leaf_n) {
  if (depth == 0) return 1;
  auto [a, b] = stealpool::join([&] { return chain_comb(depth - 1, leaf_n); }, [&] { return fib_join(leaf_n); });
  return a + b;
}

}  // namespace sptest

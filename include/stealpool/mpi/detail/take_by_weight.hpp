// stealpool/mpi/detail/take_by_weight.hpp: how many of the tasks a take for
// another rank took are sent when the tasks carry weights (DistExecutor::
// weigh_tasks), so that a steal moves about half of the victim's spare work
// rather than half of its spare tasks ([MPI-take-by-weight], ../README.md).
// Its own header so that the rank simulator (sim/ranks/) sends exactly what
// the real rank sends.
#pragma once

#include <cmath>
#include <cstddef>
#include <span>

namespace stealpool::mpi::detail {

// `taken`: the weights of the tasks Executor::take_half took, oldest first.
// Returns k in [1, taken.size()] (0 for none taken): the oldest k are sent, the
// rest go back to the rank.
//
// A take takes half of the spare tasks (rounded down; fewer only when
// DistConfig::max_batch caps it), so about as many stay behind as were taken.
// They are younger than those taken; each counts at the weight of the
// youngest task taken, their nearest in age (in a depth-first search the
// young are the small, so there this over-estimates them, and it is the right
// guess where every task weighs alike). k is the prefix whose weight is
// closest to half of the whole so estimated, the shorter one on a tie. With
// equal weights that is every task taken: the take stays half of the tasks.
// Weights are finite and > 0 (the caller checks them).
inline std::size_t tasks_to_send(std::span<const double> taken) noexcept {
  if (taken.empty()) return 0;
  double total = 0;
  for (const double w : taken) total += w;
  total += taken.back() * static_cast<double>(taken.size());
  const double half = total / 2;
  std::size_t best = 1;
  double prefix = taken[0];
  double best_gap = std::fabs(prefix - half);
  for (std::size_t k = 2; k <= taken.size(); ++k) {
    prefix += taken[k - 1];
    const double gap = std::fabs(prefix - half);
    if (gap < best_gap) {
      best_gap = gap;
      best = k;
    }
  }
  return best;
}

}  // namespace stealpool::mpi::detail

// stealpool/engine/worker_deque.hpp: which deque a worker owns, by item type.
//
// Typed executors use the growable Chase-Lev deque: their tasks are spawned
// one by one and often stolen at once, so every item is public on push.
// Fork-join pools (item type Job*) use the split deque: a join pushes and pops
// its second branch back millions of times a second, and keeping those items
// private until a thief asks removes the fence from every pop (queue/README.md,
// "Split deque"). Everything else in the engine is the same code.
#pragma once

#include "stealpool/engine/job.hpp"
#include "stealpool/queue/chase_lev_deque.hpp"
#include "stealpool/queue/split_deque.hpp"

namespace stealpool::detail {

template <class Stored>
struct WorkerDeque {
  using type = ChaseLevDeque<Stored>;
};

template <>
struct WorkerDeque<Job*> {
  using type = SplitDeque<Job*>;
};

template <class Deque>
inline constexpr bool kIsSplitDeque = false;
template <class U, class Sync>
inline constexpr bool kIsSplitDeque<SplitDeque<U, Sync>> = true;

}  // namespace stealpool::detail

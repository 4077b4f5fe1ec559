// stealpool/mpi/context.hpp: Context<T, S>, what a running task sees of its
// worker in a DistExecutor: spawn, its scratch, its worker id and rank.
// Only the worker's own thread touches it.
#pragma once

#include <cstddef>

namespace stealpool::mpi {
namespace detail {
template <class T, class S>
class RankPool;
}

template <class T, class S>
class Context {
 public:
  // Queues a task on this worker's deque: a push, plus a wake-up when a sibling
  // sleeps. Other workers of the rank, and other ranks, may steal it.
  void spawn(const T& task);
  void spawn(T&& task);  // moves a boxed task (codec.hpp) instead of copying it
  S& scratch() noexcept { return scratch_; }
  std::size_t worker_id() const noexcept { return worker_; }
  int rank() const noexcept { return rank_; }

  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

 private:
  friend class detail::RankPool<T, S>;
  Context(detail::RankPool<T, S>& pool, std::size_t worker, int rank, S& scratch)
      : pool_(pool), worker_(worker), rank_(rank), scratch_(scratch) {}

  detail::RankPool<T, S>& pool_;
  std::size_t worker_;
  int rank_;
  S& scratch_;
};

}  // namespace stealpool::mpi

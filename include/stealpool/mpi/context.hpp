// stealpool/mpi/context.hpp: Context<T, S>, what a running task sees of its
// worker in a DistExecutor: spawn, emit, its scratch, its worker id and rank.
// Only the worker's own thread touches it.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

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
  // Sends `bytes` as one frame to rank 0's data sink (DistExecutor::on_data),
  // copied now and delivered while the run goes on, before run() returns there.
  // A rank's frames arrive in the order its workers emitted them (one worker's in
  // its order). At most 1 GiB a frame: more throws std::length_error. A copy and
  // a lock per call: emit a finished piece of output (a file's lines), not a byte.
  void emit(std::span<const std::byte> bytes);
  void emit(std::string_view text) { emit(std::as_bytes(std::span<const char>(text.data(), text.size()))); }
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

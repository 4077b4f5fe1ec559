// stealpool/mpi/context.hpp: Context<T, S>, what a running task sees of its
// worker in a DistExecutor: spawn, emit, its scratch, its worker id and rank.
// Only the worker's own thread touches it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "stealpool/engine/task_box.hpp"
#include "stealpool/mpi/detail/private_tail.hpp"
#include "stealpool/platform/cache_line.hpp"
#include "stealpool/queue/atomic_slot.hpp"  // kMaxInlineItemBytes
#include "stealpool/worker_ctx.hpp"

namespace stealpool::mpi {
namespace detail {
template <class T, class S>
class RankWorkers;

// A task as a rank's executor holds it: T itself when trivially copyable and at
// most 64 bytes, else a pointer to a heap T (rank_workers.hpp).
template <class T>
struct RankItem {
  using Box = stealpool::detail::TaskBox<T, stealpool::detail::kMaxInlineItemBytes>;
  typename Box::Stored stored;
  static const T& deref(const typename Box::Stored& s) noexcept {
    if constexpr (Box::kInline) return s;
    else return *s;
  }
};

// What each worker of a rank keeps: its scratch (none if scratch_init threw),
// the tasks it keeps private ([MPI-private-tail]) and its counts. Written by its
// worker only, read after the run; a cache line of its own, as tasks write
// their scratch all the time.
template <class T, class S>
struct alignas(stealpool::detail::kCacheLine) RankSlot {
  std::optional<S> scratch;
  PrivateTail<RankItem<T>> tail;
  std::uint64_t tasks_run = 0;
  std::uint64_t tasks_dropped = 0;
  std::uint64_t probe_rings = 0;      // [MPI-worker-probe]: its probes that found a message
  std::uint32_t tasks_to_probe = 1;   // [MPI-worker-probe]: tasks until it next asks whether a probe is due
};
}  // namespace detail

template <class T, class S>
class Context {
 public:
  // Queues a task on this worker's deque (a push, plus a wake-up when a sibling
  // sleeps), or, while the deque holds 16 or more, privately: the worker runs
  // it after the calling task, newest first, or moves it to the deque when the
  // deque runs low ([MPI-private-tail]). Other workers of the rank, and other
  // ranks, may steal it once it is in the deque.
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
  std::size_t worker_id() const noexcept { return worker_.worker_id(); }
  int rank() const noexcept { return rank_; }

  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

 private:
  friend class detail::RankWorkers<T, S>;
  using Worker = WorkerCtx<detail::RankItem<T>, detail::RankSlot<T, S>*>;
  Context(detail::RankWorkers<T, S>& pool, Worker& worker, int rank, S& scratch)
      : pool_(pool), worker_(worker), rank_(rank), scratch_(scratch) {}

  detail::RankWorkers<T, S>& pool_;
  Worker& worker_;
  int rank_;
  S& scratch_;
};

}  // namespace stealpool::mpi

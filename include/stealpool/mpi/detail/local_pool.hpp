// stealpool/mpi/detail/local_pool.hpp: LocalPool, what the MPI protocol
// (Progress) needs from a rank's worker pool, with the task type erased to bytes
// so that the protocol is compiled once (src/mpi/progress.cpp).
// Every member is called by the progress thread only (the thread in run()).
// A batch is opaque here: the pool writes its tasks' bytes (codec.hpp, TaskWire)
// and the protocol carries them with their count (README.md, "Task types and the
// batch format").
#pragma once

#include <chrono>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace stealpool::mpi::detail {

class LocalPool {
 public:
  virtual ~LocalPool() = default;
  // True when the rank holds no task, queued or running ([MPI-outstanding]). Once
  // true it stays true until give() is called: only the progress thread adds work
  // to a dry rank.
  virtual bool dry() const noexcept = 0;
  // True when the rank still has work but its queues hold so few tasks that it
  // may run dry before a refill could arrive ([MPI-refill-ahead]): its lifelines
  // are asked now. A hint: a wrong answer costs a message or a wait, never a task.
  virtual bool running_low() const noexcept { return false; }
  // Sleeps for at most `most`, less if the rank runs dry meanwhile: the settle
  // that takes [MPI-outstanding] to zero rings the progress thread, so a
  // dry rank hunts at once instead of after the rest of a sleep ([MPI-dry-bell]).
  // May also return early for no reason; the caller's loop re-checks everything.
  virtual void nap(std::chrono::microseconds most) noexcept = 0;
  // Takes about half of the rank's queued tasks (at most `max`), oldest first, and
  // appends their bytes to `out`. Returns how many. Running tasks are not spare.
  // A task that cannot be encoded fails the rank as a task would; the tasks
  // taken are then dropped, `out` is left as it was, and 0 is returned.
  virtual std::size_t take_half(std::size_t max, std::vector<std::byte>& out) = 0;
  // Queues the `n` tasks whose bytes take_half wrote on another rank, and wakes
  // workers for them. Does not throw: a batch that cannot be decoded fails the
  // rank as a task would (failed(), failure_text()) and its tasks are dropped.
  virtual void give(std::span<const std::byte> batch, std::size_t n) = 0;
  // Another rank failed: tasks are dropped unrun from now on.
  virtual void cancel() noexcept = 0;
  // A task on this rank threw ([MPI-failed-before-dry]); what() of its exception.
  virtual bool failed() const noexcept = 0;
  virtual std::string failure_text() const = 0;

  // Data the rank's tasks emitted for rank 0 (Context::emit), as frames: each a
  // 4-byte length (native order) and its bytes. Moves every queued frame into
  // `out` (left empty if none); false if none was queued. A frame queued before
  // the worker settled its task is seen by the first call after dry() returned
  // true ([MPI-data-before-passive]).
  virtual bool take_data(std::vector<std::byte>& /*out*/) { return false; }
  // Rank 0: frames from rank `source` (the same layout), for the data sink. Does
  // not throw: a sink's exception fails the rank as a task's would.
  virtual void deliver(int /*source*/, std::span<const std::byte> /*frames*/) noexcept {}
};

}  // namespace stealpool::mpi::detail

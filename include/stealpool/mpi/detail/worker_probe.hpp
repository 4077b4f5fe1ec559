// stealpool/mpi/detail/worker_probe.hpp: WorkerProbe, how a rank's workers look
// for a waiting MPI message between their tasks and wake the napping progress
// thread, so a thief's request is answered within the probe interval, not at
// the end of the victim's nap. The protocol, [MPI-worker-probe], is in
// ../README.md, "Threads".
//
// Threads: the progress thread holds lock() for each round of its MPI calls and
// closes the probe before run() returns; the rank's workers call poll(). Only
// with MPI_THREAD_SERIALIZED or above: MPI then allows calls from any thread,
// one at a time, which lock() makes so.
#pragma once

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

namespace stealpool::mpi::detail {

class WorkerProbe {
 public:
  // `comm`: the executor's own. An interval of 0 turns the probe off: poll()
  // never calls MPI, and lock() only orders the progress thread's own calls.
  WorkerProbe(MPI_Comm comm, std::chrono::microseconds interval) noexcept
      : comm_(comm), interval_ns_(std::chrono::nanoseconds(interval).count()) {}
  WorkerProbe(const WorkerProbe&) = delete;
  WorkerProbe& operator=(const WorkerProbe&) = delete;

  bool enabled() const noexcept { return interval_ns_ > 0; }

  // The progress thread's, held while it calls MPI; released for its naps.
  std::mutex& lock() noexcept { return mu_; }
  // The progress thread, holding lock(), before run() returns or unwinds: no
  // worker calls MPI after this, whatever the caller does with MPI next.
  void close() noexcept { open_ = false; }

  // A worker, between tasks: true if a message waits for the progress thread
  // (the caller then rings it). Calls MPI at most once an interval on the
  // whole rank, and never waits: if the progress thread holds the lock, its
  // own round is about to see the message.
  bool poll() noexcept {
    if (!enabled()) return false;
    const std::int64_t now = now_ns();
    // Relaxed: only when the next probe is due, a hint; lock() orders the MPI
    // calls ([MPI-worker-probe]).
    if (now < next_due_ns_.load(std::memory_order::relaxed)) return false;
    std::unique_lock<std::mutex> held(mu_, std::try_to_lock);
    if (!held.owns_lock() || !open_) return false;
    next_due_ns_.store(now + interval_ns_, std::memory_order::relaxed);
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, MPI_STATUS_IGNORE);
    // The second look of Progress::poll_messages(): a probe that drove the
    // transport may report what it pulled in only to the next probe.
    if (flag == 0) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, MPI_STATUS_IGNORE);
    return flag != 0;
  }

 private:
  static std::int64_t now_ns() noexcept {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  const MPI_Comm comm_;
  const std::int64_t interval_ns_;
  std::mutex mu_;
  bool open_ = true;                           // guarded by mu_
  std::atomic<std::int64_t> next_due_ns_{0};   // [MPI-worker-probe]: a hint, relaxed
};

}  // namespace stealpool::mpi::detail

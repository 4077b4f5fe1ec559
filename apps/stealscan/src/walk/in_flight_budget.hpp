// in_flight_budget.hpp: InFlightBudget, the walker's backpressure (seed 000's
// budget.acquire). The walker takes one unit per file before it spawns the file's
// task; the worker that finishes the file (its last chunk) gives the unit back. So
// at most `limit` files are in flight, however large the tree, and the memory
// for queued tasks and their paths stays flat (apps/stealscan/docs/design.md,
// "Bounded memory").
//
// One acquirer (the walker thread), any number of releasers (workers). The
// walker does not wake on every release: once blocked, it waits until the count
// has fallen to limit / 2, then refills the queue in one go; a worker takes the
// mutex only when it sees the walker waiting, about once per limit / 2 files.
// The wake-up protocol is [SCAN-budget-wake] in apps/stealscan/docs/design.md.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <string>

namespace stealscan {

class InFlightBudget {
 public:
  explicit InFlightBudget(std::size_t limit) : limit_(limit), resume_at_(limit / 2) {
    if (limit == 0) throw std::invalid_argument("InFlightBudget: limit must be >= 1 (got 0)");
  }

  // Walker only. Takes n units (n <= limit), first waiting, if they do not fit,
  // until at most limit / 2 are in flight (and n fit). Returns false without
  // taking them if `stopped()` turns true while it waits (the executor stopped:
  // no unit will come back); it is polled every 50 ms.
  template <class Stopped>
  [[nodiscard]] bool acquire(std::size_t n, Stopped stopped) {
    if (n > limit_)
      throw std::invalid_argument("InFlightBudget::acquire: " + std::to_string(n) + " > limit " +
                                  std::to_string(limit_));
    // Relaxed: only this thread adds, so the count can only have fallen since.
    if (in_flight_.load(std::memory_order_relaxed) + n <= limit_) {
      in_flight_.fetch_add(n, std::memory_order_relaxed);
      return true;
    }
    const std::size_t target = resume_at_ + n <= limit_ ? resume_at_ : limit_ - n;
    std::unique_lock lock(mu_);
    waiting_.store(true, std::memory_order_seq_cst);  // [SCAN-budget-wake]: then read the count
    while (in_flight_.load(std::memory_order_seq_cst) > target) {
      if (stopped()) {
        waiting_.store(false, std::memory_order_relaxed);
        return false;
      }
      cv_.wait_for(lock, std::chrono::milliseconds(50));
    }
    waiting_.store(false, std::memory_order_relaxed);  // read by releasers only as a hint
    lock.unlock();
    in_flight_.fetch_add(n, std::memory_order_relaxed);
    return true;
  }

  // Any thread: gives one unit back.
  void release() {
    // [SCAN-budget-wake]: the decrement, then the read of `waiting_`; seq_cst on
    // both sides, so a walker that missed this decrement is seen waiting here.
    const std::size_t now = in_flight_.fetch_sub(1, std::memory_order_seq_cst) - 1;
    if (now <= resume_at_ && waiting_.load(std::memory_order_seq_cst)) {
      std::lock_guard lock(mu_);  // the walker is checking or asleep: never between
      cv_.notify_one();
    }
  }

  [[nodiscard]] std::size_t in_flight() const noexcept { return in_flight_.load(std::memory_order_relaxed); }
  // Whether the walker is blocked in acquire() (for tests; a relaxed read).
  [[nodiscard]] bool walker_waiting() const noexcept { return waiting_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::size_t limit() const noexcept { return limit_; }

 private:
  const std::size_t limit_;
  const std::size_t resume_at_;
  std::atomic<std::size_t> in_flight_{0};
  std::atomic<bool> waiting_{false};
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace stealscan

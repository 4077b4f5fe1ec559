// in_flight_budget.hpp: InFlightBudget, the bound on file tasks queued at once
// (`--max-in-flight`). A worker that walks a directory takes units for the file
// tasks it queues; the worker that finishes a file (its last chunk) gives the
// unit back. When the budget is full the walking worker does not wait: it scans
// those files itself (scan/file_feed.hpp), so the queues and the paths they
// hold stay bounded however large the tree, and no worker ever blocks on the
// budget (apps/stealscan/docs/design.md, "Bounded memory").
//
// One counter, every operation an RMW on it. Relaxed throughout: the count
// publishes no data (each task is published by the executor's spawn and steal),
// it only bounds how many are queued, and the bound needs only that all RMWs
// on one atomic form a single modification order, which relaxed RMWs do.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <stdexcept>

namespace stealscan {

class InFlightBudget {
 public:
  explicit InFlightBudget(std::size_t limit) : limit_(limit) {
    if (limit == 0) throw std::invalid_argument("InFlightBudget: limit must be >= 1 (got 0)");
  }

  // Any thread. Takes as many of `n` units as fit under the limit (0 to n) and
  // returns how many it took; never waits.
  [[nodiscard]] std::size_t take_up_to(std::size_t n) noexcept {
    std::size_t now = in_flight_.load(std::memory_order_relaxed);
    std::size_t k = 0;
    do {
      k = now >= limit_ ? 0 : std::min(n, limit_ - now);
      if (k == 0) return 0;
    } while (!in_flight_.compare_exchange_weak(now, now + k, std::memory_order_relaxed, std::memory_order_relaxed));
    return k;
  }

  // Any thread. Takes `n` units whatever the count: for files named on the
  // command line, and for a file the walking worker scans itself (in flight,
  // not queued). So the count may pass the limit by the number of workers plus
  // the operands.
  void take(std::size_t n) noexcept { in_flight_.fetch_add(n, std::memory_order_relaxed); }

  // Any thread: gives one unit back.
  void release() noexcept { in_flight_.fetch_sub(1, std::memory_order_relaxed); }

  [[nodiscard]] std::size_t in_flight() const noexcept { return in_flight_.load(std::memory_order_relaxed); }
  [[nodiscard]] std::size_t limit() const noexcept { return limit_; }

 private:
  const std::size_t limit_;
  std::atomic<std::size_t> in_flight_{0};
};

}  // namespace stealscan

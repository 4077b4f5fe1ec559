// tests/support/park_counter.hpp: a TraceSink that counts the workers' parks
// and the parks that ended by timeout, readable while the pool runs (the
// TraceRecorder's timeline is read only after a join).
#pragma once

#include <atomic>
#include <cstddef>

#include "stealpool/trace.hpp"

namespace sptest {

class ParkCounter final : public stealpool::TraceSink {
 public:
  void on_task(std::size_t, stealpool::TaskSource, std::size_t) noexcept override {}
  void on_idle(std::size_t) noexcept override {}
  // relaxed, both: counts polled or read after a join; nothing is published by them.
  void on_park(std::size_t) noexcept override { parks_.fetch_add(1, std::memory_order_relaxed); }
  void on_unpark(std::size_t, bool notified) noexcept override {
    if (!notified) timeouts_.fetch_add(1, std::memory_order_relaxed);
  }
  // on_park comes after the park's announcement and re-check, just before the
  // futex wait (engine/executor_worker.hpp, sleep_on): a worker counted here
  // sleeps, unless a wake-up sent since its announcement returns it at once.
  int parks() const { return parks_.load(std::memory_order_relaxed); }
  int timeouts() const { return timeouts_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int> parks_{0};
  std::atomic<int> timeouts_{0};
};

}  // namespace sptest

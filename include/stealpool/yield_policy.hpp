// stealpool/yield_policy.hpp: when should a long task give its worker back?
//
// A task that processes a long input (a big file, a long scan) can split itself:
// after each unit of work it asks its policy `should_yield()`, and on true it
// re-enqueues itself with its cursor (`ctx.spawn_local(next_part)`) and returns, so
// the worker can run other tasks and thieves can take the continuation. The policy
// decides the grain; the task decides what a unit is.
//
//   NeverYield      run to completion (the default for short tasks)
//   AlwaysYield     yield after every unit (maximum fairness, maximum overhead)
//   EveryN          yield after every n units
//   AdaptiveYield   yield once a time slice has elapsed; reads the clock only every
//                   `check_every` units so the check stays cheap
//
// Policies are small value types, owned by the task or its scratch; none is
// thread-safe, none allocates. `reset()` starts a new slice (call it when the task
// resumes after yielding).
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace stealpool {

class NeverYield {
 public:
  constexpr bool should_yield() noexcept { return false; }
  constexpr void reset() noexcept {}
};

class AlwaysYield {
 public:
  constexpr bool should_yield() noexcept { return true; }
  constexpr void reset() noexcept {}
};

class EveryN {
 public:
  // n == 0 would never yield while claiming to: rejected.
  explicit EveryN(std::uint32_t n) : n_(n) {
    if (n == 0) throw std::invalid_argument("stealpool::EveryN: n must be >= 1 (got 0)");
  }
  bool should_yield() noexcept {
    if (++count_ < n_) return false;
    count_ = 0;
    return true;
  }
  void reset() noexcept { count_ = 0; }
  std::uint32_t n() const noexcept { return n_; }

 private:
  std::uint32_t n_;
  std::uint32_t count_ = 0;
};

class AdaptiveYield {
 public:
  using Clock = std::chrono::steady_clock;

  explicit AdaptiveYield(std::chrono::nanoseconds slice = std::chrono::microseconds(500),
                         std::uint32_t check_every = 16)
      : slice_(slice), check_every_(check_every), start_(Clock::now()) {
    if (slice.count() <= 0)
      throw std::invalid_argument("stealpool::AdaptiveYield: slice must be > 0 ns (got " +
                                  std::to_string(slice.count()) + ")");
    if (check_every == 0)
      throw std::invalid_argument("stealpool::AdaptiveYield: check_every must be >= 1 (got 0)");
  }

  bool should_yield() noexcept {
    if (++count_ < check_every_) return false;
    count_ = 0;
    if (Clock::now() - start_ < slice_) return false;
    reset();
    return true;
  }
  void reset() noexcept {
    count_ = 0;
    start_ = Clock::now();
  }

 private:
  std::chrono::nanoseconds slice_;
  std::uint32_t check_every_;
  std::uint32_t count_ = 0;
  Clock::time_point start_;
};

}  // namespace stealpool

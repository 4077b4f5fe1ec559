// stealpool/platform/parker.hpp: a one-thread sleep slot with a sticky
// wake-up token (the crossbeam/Rust std Parker design, on a Linux futex).
//
// Who may call what: park() only by the thread that owns the parker; unpark()
// from any thread.
//
// An unpark() that comes before the park() is not lost: it leaves a token, and the
// next park() consumes it and returns at once. Tokens do not accumulate (several
// unparks leave one token). park() may also return spuriously; callers re-check
// their condition, as with a condition variable.
//
// States: kEmpty (0), kParked (-1, the owner sleeps or is about to), kNotified (1).
// engine/sleep/README.md, "Parker", has the transitions and why unpark is a swap.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace stealpool::detail {

class Parker {
 public:
  static constexpr std::chrono::nanoseconds kForever = std::chrono::nanoseconds::max();

  // Owner only. Sleeps until unpark() or `timeout` (kForever: no timeout).
  // Returns true if a wake-up token was consumed, false on timeout.
  bool park(std::chrono::nanoseconds timeout) noexcept;

  // Any thread. Leaves a token; wakes the owner if it sleeps.
  void unpark() noexcept {
    // [PARK-token] release: what the caller did before unpark() (publishing work)
    // is visible to the owner once it consumes the token with acquire. A swap, not
    // a CAS: we must leave kNotified whatever the state was, and the old value
    // tells us in the same step whether a futex wake is needed.
    if (state_.exchange(kNotified, std::memory_order::release) == kParked) wake_one_waiter();
  }

 private:
  static constexpr std::int32_t kEmpty = 0;
  static constexpr std::int32_t kParked = -1;
  static constexpr std::int32_t kNotified = 1;

  void wake_one_waiter() noexcept;  // futex wake; src/parker.cpp

  std::atomic<std::int32_t> state_{kEmpty};
};

}  // namespace stealpool::detail

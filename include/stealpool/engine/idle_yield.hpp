// stealpool/engine/idle_yield.hpp: an idle round's yield, timed. The mechanism
// beside core/tiered_idle.hpp's policy: the threaded workers yield through it;
// the simulator, whose time is virtual and which runs no other threads, never
// yields late and does not use it.
//
// A yield that returns after more than kLateYield gave the CPU to another
// thread for a while: the rest of the yield tier is skipped and the worker
// parks at its next idle round (TieredIdle::on_late_yield, where the reasons
// are). Uncontended, sched_yield returns in 0.3 us (at most 14 us in 20,000 on
// the project's 2-vCPU VM); handed to a busy process, a time slice later (4-5
// ms there). 50 us lies well between: a yield delayed by an interrupt now and
// then costs at most one early park, which the next task's wake-up undoes.
#pragma once

#include <chrono>
#include <thread>

#include "stealpool/engine/core/tiered_idle.hpp"

namespace stealpool::detail {

inline constexpr std::chrono::microseconds kLateYield{50};

// `yield` gives the CPU away (std::this_thread::yield; a test passes a stand-in).
template <class Yield>
void timed_idle_yield(TieredIdle& idle, Yield&& yield) noexcept {
  const auto start = std::chrono::steady_clock::now();
  yield();
  if (std::chrono::steady_clock::now() - start > kLateYield) idle.on_late_yield();
}

inline void idle_yield(TieredIdle& idle) noexcept {
  timed_idle_yield(idle, [] { std::this_thread::yield(); });
}

}  // namespace stealpool::detail

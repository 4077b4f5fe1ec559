// stealpool/detail/core/tiered_idle.hpp: the production idle policy: spin,
// then yield, then park with a growing timeout.
//
//   rounds 1 .. spin_iters                 spin (a pause hint per round)
//   next kYieldRounds rounds               yield the CPU
//   after that                             park, timeout = park_timeout
// A park that ends by timeout with no work doubles the next timeout, up to
// kMaxDoublings doublings; after that the worker parks with no timeout at all, so
// an idle pool costs no CPU. That is safe because wake-ups are never lost (see
// sleep/README.md); the timeout only bounds how stale a sleeper's view can be.
// A park ended by a wake-up (work arrived) starts the tiers again from spinning.
#pragma once

#include <chrono>
#include <cstdint>

#include "stealpool/detail/core/worker_step.hpp"
#include "stealpool/detail/sleep/parker.hpp"

namespace stealpool::detail {

class TieredIdle {
 public:
  static constexpr std::uint32_t kYieldRounds = 16;
  static constexpr std::uint32_t kYieldEvery = 16;
  static constexpr std::uint32_t kMaxDoublings = 6;

  TieredIdle(std::uint32_t spin_iters, std::chrono::nanoseconds park_timeout) noexcept
      : spin_iters_(spin_iters), park_timeout_(park_timeout) {}

  void on_work() noexcept {
    rounds_ = 0;
    timeouts_ = 0;
  }

  IdleAction on_idle() noexcept {
    if (rounds_ < spin_iters_) {
      ++rounds_;
      // Every kYieldEvery-th spin round yields instead: on an oversubscribed
      // machine a spinning worker must not hold the CPU a producer needs.
      return {rounds_ % kYieldEvery == 0 ? IdleKind::yield : IdleKind::spin};
    }
    if (rounds_ < std::uint64_t{spin_iters_} + kYieldRounds) {
      ++rounds_;
      return {IdleKind::yield};
    }
    return {IdleKind::park, current_timeout()};
  }

  // The caller reports how a park ended.
  void on_woken(bool notified) noexcept {
    if (notified) {
      on_work();
    } else if (timeouts_ <= kMaxDoublings) {
      ++timeouts_;
    }
  }

  std::chrono::nanoseconds current_timeout() const noexcept {
    // A timeout so long that doubling it would overflow is as good as forever.
    if (timeouts_ > kMaxDoublings || park_timeout_ > Parker::kForever / (std::int64_t{1} << kMaxDoublings))
      return Parker::kForever;
    return park_timeout_ * (std::int64_t{1} << timeouts_);
  }

 private:
  std::uint32_t spin_iters_;
  std::chrono::nanoseconds park_timeout_;
  std::uint64_t rounds_ = 0;  // 64-bit: spin_iters_ + kYieldRounds cannot wrap
  std::uint32_t timeouts_ = 0;
};

}  // namespace stealpool::detail

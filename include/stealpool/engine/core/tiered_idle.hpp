// stealpool/engine/core/tiered_idle.hpp: the production idle policy: poll and
// yield, then park with a growing timeout.
//
//   rounds 1 .. spin_iters      poll for work, then yield the CPU (sched_yield)
//   after that                  park, timeout = park_timeout
// A park that ends by timeout with no work doubles the next timeout, up to
// kMaxDoublings doublings; after that the worker parks with no timeout at all, so
// an idle pool costs no CPU. That is safe because wake-ups are never lost (see
// sleep/README.md); the timeout only bounds how stale a sleeper's view can be.
// A park ended by a wake-up (work arrived) starts again from the first tier.
//
// The timeout is the caller's to drop: a worker that finds every worker of its
// pool asleep parks with none (ExecutorWorker::sleep_on, sleep/README.md, "The
// last one to sleep parks with no timeout").
//
// A yield that came back late ends the yield tier at once (on_late_yield; the
// threaded workers time their yields, engine/idle_yield.hpp). It means other
// threads wanted this CPU: on a busy machine one sched_yield can hand the CPU
// to another process for its whole time slice (4-5 ms measured on the 2-vCPU
// VM), so spin_iters rounds would last not 0.1 ms but up to spin_iters slices;
// the worker would see new work a slice late each round; and, since a worker
// settles its share of the task count only when it parks (core/README.md,
// [LEDGER-bound]), join() would return that long after the last task: about
// 300 ms instead of 10-30 with two busy processes on 2 cores
// (docs/results-log.md, 2026-11-27, "Under load"). Parked, the worker leaves the CPU to the
// others until a wake-up.
//
// Why every spin round yields (rather than seed 000's pause-spinning with a
// yield every 16th round): sched_yield returns at once when no other thread wants
// the CPU, so on a machine with a core per worker it costs only a syscall per
// poll; but when a producer thread shares the cores with the workers, a worker
// that keeps the CPU between polls starves the very thread it waits for, and
// each extra empty poll pulls the producer's queue lines away. Measured on 2
// cores, 1 producer, 2 workers, 10^6 tasks one at a time: a yield every round
// 35 ms, every 2nd round 71 ms, every 16th 96 ms; no spawn micro-benchmark got
// slower (bench_spawn; docs in the commit that made this change).
#pragma once

#include <chrono>
#include <cstdint>

#include "stealpool/engine/core/worker_step.hpp"
#include "stealpool/platform/parker.hpp"

namespace stealpool::detail {

class TieredIdle {
 public:
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
      return {IdleKind::yield};
    }
    return {IdleKind::park, current_timeout()};
  }

  // The caller's yield returned late: other threads want the CPU. The rest of
  // the yield tier is skipped: the next on_idle() parks.
  void on_late_yield() noexcept { rounds_ = spin_iters_; }

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
  std::uint32_t rounds_ = 0;
  std::uint32_t timeouts_ = 0;
};

}  // namespace stealpool::detail

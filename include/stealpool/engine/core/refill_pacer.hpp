// stealpool/engine/core/refill_pacer.hpp: when a typed executor's worker should
// wait a moment before it takes from the injector again.
//
// A worker that outruns its producer takes a task or two at a time. Each take
// reads the injector's tail, the line the producer's next push must then take
// back: every push became a coherence miss, and the producer, not the workers,
// set the pace. Each worker keeps its own pacer: the lone worker of a
// 1-worker executor (its takes go to a private buffer) and each worker of a
// larger one (its takes go to its deque) alike. Once takes have come small
// (fewer than kSmallTake tasks) kStreak times in a row, the worker waits a
// moment (its caller decides how long: ExecutorWorker, kRefillWait) before the
// next take, so that the producer writes a run of pushes into lines it holds
// and one take gets them.
// A take that finds nothing, or a large one, ends the streak: a worker waking
// from idle never waits, and one that hands back each result before the next
// task comes (a ping-pong: its takes mostly alternate between one task and
// none) seldom does, only when its producer beats its next poll twice in a row.
// So does a take of one task after a wait: the producer made at most one push
// while the worker waited, so it is not outrunning the worker, and waiting
// again would only delay the next task (a ping-pong whose producer had beaten
// the poll twice stayed in the streak, waiting before every task, until a poll
// came up empty: 6-20% of 100,000 tasks waited).
// A wait that gathered one task or none also doubles the streak the next wait
// needs (up to kMaxStreak), until a wait gathers a run (kSmallTake tasks or
// more): a producer that is slow, not fast, such as a file walker feeding
// tasks of some microseconds each, then costs one wait per kMaxStreak small
// takes instead of one per three takes (stealscan -j2: 3% of its time).
// Measured in docs/results-log.md, "A lone worker's refill wait" and "Every
// worker's refill wait".
#pragma once

#include <cstddef>
#include <cstdint>

namespace stealpool::detail {

class RefillPacer {
 public:
  static constexpr std::size_t kSmallTake = 8;
  static constexpr std::uint32_t kStreak = 2;
  static constexpr std::uint32_t kMaxStreak = 64;

  // Before a take: wait first?
  bool should_wait() const noexcept { return small_takes_ >= streak_; }

  // After a take of `taken` tasks (0: it found none).
  void on_take(std::size_t taken) noexcept {
    const bool waited = should_wait();  // this take came after a wait
    if (waited) {
      if (taken >= kSmallTake) streak_ = kStreak;  // the wait paid
      else if (taken <= 1 && streak_ < kMaxStreak) streak_ *= 2;  // it did not: wait less often
    }
    if (taken == 0 || taken >= kSmallTake || (waited && taken == 1)) {
      small_takes_ = 0;
    } else if (!waited) {
      ++small_takes_;
    }
  }

  // The small takes in a row the next wait needs: kStreak to kMaxStreak.
  std::uint32_t streak_needed() const noexcept { return streak_; }

 private:
  std::uint32_t small_takes_ = 0;  // small takes in a row, up to streak_
  std::uint32_t streak_ = kStreak;
};

}  // namespace stealpool::detail

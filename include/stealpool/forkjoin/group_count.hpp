// stealpool/forkjoin/group_count.hpp: BasicGroupCount, how a TaskGroup counts
// its pending tasks and wakes its waiter ([TG-count], forkjoin/README.md,
// "TaskGroup").
//
// Two counts, one owner-private and one shared:
//
//   private_  the owner's: +1 per task the owner spawns, -1 per task the owner
//             finishes while it waits on the group. Written only by the owner
//             (relaxed load and store: a plain add, no read-modify-write); read
//             by a waiter on another thread.
//   word_     shared: (tasks spawned by others - tasks finished by others,
//             + what waiters folded in) << 16 | waiter. The count is signed
//             (two's complement in the high 48 bits): it goes below zero when
//             others finish the owner's tasks.
//   folded_   the waiter's: how much of private_ it has added into word_.
//
//   pending = count(word_) + private_ - folded_
//
// The owner is the pool worker that created the group; on the common recursive
// path (spawn children, wait, run them from the own deque) every spawn and
// every finish is private: no read-modify-write at all. Stolen tasks finish
// with one fetch_sub.
//
// A waiter that finds nothing to do folds: in one CAS it adds private_ -
// folded_ into word_ and records itself in the low bits; then word_'s count is
// everything pending it has seen, and others' finishes take it to zero. The one
// whose fetch_sub takes it from one to zero wakes the waiter. Spawns the owner
// makes while another thread waits are not folded yet: their finishes take the
// count below zero after it crossed zero, so the waiter is woken, finds them in
// private_, folds again and sleeps again. A waiter is never left asleep with
// work pending: after a fold the count is above zero and only others' finishes
// (one each) lower it, and everything it counts finishes.
//
// One waiter at a time, and successive waits ordered by happens-before (the
// same thread, or handed over by the program's own synchronisation): folded_ is
// the current waiter's.
#pragma once

#include <cstdint>

#include "stealpool/platform/sync.hpp"

namespace stealpool::detail {

template <class Sync = StdSync>
class BasicGroupCount {
 public:
  // The waiter field: 0 none, a worker id + 1, or kExternal (a thread blocked
  // on a condition variable).
  static constexpr std::uint64_t kOne = std::uint64_t{1} << 16;
  static constexpr std::uint64_t kWaiterMask = kOne - 1;
  static constexpr std::uint64_t kExternal = kWaiterMask;

  // --- the owner's thread only ------------------------------------------------
  // relaxed load and store: private_ has one writer; a waiter on another thread
  // reads it after its acquire load of word_ ([TG-count], done()).
  void owner_spawned() noexcept { add_private(1); }
  // Only while the owner waits on the group: nobody else needs waking then.
  void owner_finished() noexcept { add_private(-1); }

  // --- any other thread -------------------------------------------------------
  // relaxed: the job is published by the queue push that follows (a release);
  // the count only has to be up before the job can finish.
  void shared_spawned() noexcept { word_.fetch_add(kOne, std::memory_order::relaxed); }

  // A task finished by a thread other than the waiting owner, or a spawn taken
  // back because its job could not be queued (whoever spawned it: a waiter may
  // have folded the owner's private unit into the word). Returns the waiter
  // to wake (0: none). [TG-count] acq_rel: the release publishes the task's
  // effects to the waiter's acquire; the RMW order tells the finisher that takes
  // the count from one to zero who waits. The last touch of the group: the
  // waiter may destroy it as soon as the count is zero.
  std::uint64_t shared_finished() noexcept {
    const std::uint64_t old = word_.fetch_sub(kOne, std::memory_order::acq_rel);
    return count_of(old) == 1 ? (old & kWaiterMask) : 0;
  }

  // --- the waiter (one at a time) ---------------------------------------------
  // True if nothing is pending. [TG-count] word_ first, with acquire, then
  // private_: every finish the load sees happens-before the read of private_,
  // so private_ then holds the spawn of every task whose finish was counted (a
  // task spawned by the owner, finished elsewhere), and no false zero is
  // possible (the other order can see the finish and miss the spawn).
  bool done() const noexcept {
    const std::uint64_t word = word_.load(std::memory_order::acquire);
    return pending(word, private_.load(std::memory_order::relaxed)) == 0;
  }

  // Folds private_ into word_ and records `who` as the waiter, in one CAS.
  // False (and nothing recorded) if nothing is pending: no need to sleep.
  bool announce(std::uint64_t who) noexcept {
    for (;;) {
      // acquire and the order of the two loads: as in done().
      const std::uint64_t cur = word_.load(std::memory_order::acquire);
      const std::int64_t mine = private_.load(std::memory_order::relaxed);
      const std::int64_t total = pending(cur, mine);
      if (total == 0) return false;
      const std::uint64_t next = (static_cast<std::uint64_t>(total) << 16) | who;
      std::uint64_t expected = cur;
      // acq_rel: the finish that wakes us is ordered after it, and it reads the
      // value the finishes are counted against.
      if (word_.compare_exchange_strong(expected, next, std::memory_order::acq_rel, std::memory_order::relaxed)) {
        folded_ = mine;
        return true;
      }
    }
  }
  // The waiter is awake again. acq_rel: ordered with the finishes' RMWs.
  void clear_waiter() noexcept { word_.fetch_and(~kWaiterMask, std::memory_order::acq_rel); }

 private:
  static std::int64_t count_of(std::uint64_t word) noexcept {
    return static_cast<std::int64_t>(word) >> 16;  // arithmetic: the count is signed
  }
  // From a word and a private count read in that order (see done()).
  std::int64_t pending(std::uint64_t word, std::int64_t mine) const noexcept {
    return count_of(word) + mine - folded_;
  }
  void add_private(std::int64_t d) noexcept {
    private_.store(private_.load(std::memory_order::relaxed) + d, std::memory_order::relaxed);
  }

  typename Sync::template atomic<std::uint64_t> word_{0};      // shared: others' spawns and finishes, the waiter
  typename Sync::template atomic<std::int64_t> private_{0};    // the owner writes, a waiter reads
  std::int64_t folded_ = 0;                                    // the current waiter's
};

using GroupCount = BasicGroupCount<>;

}  // namespace stealpool::detail

// stealpool/engine/sleep/sleep_registry.hpp: who is asleep, and the protocol
// that guarantees work published while a worker falls asleep is never stranded.
//
// Shared state: one bit per sleeping worker (the mask), the number of set bits
// (`sleeping_`), so that a producer with nothing to wake pays one load, and the
// latest worker to announce (`latest_`), where a wake-up looks first.
//
//   sleeper                                   producer (any thread)
//   announce(w): set bit w, sleeping_ + 1     publish work (queue push)
//     fence seq_cst       [SLEEP-dekker]      fence seq_cst        [SLEEP-dekker]
//   re-check every queue; if work:            if sleeping_ > 0: claim a set bit,
//     cancel(w) and run it                      sleeping_ - 1, unpark its owner
//   else park; on waking cancel(w)
//
// The two fences are in one total order: if the sleeper's comes first, the
// producer's load sees sleeping_ > 0 and wakes someone; if the producer's comes
// first, the sleeper's re-check sees the work. Either way no work is stranded
// while every worker sleeps, with no timeout needed (sleep/README.md, "Sleep").
// A producer whose publishing step is a seq_cst RMW the re-check reads with a
// seq_cst load (the injector's tail) skips its fence: notify_after_seq_cst_rmw.
//
// A bit is cleared by exactly one thread (fetch_and tells who): the waker that
// claims it, or the sleeper cancelling. Whoever clears it decrements sleeping_.
// A sleeper that loses that race just gets a spare token on its Parker, which makes
// its next park() return at once: a spurious wake-up, never a lost one.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "stealpool/platform/cache_line.hpp"
#include "stealpool/platform/parker.hpp"
#include "stealpool/platform/sync.hpp"

namespace stealpool::detail {

template <class Sync = StdSync, class ParkerT = Parker>
class SleepRegistry {
  template <class U>
  using Atomic = typename Sync::template atomic<U>;

 public:
  explicit SleepRegistry(std::size_t workers)
      : workers_(workers),
        mask_(new Atomic<std::uint64_t>[(workers + 63) / 64]),
        words_((workers + 63) / 64),
        parkers_(new Padded<ParkerT>[workers]) {
    for (std::size_t i = 0; i < words_; ++i) mask_[i].store(0, std::memory_order::relaxed);  // not shared yet
  }

  ParkerT& parker(std::size_t w) noexcept { return parkers_[w].value; }

  // Sleeper w, before its final re-check of the queues. Returns how many
  // workers are announced now, w included ([SLEEP-last] uses it).
  std::size_t announce(std::size_t w) noexcept {
    // relaxed: a hint of where wake() starts (the latest sleeper first); any
    // value is correct. Stored only when it changes: a worker that sleeps
    // again, as the one woken for each of a trickle's tasks does, writes nothing.
    if (latest_.value.load(std::memory_order::relaxed) != w) latest_.value.store(w, std::memory_order::relaxed);
    mask_[w / 64].fetch_or(bit(w), std::memory_order::seq_cst);  // seen by wake() via sleeping_
    // seq_cst RMW (a release): a waker that reads the new count with acquire sees the bit.
    const std::size_t asleep = sleeping_.value.fetch_add(1, std::memory_order::seq_cst) + 1;
    Sync::fence(std::memory_order::seq_cst);  // [SLEEP-dekker] before the re-check loads
    return asleep;
  }

  // Sleeper w, after finding work in its re-check or after waking. Returns true if
  // it cleared its own bit; false if a waker claimed it first (a token is coming).
  bool cancel(std::size_t w) noexcept {
    // acq_rel: decides, together with wake()'s fetch_and, who cleared the bit.
    const std::uint64_t prev = mask_[w / 64].fetch_and(~bit(w), std::memory_order::acq_rel);
    if ((prev & bit(w)) == 0) return false;
    sleeping_.value.fetch_sub(1, std::memory_order::relaxed);  // a count only; the bit decides
    return true;
  }

  // Producer, after publishing work for up to `n` workers. Wakes at most n sleepers,
  // the latest to announce first. Returns how many it woke.
  std::size_t notify(std::size_t n) noexcept {
    Sync::fence(std::memory_order::seq_cst);  // [SLEEP-dekker] after the publishing store
    // acquire: sees the mask bits set before the count we read.
    if (n == 0 || sleeping_.value.load(std::memory_order::acquire) == 0) return 0;
    return wake(n);
  }

  // Producer whose publishing step was a seq_cst read-modify-write that the
  // sleepers' re-check reads with a seq_cst load (the injector's [INJ-claim] CAS
  // on its tail, read by Injector::empty_hint()). Then this load of the count
  // and that pair are all seq_cst operations, a Dekker pair in their one total
  // order without a fence (sleep/README.md, "Publishing with a seq_cst RMW").
  // notify()'s fence would make the producer wait for its last store (the slot
  // it has just written, whose line the polling consumer holds) to drain.
  std::size_t notify_after_seq_cst_rmw(std::size_t n) noexcept {
    // [SLEEP-dekker] seq_cst, as above; also an acquire (the mask bits).
    if (n == 0 || sleeping_.value.load(std::memory_order::seq_cst) == 0) return 0;
    return wake(n);
  }

  // Unparks every worker, asleep or not (each gets a token): for termination.
  void unpark_all() noexcept {
    for (std::size_t w = 0; w < workers_; ++w) parkers_[w].value.unpark();
  }

  std::size_t sleeping_hint() const noexcept {
    return sleeping_.value.load(std::memory_order::relaxed);  // a snapshot: metrics, tests, the eager rules
  }

 private:
  static constexpr std::uint64_t bit(std::size_t w) noexcept { return std::uint64_t{1} << (w % 64); }

  // Two passes: the first starts at the latest sleeper to announce and skips the
  // bits below it in the first word; the second visits every word whole, so a
  // sleeper whose bit the first pass skipped is still found. Each claim is a
  // fetch_and, so visiting a bit twice cannot wake twice.
  // The latest sleeper first: its thread parked last, so it has been idle the
  // shortest time (oneTBB's thread server, too, wakes from a stack of
  // sleepers). A round-robin cursor, as before, woke the longest-idle worker
  // of a pool that wakes one at a time.
  std::size_t wake(std::size_t n) noexcept {
    std::size_t woken = 0;
    // relaxed: a hint set by announce(); any value in range is correct.
    const std::size_t start = latest_.value.load(std::memory_order::relaxed);
    for (int pass = 0; pass < 2; ++pass) {
      for (std::size_t scanned = 0; scanned < words_; ++scanned) {
        const std::size_t word = (start / 64 + scanned) % words_;
        std::uint64_t seen = mask_[word].load(std::memory_order::acquire);  // [SLEEP-dekker]
        if (pass == 0 && scanned == 0) seen &= ~std::uint64_t{0} << (start % 64);
        while (seen != 0) {
          const std::size_t w = word * 64 + static_cast<std::size_t>(std::countr_zero(seen));
          seen &= seen - 1;
          // acq_rel: pairs with cancel(); exactly one of us clears the bit.
          if ((mask_[word].fetch_and(~bit(w), std::memory_order::acq_rel) & bit(w)) == 0) continue;
          sleeping_.value.fetch_sub(1, std::memory_order::relaxed);  // a count only
          parkers_[w].value.unpark();
          if (++woken == n) return woken;
        }
      }
    }
    return woken;
  }

  const std::size_t workers_;
  std::unique_ptr<Atomic<std::uint64_t>[]> mask_;  // shared: sleepers and wakers RMW
  const std::size_t words_;
  std::unique_ptr<Padded<ParkerT>[]> parkers_;
  Padded<Atomic<std::size_t>> sleeping_{};  // shared: read by every producer
  Padded<Atomic<std::size_t>> latest_{};    // shared: the latest sleeper to announce (< workers_)
};

}  // namespace stealpool::detail

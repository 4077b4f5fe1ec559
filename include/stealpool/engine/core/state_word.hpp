// stealpool/engine/core/state_word.hpp: the combined atomic state word of an
// executor: the "accepting" gate bit and the in-flight count in one integer, so
// that "is the gate open?" and "count one more task" are one atomic step.
//
//   bit 0        accepting (1 = open to external spawns)
//   bits 1..     in-flight count, in units of kCountUnit = 2
//
// The count is an *upper bound* on the tasks not yet finished: workers keep a
// private ledger (core/ledger.hpp) of completions and pre-reserved spawn credits
// and settle it with one RMW before they sleep, instead of one RMW per task. Since
// the word never undercounts, count == 0 with the gate closed still means "all
// done", exactly. core/README.md, "State word", has the protocol and proof.
//
// `Word` is a template parameter so that tests can use a deliberately narrow
// integer and check that overflow is refused rather than wrapped.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "stealpool/platform/fatal.hpp"
#include "stealpool/platform/sync.hpp"

namespace stealpool::detail {

// What close() or settle() saw: whether this call is the one that made the
// executor terminal (count 0, gate closed). Exactly one call ever sees true.
enum class Terminal : bool { no = false, yes = true };

// What a settle() left: units still counted (busy); none, with the gate open
// (quiescent: every accepted task has finished and no worker holds a unit, until
// the next spawn); none, with the gate closed (terminal: Terminal::yes).
enum class Settled { busy, quiescent, terminal };

template <class Sync = StdSync, class Word = std::uint64_t>
class StateWord {
  static_assert(std::is_unsigned_v<Word>);

 public:
  static constexpr Word kAcceptingBit = 1;
  static constexpr Word kCountUnit = 2;
  static constexpr Word kMaxCount = std::numeric_limits<Word>::max() / kCountUnit;

  static constexpr Word count_of(Word state) noexcept { return state / kCountUnit; }
  static constexpr bool accepting_of(Word state) noexcept { return (state & kAcceptingBit) != 0; }

  StateWord() noexcept : state_(kAcceptingBit) {}

  // External spawn of n tasks: succeeds only while the gate is open. The CAS makes
  // "gate open" and "count += n" one step, so close() cannot slip between them
  // (the TOCTOU race of a separate flag and counter). Throws std::length_error if
  // the count would overflow.
  bool try_acquire_external(Word n) {
    Word s = state_.load(std::memory_order::relaxed);  // a first guess; the CAS checks it
    do {
      if (!accepting_of(s)) return false;
      check_room(s, n);
      // [STATE-gate] acq_rel on success: ordered against close()'s RMW; relaxed on
      // failure: we only retry.
    } while (!state_.compare_exchange_weak(s, s + n * kCountUnit, std::memory_order::acq_rel,
                                           std::memory_order::relaxed));
    return true;
  }

  // Internal spawn credit: n more in flight, gate or not. Only a thread that is
  // itself running a counted task calls this, so the count is >= 1 and cannot be
  // terminal. Overflow is a broken invariant: terminate loudly.
  void add_internal(Word n) noexcept {
    // relaxed: the caller's own unsettled task keeps count >= 1 throughout, so no
    // thread can decide "terminal" from a value this increment would change.
    const Word prev = state_.fetch_add(n * kCountUnit, std::memory_order::relaxed);
    if (count_of(prev) > kMaxCount - n) overflow_abort();
  }

  // Settles n units (finished tasks and unused credits) and says what that left.
  // Exactly one call ever returns Settled::terminal: the one that takes the count
  // to 0 while the gate is closed.
  Settled settle_reporting(Word n) noexcept {
    // [STATE-settle] acq_rel: release publishes the finished tasks' effects to the
    // thread that sees the terminal (or quiescent) state; acquire, if that is us,
    // sees theirs.
    const Word prev = state_.fetch_sub(n * kCountUnit, std::memory_order::acq_rel);
    if (count_of(prev) < n) underflow_abort();
    if (count_of(prev) != n) return Settled::busy;
    return accepting_of(prev) ? Settled::quiescent : Settled::terminal;
  }
  // settle_reporting() for callers that only care about the end.
  Terminal settle(Word n) noexcept {
    return settle_reporting(n) == Settled::terminal ? Terminal::yes : Terminal::no;
  }

  // Closes the gate. Terminal::yes iff the count was already 0 and this call closed
  // it: then no settle() can ever return yes.
  Terminal close() noexcept {
    // [STATE-gate] acq_rel: pairs with try_acquire_external and settle on the word.
    const Word prev = state_.fetch_and(static_cast<Word>(~kAcceptingBit), std::memory_order::acq_rel);
    return (accepting_of(prev) && count_of(prev) == 0) ? Terminal::yes : Terminal::no;
  }

  bool accepting() const noexcept {
    return accepting_of(state_.load(std::memory_order::acquire));  // a snapshot
  }
  Word in_flight_upper_bound() const noexcept {
    return count_of(state_.load(std::memory_order::acquire));  // a snapshot
  }
  Word raw() const noexcept { return state_.load(std::memory_order::acquire); }

 private:
  static void check_room(Word state, Word n) {
    if (n > kMaxCount || count_of(state) > kMaxCount - n)
      throw std::length_error("stealpool: in-flight task count would overflow (count " +
                              std::to_string(static_cast<std::uint64_t>(count_of(state))) + " + " +
                              std::to_string(static_cast<std::uint64_t>(n)) + " > " +
                              std::to_string(static_cast<std::uint64_t>(kMaxCount)) + ")");
  }
  [[noreturn]] static void overflow_abort() noexcept;
  [[noreturn]] static void underflow_abort() noexcept;

  typename Sync::template atomic<Word> state_;
};

template <class Sync, class Word>
void StateWord<Sync, Word>::overflow_abort() noexcept {
  fatal("stealpool: in-flight count overflowed by internal spawns");
}
template <class Sync, class Word>
void StateWord<Sync, Word>::underflow_abort() noexcept {
  fatal("stealpool: in-flight count would go negative (a task settled twice)");
}

}  // namespace stealpool::detail

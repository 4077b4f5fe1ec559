// stealpool/engine/core/ledger.hpp: a worker's private account with the shared
// state word, so that neither a spawn nor a completion costs a shared RMW.
//
//   owed     tasks this worker finished whose unit is still in the state word
//   credits  units this worker reserved in the state word and has not used yet
//
// Invariant [LEDGER-bound]: state.count == in_flight + sum over workers of
// (owed + credits). Hence count >= in_flight always, and count == 0 implies nothing
// is in flight and every ledger is settled.
//   complete():   in_flight - 1, owed + 1                 (sum unchanged)
//   spawn():      in_flight + 1, and owed - 1 or credits - 1, or, with both at 0,
//                 count + kCreditChunk and credits + kCreditChunk - 1
//   settle():     count - (owed + credits), both to 0     (sum unchanged)
// A worker must settle before it sleeps or exits: a sleeping worker holding units
// would keep the count above 0 forever and join() would never return.
#pragma once

#include <cstdint>

#include "stealpool/engine/core/state_word.hpp"

namespace stealpool::detail {

template <class Sync = StdSync, class Word = std::uint64_t>
class Ledger {
 public:
  static constexpr Word kCreditChunk = 64;

  explicit Ledger(StateWord<Sync, Word>& state) noexcept : state_(&state) {}

  // A task this worker ran has finished (normally or by throwing).
  void complete() noexcept { ++owed_; }

  // This worker, while running a counted task, creates one more task.
  void spawn() noexcept {
    if (owed_ > 0) {
      --owed_;  // the child inherits a finished task's unit
    } else if (credits_ > 0) {
      --credits_;
    } else {
      state_->add_internal(kCreditChunk);
      credits_ = kCreditChunk - 1;
    }
  }

  // Returns every unit this worker holds and says what that left (see
  // StateWord::settle_reporting); busy if it held none.
  Settled settle_reporting() noexcept {
    const Word n = owed_ + credits_;
    owed_ = 0;
    credits_ = 0;
    if (n == 0) return Settled::busy;
    return state_->settle_reporting(n);
  }
  // Terminal::yes if the settle made the executor terminal.
  Terminal settle() noexcept { return settle_reporting() == Settled::terminal ? Terminal::yes : Terminal::no; }

  Word held() const noexcept { return owed_ + credits_; }

 private:
  StateWord<Sync, Word>* state_;
  Word owed_ = 0;
  Word credits_ = 0;
};

}  // namespace stealpool::detail

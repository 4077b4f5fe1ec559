// stealpool/engine/core/take_half.hpp: moving spare tasks out of a running
// executor (Executor::take_half), written once for the threads and for the Relacy
// model (tests/model/take_half_model.cpp). The protocol, [TAKE-half], is in
// core/README.md, "Taking tasks out".
#pragma once

#include <cstddef>
#include <utility>

#include "stealpool/engine/core/state_word.hpp"
#include "stealpool/queue/steal.hpp"

namespace stealpool::detail {

struct TakeResult {
  std::size_t taken = 0;
  Terminal terminal = Terminal::no;  // whether this take's settle ended the executor
};

// How many times a steal that lost a race (retry) is tried again on one deque
// before the take moves on: a lost race means a sibling or the owner took the
// item, and the deque is shrinking under us.
inline constexpr int kTakeRetries = 4;

// Takes about half of each deque's queued tasks, oldest first (the top, where a
// tree search keeps its largest subtrees), at most `max` in all, hands each to
// sink(Item&&) and then settles their units on `state` in one RMW. sink must not
// throw: the tasks are already out of their deques when it runs.
//
// [TAKE-half]: every queued task holds one unit of the state word's count
// ([LEDGER-bound]). A stolen task leaves the executor; its unit is settled only
// after sink has it, so the count never drops below the tasks still inside, and
// the settle that takes the count to 0 with the gate closed is the terminal one,
// as for a worker's settle ([STATE-settle] acq_rel: the sink's writes happen
// before whatever the terminal thread does next). Any thread may call it: each
// task is claimed by the deque's own steal(), exactly once against the owner's pop
// and the other thieves ([CL-steal-fence]).
// Item: the deques' item type; Deques: a range of pointers (raw or smart) to them.
template <class Item, class Deques, class Sync, class Word, class Sink>
TakeResult take_half(Deques& deques, StateWord<Sync, Word>& state, std::size_t max, Sink&& sink) noexcept {
  static_assert(noexcept(sink(std::declval<Item&&>())),
                "take_half: the sink runs after the tasks left their deques and must not throw");
  TakeResult r;
  for (auto& deque : deques) {
    if (r.taken >= max) break;
    // Half of what this deque holds now, rounded up: one queued task behind a
    // running one is spare too. size_hint() is a snapshot; the steals decide.
    std::size_t want = (deque->size_hint() + 1) / 2;
    if (want > max - r.taken) want = max - r.taken;
    for (int retries = 0; want > 0 && retries <= kTakeRetries;) {
      Steal<Item> s = deque->steal();
      if (s.is_empty()) break;
      if (s.is_retry()) {
        ++retries;
        continue;
      }
      sink(std::move(s).value());
      ++r.taken;
      --want;
    }
  }
  if (r.taken != 0) r.terminal = state.settle(r.taken);  // [TAKE-half]: after the sink has them
  return r;
}

}  // namespace stealpool::detail

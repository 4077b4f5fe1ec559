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
  Settled settled = Settled::busy;  // what this take's settle left (terminal: it ended the run)
};

// How many times a steal that lost a race (retry) is tried again on one deque
// before the take moves on: a lost race means a sibling or the owner took the
// item, and the deque is shrinking under us.
inline constexpr int kTakeRetries = 4;

// Takes from one queue (an injector or a deque: anything with steal()) up to
// `want` tasks, oldest first, handing each to sink. Returns how many.
template <class Item, class Queue, class Sink>
std::size_t take_from(Queue& queue, std::size_t want, Sink& sink) noexcept {
  std::size_t taken = 0;
  for (int retries = 0; taken < want && retries <= kTakeRetries;) {
    Steal<Item> s = queue.steal();
    if (s.is_empty()) break;
    if (s.is_retry()) {
      ++retries;
      continue;
    }
    sink(std::move(s).value());
    ++taken;
  }
  return taken;
}

// What the injector (nullptr: none) and the deques hold now: a snapshot of
// their size_hint()s, for a balancer's decisions, not a count.
template <class Injector, class Deques>
std::size_t queued_hint(const Injector* injector, const Deques& deques) noexcept {
  std::size_t n = injector != nullptr ? injector->size_hint() : 0;
  for (const auto& deque : deques) n += deque->size_hint();
  return n;
}

// How many tasks a take of half asks for: half of queued_hint(), rounded down
// (a lone queued task stays: an idle worker is about to run it), at most
// `max`. The steals decide.
template <class Injector, class Deques>
std::size_t half_of_spare(const Injector* injector, const Deques& deques, std::size_t max) noexcept {
  const std::size_t n = queued_hint(injector, deques);
  return n / 2 < max ? n / 2 : max;
}

// Takes up to `want` tasks (half_of_spare()) from the injector (nullptr: none)
// and the deques, oldest first: the first given in the injector, then the top
// of each deque, where a tree search keeps its largest subtrees; from each
// queue at most half of it, rounded up, so the take is spread over the queues.
// Hands each task to sink(Item&&), then settles their units on `state` in one
// RMW. sink must not throw: the tasks are already out of their queues when it
// runs.
//
// [TAKE-half]: every queued task holds one unit of the state word's count
// ([LEDGER-bound]). A taken task leaves the executor; its unit is settled only
// after sink has it, so the count never drops below the tasks still inside, and
// the settle that takes the count to 0 with the gate closed is the terminal one,
// as for a worker's settle ([STATE-settle] acq_rel: the sink's writes happen
// before whatever the terminal thread does next). Any thread may call it: each
// task is claimed by its queue's own steal(), exactly once against the owner's
// pop and the other consumers ([CL-steal-fence], [INJ-claim]).
// Item: the queues' item type; Deques: a range of pointers (raw or smart) to them.
template <class Item, class Injector, class Deques, class Sync, class Word, class Sink>
TakeResult take_spread(Injector* injector, Deques& deques, StateWord<Sync, Word>& state, std::size_t want,
                       Sink&& sink) noexcept {
  static_assert(noexcept(sink(std::declval<Item&&>())),
                "take_half: the sink runs after the tasks left their queues and must not throw");
  TakeResult r;
  auto from = [&](auto& queue) {
    std::size_t share = (queue.size_hint() + 1) / 2;
    if (share > want - r.taken) share = want - r.taken;
    r.taken += take_from<Item>(queue, share, sink);
  };
  if (injector != nullptr) from(*injector);
  for (auto& deque : deques) {
    if (r.taken >= want) break;
    from(*deque);
  }
  if (r.taken != 0) r.settled = state.settle_reporting(r.taken);  // [TAKE-half]: after the sink has them
  return r;
}

// Takes half of the spare tasks, at most `max`: take_spread() of
// half_of_spare(). (Executor::take_half calls the two itself, to size its
// output once from the same snapshot.)
template <class Item, class Injector, class Deques, class Sync, class Word, class Sink>
TakeResult take_half(Injector* injector, Deques& deques, StateWord<Sync, Word>& state, std::size_t max,
                     Sink&& sink) noexcept {
  return take_spread<Item>(injector, deques, state, half_of_spare(injector, deques, max), std::forward<Sink>(sink));
}

}  // namespace stealpool::detail

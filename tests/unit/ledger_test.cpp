// detail::Ledger: a worker's private account with the state word. Sequential
// checks that every transition keeps [LEDGER-bound]
//   state.count == in_flight + sum over ledgers of held()
// (so count >= in_flight), and that settling reports termination exactly once.
#include <gtest/gtest.h>

#include <cstdint>

#include "stealpool/engine/core/ledger.hpp"
#include "stealpool/engine/core/state_word.hpp"
#include "stealpool/rng.hpp"

namespace spd = stealpool::detail;
using spd::Terminal;

namespace {

using State = spd::StateWord<>;
using Ledger = spd::Ledger<>;

TEST(Ledger, CompletionIsOwedNotSettledUntilSettle) {
  State s;
  Ledger l(s);
  ASSERT_TRUE(s.try_acquire_external(1));
  l.complete();  // in_flight 0, owed 1
  EXPECT_EQ(l.held(), 1u);
  EXPECT_EQ(s.in_flight_upper_bound(), 1u) << "count must stay >= in_flight + held";
  EXPECT_EQ(l.settle(), Terminal::no);  // gate open
  EXPECT_EQ(l.held(), 0u);
  EXPECT_EQ(s.in_flight_upper_bound(), 0u);
}

// settle_reporting: quiescent when the count reaches 0 with the gate open (the
// hook of ExecutorConfig::on_quiescent), terminal when it reaches 0 closed, busy
// while another ledger holds a unit or when nothing was held.
TEST(Ledger, SettleReportsQuiescentWhenTheCountReachesZeroWithTheGateOpen) {
  State s;
  Ledger a(s);
  Ledger b(s);
  ASSERT_TRUE(s.try_acquire_external(2));
  a.complete();
  b.complete();
  EXPECT_EQ(a.settle_reporting(), spd::Settled::busy) << "b still holds a unit";
  EXPECT_EQ(b.settle_reporting(), spd::Settled::quiescent);
  EXPECT_EQ(b.settle_reporting(), spd::Settled::busy) << "an empty settle reports nothing";
  ASSERT_TRUE(s.try_acquire_external(1));
  a.complete();
  EXPECT_EQ(s.close(), Terminal::no);
  EXPECT_EQ(a.settle_reporting(), spd::Settled::terminal);
}

TEST(Ledger, ChildInheritsAFinishedTasksUnitWithoutTouchingTheWord) {
  State s;
  Ledger l(s);
  ASSERT_TRUE(s.try_acquire_external(1));
  l.complete();
  const auto before = s.raw();
  l.spawn();  // in_flight 1, owed 0
  EXPECT_EQ(s.raw(), before);
  EXPECT_EQ(l.held(), 0u);
}

TEST(Ledger, SpawnWithNothingHeldReservesAChunkOfCredits) {
  State s;
  Ledger l(s);
  ASSERT_TRUE(s.try_acquire_external(1));  // the running parent
  l.spawn();
  EXPECT_EQ(s.in_flight_upper_bound(), 1u + Ledger::kCreditChunk);
  EXPECT_EQ(l.held(), Ledger::kCreditChunk - 1);
  for (std::uint64_t i = 1; i < Ledger::kCreditChunk; ++i) l.spawn();  // uses credits only
  EXPECT_EQ(s.in_flight_upper_bound(), 1u + Ledger::kCreditChunk);
  EXPECT_EQ(l.held(), 0u);
  l.spawn();  // credits exhausted: a second chunk
  EXPECT_EQ(s.in_flight_upper_bound(), 1u + 2 * Ledger::kCreditChunk);
}

TEST(Ledger, SettleWithNothingHeldLeavesTheWordAlone) {
  State s;
  Ledger l(s);
  ASSERT_EQ(s.close(), Terminal::yes);
  const auto before = s.raw();
  EXPECT_EQ(l.settle(), Terminal::no) << "an empty settle must never re-signal termination";
  EXPECT_EQ(s.raw(), before);
}

TEST(Ledger, UnusedCreditsAreReturnedAndTheLastSettleIsTerminal) {
  State s;
  Ledger a(s), b(s);
  ASSERT_TRUE(s.try_acquire_external(1));
  a.spawn();     // parent on a creates a child: a holds 63 credits
  a.complete();  // the parent finishes on a: owed 1
  b.complete();  // the child finishes on b (stolen): owed 1
  EXPECT_EQ(s.close(), Terminal::no);
  EXPECT_EQ(a.settle(), Terminal::no) << "b still holds a unit";
  EXPECT_EQ(b.settle(), Terminal::yes);
  EXPECT_EQ(s.in_flight_upper_bound(), 0u);
  EXPECT_EQ(a.settle(), Terminal::no);
  EXPECT_EQ(b.settle(), Terminal::no);
}

// A random walk over the transitions of three ledgers, checking the invariant
// after every step and that termination is signalled exactly once at the end.
TEST(Ledger, RandomWalkKeepsTheBoundAndTerminatesOnce) {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    stealpool::XorShift64 rng(seed);
    State s;
    Ledger ledgers[3] = {Ledger(s), Ledger(s), Ledger(s)};
    std::uint64_t in_flight = 0;   // accepted, not yet complete()d
    std::uint64_t running[3] = {};  // tasks each worker may spawn from / complete
    std::uint64_t queued = 0;       // in flight, not running anywhere
    int terminals = 0;
    bool closed = false;
    auto check = [&] {
      std::uint64_t held = 0;
      for (auto& l : ledgers) held += l.held();
      ASSERT_EQ(s.in_flight_upper_bound(), in_flight + held) << "seed " << seed;
    };
    for (int step = 0; step < 400; ++step) {
      const std::size_t w = rng.next_below(3);
      switch (rng.next_below(closed ? 5 : 7)) {
        case 0:  // a worker takes a queued task
          if (queued > 0) --queued, ++running[w];
          break;
        case 1:  // it spawns a child
          if (running[w] > 0) ledgers[w].spawn(), ++in_flight, ++queued;
          break;
        case 2:  // it finishes one
          if (running[w] > 0) ledgers[w].complete(), --running[w], --in_flight;
          break;
        case 3:
        case 4:  // it goes to sleep
          if (running[w] == 0) terminals += ledgers[w].settle() == Terminal::yes;
          break;
        case 5:  // an external spawn
          if (s.try_acquire_external(1)) ++in_flight, ++queued;
          break;
        case 6:  // join() starts
          closed = true;
          terminals += s.close() == Terminal::yes;
          break;
      }
      check();
      if (HasFatalFailure()) return;
    }
    // Drain: run everything left, close, settle everyone.
    if (!closed) terminals += s.close() == Terminal::yes;
    while (queued > 0) --queued, ++running[0];
    for (int w = 0; w < 3; ++w)
      while (running[w] > 0) ledgers[w].complete(), --running[w], --in_flight;
    for (auto& l : ledgers) terminals += l.settle() == Terminal::yes;
    check();
    ASSERT_EQ(in_flight, 0u);
    ASSERT_EQ(s.raw(), 0u) << "seed " << seed;
    ASSERT_EQ(terminals, 1) << "seed " << seed;
  }
}

}  // namespace

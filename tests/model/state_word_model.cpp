// tests/model/state_word_model.cpp: Relacy model checks of the real
// stealpool::detail::StateWord<Sync> (engine/core/state_word.hpp), instantiated with
// the Relacy policy of relacy_sync.hpp. See engine/core/README.md, "State word".
//
// The seed's four races (each under the random and the context-bound scheduler):
//   spawn_vs_close        a spawn that succeeded is counted and its settle is the
//                         terminal one; a refused spawn leaves close() terminal;
//                         after close no spawn succeeds
//   complete_vs_close     one task in flight: settle vs close, exactly one
//                         Terminal::yes
//   concurrent_spawns     three spawns (1, 1, 2): no count lost
//   spawn_complete_close  three-way: terminal exactly once, word ends at 0
// and one more, for the orders rather than the atomicity:
//   settle_publishes      [STATE-settle]: a task's write (plain memory, which
//                         Relacy race-checks) is visible to whoever sees terminal
//
// Mutants (must be reported), through the policy:
//   split RMW             every RMW a separate load and store: the flag+counter
//                         TOCTOU of seed 000, as a lost count / double terminal
//   relaxed RMW           every order relaxed: the terminal thread reads the task's
//                         write without happens-before (a data race)
#include <cstdint>

#include "stealpool/engine/core/state_word.hpp"

// Relacy last: after every standard and stealpool header.
#include "model_common.hpp"
#include "model_main.hpp"

namespace {

using stealpool::detail::StateWord;
using stealpool::detail::Terminal;
using stealpool::model::RelacyAtomic;
using stealpool::model::RelacySync;
using stealpool::model::RelaxedSync;

// --- mutant policies -------------------------------------------------------------

// Every read-modify-write done as a load and a later store: another thread can run
// between them (a non-atomic RMW). Loads and stores keep their orders.
template <class U>
class SplitRmwAtomic : public RelacyAtomic<U> {
  using Base = RelacyAtomic<U>;
  using Src = stealpool::model::SourceLocation;
  static std::memory_order load_order(std::memory_order o) {
    return o == std::memory_order::release ? std::memory_order::relaxed
           : o == std::memory_order::acq_rel ? std::memory_order::acquire
                                             : o;
  }
  static std::memory_order store_order(std::memory_order o) {
    return o == std::memory_order::acquire ? std::memory_order::relaxed
           : o == std::memory_order::acq_rel ? std::memory_order::release
                                             : o;
  }
  template <class F>
  U rmw(F f, std::memory_order o, const Src& loc) {
    const U prev = Base::load(load_order(o), loc);
    Base::store(f(prev), store_order(o), loc);
    return prev;
  }

 public:
  using Base::Base;
  bool compare_exchange_weak(U& expected, U desired, std::memory_order success,
                             std::memory_order failure, const Src& loc = Src::current()) {
    return compare_exchange_strong(expected, desired, success, failure, loc);
  }
  bool compare_exchange_strong(U& expected, U desired, std::memory_order success,
                               std::memory_order failure, const Src& loc = Src::current()) {
    const U seen = Base::load(load_order(success), loc);
    if (seen != expected) {
      expected = seen;
      (void)failure;
      return false;
    }
    Base::store(desired, store_order(success), loc);
    return true;
  }
  U fetch_add(U v, std::memory_order o = std::memory_order::seq_cst, const Src& loc = Src::current()) {
    return rmw([v](U x) { return static_cast<U>(x + v); }, o, loc);
  }
  U fetch_sub(U v, std::memory_order o = std::memory_order::seq_cst, const Src& loc = Src::current()) {
    return rmw([v](U x) { return static_cast<U>(x - v); }, o, loc);
  }
  U fetch_and(U v, std::memory_order o = std::memory_order::seq_cst, const Src& loc = Src::current()) {
    return rmw([v](U x) { return static_cast<U>(x & v); }, o, loc);
  }
  U fetch_or(U v, std::memory_order o = std::memory_order::seq_cst, const Src& loc = Src::current()) {
    return rmw([v](U x) { return static_cast<U>(x | v); }, o, loc);
  }
};
struct SplitRmwSync : RelacySync {
  template <class U>
  using atomic = SplitRmwAtomic<U>;
};

int yes(Terminal t) { return t == Terminal::yes ? 1 : 0; }

// --- the seed's four races ---------------------------------------------------------

template <class Sync>
struct SpawnVsClose : rl::test_suite<SpawnVsClose<Sync>, 2> {
  StateWord<Sync> s;
  bool spawned = false;
  Terminal closed = Terminal::no;
  void thread(unsigned index) {
    if (index == 0)
      spawned = s.try_acquire_external(1);
    else
      closed = s.close();
  }
  void after() {
    RL_ASSERT(s.in_flight_upper_bound() == (spawned ? 1u : 0u));  // a spawn that succeeded is counted
    int terminals = yes(closed);
    if (spawned) terminals += yes(s.settle(1));
    RL_ASSERT(terminals == 1);
    RL_ASSERT(!s.accepting());
    RL_ASSERT(!s.try_acquire_external(1));  // no spawn succeeds after close
  }
};

template <class Sync>
struct CompleteVsClose : rl::test_suite<CompleteVsClose<Sync>, 2> {
  StateWord<Sync> s;
  Terminal settled = Terminal::no, closed = Terminal::no;
  void before() { RL_ASSERT(s.try_acquire_external(1)); }
  void thread(unsigned index) {
    if (index == 0)
      settled = s.settle(1);
    else
      closed = s.close();
  }
  void after() {
    RL_ASSERT(yes(settled) + yes(closed) == 1);
    RL_ASSERT(s.raw() == 0u);
  }
};

template <class Sync>
struct ConcurrentSpawns : rl::test_suite<ConcurrentSpawns<Sync>, 3> {
  StateWord<Sync> s;
  bool ok[3] = {false, false, false};
  void thread(unsigned index) { ok[index] = s.try_acquire_external(index == 2 ? 2 : 1); }
  void after() {
    RL_ASSERT(ok[0] && ok[1] && ok[2]);
    RL_ASSERT(s.in_flight_upper_bound() == 4u);
    RL_ASSERT(s.accepting());
  }
};

template <class Sync>
struct SpawnCompleteClose : rl::test_suite<SpawnCompleteClose<Sync>, 3> {
  StateWord<Sync> s;
  bool spawned = false;
  Terminal by_spawner = Terminal::no, by_completion = Terminal::no, by_close = Terminal::no;
  void before() { RL_ASSERT(s.try_acquire_external(1)); }  // one task already in flight
  void thread(unsigned index) {
    if (index == 0) {
      spawned = s.try_acquire_external(1);
      if (spawned) by_spawner = s.settle(1);  // the new task runs and finishes
    } else if (index == 1) {
      by_completion = s.settle(1);
    } else {
      by_close = s.close();
    }
  }
  void after() {
    RL_ASSERT(yes(by_spawner) + yes(by_completion) + yes(by_close) == 1);
    RL_ASSERT(s.raw() == 0u);
  }
};

// [STATE-settle]: two tasks in flight, each writes its own result (plain memory,
// rl::var, which Relacy checks for data races) and settles; the closer closes. The
// thread that sees Terminal::yes reads both results, as join() would.
template <class Sync>
struct SettlePublishes : rl::test_suite<SettlePublishes<Sync>, 3> {
  StateWord<Sync> s;
  rl::var<int> result[2];
  void before() {
    RL_ASSERT(s.try_acquire_external(2));
    result[0]($) = 0;
    result[1]($) = 0;
  }
  void on_terminal() { RL_ASSERT(result[0]($) + result[1]($) == 3); }
  void thread(unsigned index) {
    if (index < 2) {
      result[index]($) = static_cast<int>(index) + 1;
      if (s.settle(1) == Terminal::yes) on_terminal();
    } else {
      if (s.close() == Terminal::yes) on_terminal();
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace stealpool::model;
  Runner run(parse_args(argc, argv, 1000000), "model_state_word.log");

  run.check<SpawnVsClose<RelacySync>>("state_word spawn vs close");
  run.check<CompleteVsClose<RelacySync>>("state_word completion vs close");
  run.check<ConcurrentSpawns<RelacySync>>("state_word 3 concurrent spawns");
  run.check<SpawnCompleteClose<RelacySync>>("state_word spawn/complete/close");
  run.check<SettlePublishes<RelacySync>>("state_word settle publishes task writes");

  run.mutant<ConcurrentSpawns<SplitRmwSync>>("MUTANT split RMW: concurrent spawns");
  run.mutant<SpawnCompleteClose<SplitRmwSync>>("MUTANT split RMW: spawn/complete/close");
  run.mutant<SettlePublishes<RelaxedSync>>("MUTANT relaxed orders: settle publishes");

  return run.exit_code();
}

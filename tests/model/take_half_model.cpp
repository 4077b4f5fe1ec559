// tests/model/take_half_model.cpp: Relacy model checks of the real
// stealpool::detail::take_half (engine/core/take_half.hpp) over the real
// ChaseLevDeque and StateWord, instantiated with the Relacy policy. See
// engine/core/README.md, "Taking tasks out", for [TAKE-half].
//
// Every task holds one unit of the state word from the start (as an accepted
// task does). The deque's owner pushes the tasks and pops them, settling a unit
// per task it runs; a taker thread takes half of the deque out; a third thread
// closes the gate, as join() does. Checks (random and context-bound schedulers):
//   take_vs_pop_vs_close   one deque of 3: every task runs or is taken exactly
//                          once, exactly one thread sees the terminal state, and
//                          it sees every run and every take (the marks are plain
//                          memory, which Relacy race-checks)
//   two_takers             two takers against the owner's pops of 3 tasks
//   injector_take          the same for tasks in the injector (4-position laps:
//                          the take crosses a block), taken by a worker's steal
// Mutants (must be reported):
//   settle relaxed         the state word's RMWs relaxed: the terminal thread
//                          reads the marks without happens-before
//   settle before take     a taker that settles a task's unit before it has the
//                          task (steal, then the mark): the count can reach 0
//                          with the task still in the taker's hands
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "stealpool/engine/core/take_half.hpp"
#include "stealpool/queue/chase_lev_deque.hpp"
#include "stealpool/queue/injector.hpp"

// Relacy last: after every standard and stealpool header.
#include "model_common.hpp"
#include "model_main.hpp"

namespace {

using stealpool::detail::Settled;
using stealpool::detail::StateWord;
using stealpool::detail::Terminal;
using stealpool::model::check_of;
using stealpool::model::Item;
using stealpool::model::make_item;
using stealpool::model::RelacySync;
using stealpool::model::RelaxedSync;

constexpr int kTasks = 3;
using ModelInjector = stealpool::Injector<Item, RelacySync, /*Lap=*/4, /*Cached=*/1>;
constexpr ModelInjector* kNoInjector = nullptr;

// The marks every test keeps: which task ran, which each thread took, and how
// many threads saw the end. Plain memory (rl::var), so Relacy reports a read
// without happens-before as a data race.
template <int Threads, class StateSync>
struct Marks {
  StateWord<StateSync> state;
  rl::var<int> ran[kTasks];
  rl::var<int> taken[Threads][kTasks];
  rl::var<int> terminals;

  void reset() {
    RL_ASSERT(state.try_acquire_external(kTasks));  // every task holds a unit from the start
    terminals($) = 0;
    for (int v = 0; v < kTasks; ++v) {
      ran[v]($) = 0;
      for (int t = 0; t < Threads; ++t) taken[t][v]($) = 0;
    }
  }

  // Whoever sees the terminal state must see every task run or taken, once.
  void on_terminal() {
    terminals($) = terminals($) + 1;
    for (int v = 0; v < kTasks; ++v) {
      int n = ran[v]($);
      for (int t = 0; t < Threads; ++t) n += taken[t][v]($);
      RL_ASSERT(n == 1);
    }
  }

  void mark_ran(const Item& item) {
    RL_ASSERT(item.check == check_of(item.value));
    ran[item.value]($) = ran[item.value]($) + 1;
    if (state.settle(1) == Terminal::yes) on_terminal();
  }
  void mark_taken(unsigned thread, const Item& item) {
    RL_ASSERT(item.check == check_of(item.value));
    taken[thread][item.value]($) = taken[thread][item.value]($) + 1;
  }
  void close() {
    if (state.close() == Terminal::yes) on_terminal();
  }
  // Exactly once: the run ended, and only one thread said so.
  void check_end() { RL_ASSERT(terminals($) == 1); }
};

// Threads: 0 owns the deque; the last one closes the gate; the others take.
// StateSync: the state word's policy (the deque always has the real one).
// EarlySettle: the takers use the broken hand-written take of the mutant.
template <class Derived, int Threads, class StateSync, bool EarlySettle = false>
struct TakeTest : rl::test_suite<Derived, Threads>, Marks<Threads, StateSync> {
  using Deque = stealpool::ChaseLevDeque<Item, RelacySync>;
  Deque deque{4};  // no growth: the deque's own model checks that
  Deque* deques[1] = {&deque};

  void before() { this->reset(); }

  void owner() {
    for (int v = 0; v < kTasks; ++v) deque.push(make_item(v));
    while (std::optional<Item> x = deque.pop()) this->mark_ran(*x);
  }

  void taker(unsigned index) {
    if constexpr (EarlySettle) {
      // MUTANT: the unit goes before the task is in hand.
      stealpool::Steal<Item> s = deque.steal();
      if (s.is_success()) {
        if (this->state.settle(1) == Terminal::yes) this->on_terminal();
        this->mark_taken(index, s.value());
      }
    } else {
      const stealpool::detail::TakeResult r = stealpool::detail::take_half<Item>(
          kNoInjector, deques, this->state, kTasks,
          [this, index](Item&& item) noexcept { this->mark_taken(index, item); });
      if (r.settled == Settled::terminal) this->on_terminal();
    }
  }

  void thread(unsigned index) {
    if (index == 0) {
      owner();
    } else if (index == Threads - 1) {
      this->close();
    } else {
      taker(index);
    }
  }

  void after() {
    this->check_end();
    RL_ASSERT(deque.empty_hint());
  }
};

// The injector: thread 0 gives the tasks (as external spawns do) and takes them
// back one at a time to run them, as workers do, while a taker takes half and
// a third thread closes.
template <class StateSync>
struct InjectorTake : rl::test_suite<InjectorTake<StateSync>, 3>, Marks<3, StateSync> {
  ModelInjector injector;
  std::span<stealpool::ChaseLevDeque<Item, RelacySync>*> no_deques;  // take_half walks an empty range

  void before() { this->reset(); }
  void thread(unsigned index) {
    if (index == 0) {
      for (int v = 0; v < kTasks; ++v) injector.push(make_item(v));
      for (;;) {
        stealpool::Steal<Item> s = injector.steal();
        if (s.is_empty()) break;
        if (s.is_success()) this->mark_ran(s.value());
      }
    } else if (index == 1) {
      const stealpool::detail::TakeResult r = stealpool::detail::take_half<Item>(
          &injector, no_deques, this->state, kTasks, [this](Item&& item) noexcept { this->mark_taken(1, item); });
      if (r.settled == Settled::terminal) this->on_terminal();
    } else {
      this->close();
    }
  }
  void after() { this->check_end(); }
};

template <class StateSync, bool EarlySettle = false>
struct TakeVsPopVsClose : TakeTest<TakeVsPopVsClose<StateSync, EarlySettle>, 3, StateSync, EarlySettle> {};

template <class StateSync>
struct TwoTakers : TakeTest<TwoTakers<StateSync>, 4, StateSync> {};

}  // namespace

int main(int argc, char** argv) {
  using namespace stealpool::model;
  Runner run(parse_args(argc, argv, 300000), "model_take_half.log");

  run.check<TakeVsPopVsClose<RelacySync>>("take_half: take vs pop vs close");
  run.check_random<TwoTakers<RelacySync>>("take_half: two takers vs pop vs close");
  run.check_random<InjectorTake<RelacySync>>("take_half: the injector, take vs take vs close");

  run.mutant<TakeVsPopVsClose<RelaxedSync>>("MUTANT settle relaxed: the terminal thread misses the marks");
  run.mutant<TakeVsPopVsClose<RelacySync, true>>("MUTANT settle before take");
  run.mutant<InjectorTake<RelaxedSync>>("MUTANT settle relaxed: the injector's take");

  return run.exit_code();
}

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
// Mutants (must be reported):
//   settle relaxed         the state word's RMWs relaxed: the terminal thread
//                          reads the marks without happens-before
//   settle before take     a taker that settles a task's unit before it has the
//                          task (steal, then the mark): the count can reach 0
//                          with the task still in the taker's hands
#include <cstddef>
#include <cstdint>
#include <optional>

#include "stealpool/engine/core/take_half.hpp"
#include "stealpool/queue/chase_lev_deque.hpp"

// Relacy last: after every standard and stealpool header.
#include "model_common.hpp"
#include "model_main.hpp"

namespace {

using stealpool::detail::StateWord;
using stealpool::detail::Terminal;
using stealpool::model::check_of;
using stealpool::model::Item;
using stealpool::model::make_item;
using stealpool::model::RelacySync;
using stealpool::model::RelaxedSync;

constexpr int kTasks = 3;

// Threads: 0 owns the deque; the last one closes the gate; the others take.
// StateSync: the state word's policy (the deque always has the real one).
// EarlySettle: the takers use the broken hand-written take of the mutant.
template <class Derived, int Threads, class StateSync, bool EarlySettle = false>
struct TakeTest : rl::test_suite<Derived, Threads> {
  using Deque = stealpool::ChaseLevDeque<Item, RelacySync>;
  Deque deque{4};  // no growth: the deque's own model checks that
  Deque* deques[1] = {&deque};
  StateWord<StateSync> state;
  rl::var<int> ran[kTasks];
  rl::var<int> taken[Threads][kTasks];
  rl::var<int> terminals;

  void before() {
    RL_ASSERT(state.try_acquire_external(kTasks));
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

  void mark_taken(unsigned thread, const Item& item) {
    RL_ASSERT(item.check == check_of(item.value));
    taken[thread][item.value]($) = taken[thread][item.value]($) + 1;
  }

  void owner() {
    for (int v = 0; v < kTasks; ++v) deque.push(make_item(v));
    while (std::optional<Item> x = deque.pop()) {
      RL_ASSERT(x->check == check_of(x->value));
      ran[x->value]($) = ran[x->value]($) + 1;
      if (state.settle(1) == Terminal::yes) on_terminal();
    }
  }

  void taker(unsigned index) {
    if constexpr (EarlySettle) {
      // MUTANT: the unit goes before the task is in hand.
      stealpool::Steal<Item> s = deque.steal();
      if (s.is_success()) {
        if (state.settle(1) == Terminal::yes) on_terminal();
        mark_taken(index, s.value());
      }
    } else {
      const stealpool::detail::TakeResult r = stealpool::detail::take_half<Item>(
          deques, state, kTasks, [this, index](Item&& item) noexcept { mark_taken(index, item); });
      if (r.terminal == Terminal::yes) on_terminal();
    }
  }

  void thread(unsigned index) {
    if (index == 0) {
      owner();
    } else if (index == Threads - 1) {
      if (state.close() == Terminal::yes) on_terminal();
    } else {
      taker(index);
    }
  }

  void after() {
    RL_ASSERT(terminals($) == 1);  // exactly once: the run ended, and only one thread said so
    RL_ASSERT(deque.empty_hint());
  }
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

  run.mutant<TakeVsPopVsClose<RelaxedSync>>("MUTANT settle relaxed: the terminal thread misses the marks");
  run.mutant<TakeVsPopVsClose<RelacySync, true>>("MUTANT settle before take");

  return run.exit_code();
}

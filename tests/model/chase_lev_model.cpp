// tests/model/chase_lev_model.cpp: Relacy model checks of the real
// stealpool::ChaseLevDeque<T, Sync> (queue/chase_lev_deque.hpp), instantiated with
// the Relacy policy of relacy_sync.hpp. See queue/README.md, "Chase-Lev deque", for
// the protocol and the tags named below.
//
// Checks (each under the random and the context-bound scheduler):
//   push_pop_steal    owner pushes 2 and pops 2 while a thief steals twice
//   last_element      1 item: owner pop vs thief steal, exactly one gets it
//   growth            capacity 2, owner pushes 4 (growth, slot reuse) and pops,
//                     a thief steals 3 times
//   two_thieves       owner pushes 3 and pops once, two thieves steal once each
// Every item carries a check word: a read of an unwritten or torn slot (Item{0,0},
// or half of another item) is a failure, not just a wrong count. At the end the
// deque is drained; every item must have been taken exactly once.
//
// Mutants (must be reported), made by instantiating the same deque with a policy
// that breaks one synchronising pair, so no copy of the algorithm exists here:
//   pop fence weakened     [CL-pop-fence] seq_cst -> acq_rel (owner thread only)
//   steal fence weakened   [CL-steal-fence] seq_cst -> acq_rel (thief threads only)
//   release stores relaxed [CL-push]/[SLOT-publish]/[CL-grow] release -> relaxed
#include <cstddef>
#include <cstdint>
#include <optional>

#include "stealpool/queue/chase_lev_deque.hpp"

// Relacy last: after every standard and stealpool header.
#include "model_common.hpp"
#include "model_main.hpp"

namespace {

using stealpool::model::RelacyAtomic;
using stealpool::model::RelacySync;
using stealpool::model::SourceLocation;

// --- mutant policies -------------------------------------------------------------

// [CL-pop-fence] weakened: the owner's seq_cst fence (pop() is the owner's only
// fence) becomes acq_rel, which gives no store->load ordering.
using PopFenceWeakSync = stealpool::model::OwnerFenceWeakSync;

// [CL-steal-fence] weakened: the thieves' seq_cst fence becomes acq_rel.
using StealFenceWeakSync = stealpool::model::ThiefFenceWeakSync;

using stealpool::model::check_of;
using stealpool::model::Item;
using stealpool::model::make_item;
using stealpool::model::RelaxedReleaseSync;

// --- the test harness -------------------------------------------------------------

// Threads: Relacy threads (0 = owner). Items: values 0..Items-1 pushed by the test.
// Exact: whether every item must have been taken by the threads themselves (no
// drain in after()).
template <class Derived, int Threads, int Items, class Sync, bool Exact = false>
struct DequeTest : rl::test_suite<Derived, Threads> {
  using Deque = stealpool::ChaseLevDeque<Item, Sync>;
  Deque deque;
  int taken[Threads + 1][Items] = {};  // row Threads: drained in after()

  explicit DequeTest(std::size_t capacity = 2) : deque(capacity) {}

  void take(int row, const Item& item) {
    RL_ASSERT(item.value >= 0 && item.value < Items);  // no garbage...
    RL_ASSERT(item.check == check_of(item.value));     // ...and no torn item
    if (item.value >= 0 && item.value < Items) ++taken[row][item.value];
  }
  void push(int v) { deque.push(make_item(v)); }
  void pop(int row) {
    if (std::optional<Item> x = deque.pop()) take(row, *x);
  }
  void steal(int row) {
    stealpool::Steal<Item> s = deque.steal();
    if (s.is_success()) take(row, s.value());
  }

  void after() {
    if (!Exact)
      while (std::optional<Item> x = deque.pop()) take(Threads, *x);
    RL_ASSERT(deque.empty_hint());
    for (int v = 0; v < Items; ++v) {
      int n = 0;
      for (int r = 0; r <= Threads; ++r) n += taken[r][v];
      RL_ASSERT(n == 1);  // every item taken exactly once: none lost, none duplicated
    }
  }
};

// (a) owner pushes 2 and pops 2 while one thief steals twice. The two steals let
// the thief take item 0 and then race the owner's fence-free pop of item 1.
template <class Sync>
struct PushPopSteal : DequeTest<PushPopSteal<Sync>, 2, 2, Sync> {
  void thread(unsigned index) {
    if (index == 0) {
      this->push(0);
      this->push(1);
      this->pop(0);
      this->pop(0);
    } else {
      this->steal(1);
      this->steal(1);
    }
  }
};

// (b) the last element: exactly one of pop and steal gets it, with no drain.
template <class Sync>
struct LastElement : DequeTest<LastElement<Sync>, 2, 1, Sync, /*Exact=*/true> {
  void thread(unsigned index) {
    if (index == 0) {
      this->push(0);
      this->pop(0);
    } else {
      this->steal(1);
    }
  }
};

// (c) growth: initial capacity 2, four pushes force a growth (and, if the thief
// stole early, wrap around onto slots it read: [CL-reuse]); the thief steals
// across the buffer switch ([CL-grow]).
template <class Sync>
struct Growth : DequeTest<Growth<Sync>, 2, 4, Sync> {
  Growth() : DequeTest<Growth<Sync>, 2, 4, Sync>(2) {}
  void thread(unsigned index) {
    if (index == 0) {
      for (int v = 0; v < 4; ++v) this->push(v);
      this->pop(0);
    } else {
      this->steal(1);
      this->steal(1);
      this->steal(1);
    }
  }
};

// (d) two thieves and the owner: the thieves race each other's CAS on top and the
// owner's pop. One steal each: with two each, the context-bound search (bound 2)
// takes about a minute on 2 cores, over the CI budget.
template <class Sync>
struct TwoThieves : DequeTest<TwoThieves<Sync>, 3, 3, Sync> {
  void thread(unsigned index) {
    if (index == 0) {
      this->push(0);
      this->push(1);
      this->push(2);
      this->pop(0);
    } else {
      this->steal(static_cast<int>(index));
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace stealpool::model;
  Runner run(parse_args(argc, argv, 500000), "model_chase_lev.log");

  run.check<PushPopSteal<RelacySync>>("chase_lev push2/pop2 vs 1 thief");
  run.check<LastElement<RelacySync>>("chase_lev last element: pop vs steal");
  run.check<Growth<RelacySync>>("chase_lev growth 2->4 vs 1 thief");
  run.check<TwoThieves<RelacySync>>("chase_lev push3/pop1 vs 2 thieves x1 steal");

  run.mutant<PushPopSteal<PopFenceWeakSync>>("MUTANT pop fence seq_cst->acq_rel");
  run.mutant<PushPopSteal<StealFenceWeakSync>>("MUTANT steal fence seq_cst->acq_rel");
  run.mutant<Growth<RelaxedReleaseSync>>("MUTANT release stores -> relaxed");

  return run.exit_code();
}

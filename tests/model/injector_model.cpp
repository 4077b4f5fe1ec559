// tests/model/injector_model.cpp: Relacy model checks of the real
// stealpool::Injector<T, Sync> (queue/injector.hpp), instantiated with the Relacy
// policy of relacy_sync.hpp. See queue/README.md, "Injector", for the protocol and
// the tags named below.
//
// Checks (each under the random and the context-bound scheduler):
//   two_producers     2 producers push 1 item each ([INJ-claim] CAS race on tail),
//                     1 consumer steals until it has both (bounded, yielding)
//   batch_vs_2        1 producer push_batch of 2 (one tail CAS for both) vs 2
//                     consumers stealing twice each ([INJ-claim] on head, and a
//                     consumer waiting on a claimed-but-unwritten slot: [INJ-ready])
//   boundaries        blocks of ONE slot (Lap 2): every push fills a block and
//                     installs the next ([INJ-marker], [INJ-next]), every steal
//                     finishes one, moves head to the next and retires it
//                     ([INJ-free]) into a one-block cache, from which a later
//                     push takes it and resets it ([INJ-reuse], [CACHE-handoff]):
//                     1 producer pushes 3 items one at a time vs 1 consumer
//                     stealing 3 times
//   batch_across      blocks of two slots (Lap 3): one push_batch of 3 spans two
//                     blocks, vs 1 consumer stealing 3 times
//   boundaries_2      boundaries with 2 consumers stealing twice each, under
//                     the random scheduler only (its context-bound search does
//                     not end in minutes): the consumers race to finish and
//                     retire blocks, and one may read a block that the other
//                     retired and the producer reused
// (boundaries and batch_across have one consumer so that both schedulers can
// run them.)
// Every item carries a check word: a read of an unwritten or torn slot (Item{0,0},
// or half of another item) is a failure, not just a wrong count. At the end the
// queue is drained; every item must have been taken exactly once, and each
// consumer must have taken its items in FIFO order.
//
// The block boundary is reached with the template's Lap parameter: production
// blocks have 255 slots, far beyond what Relacy can explore; boundaries and
// batch_across use blocks of one and two slots, the same code.
//
// Not reported by Relacy, so not listed as mutants: [INJ-free]'s acq_rel add
// made relaxed, on boundaries_2 (Relacy does not order a block's delete against
// the atomic reads of its slots), and [CACHE-handoff]'s release/acquire made
// relaxed (a reader of a reused block also synchronises with the producer's
// later [INJ-next]/[INJ-ready] publication of it); the orders are argued in
// queue/README.md.
//
// Mutants (must be reported), made through the policy, so no copy of the algorithm
// exists here:
//   release stores relaxed  [INJ-ready]/[SLOT-publish] release -> relaxed: a
//                           consumer sees a slot's ready flag but reads the item
//                           words from before the producer's write

#include <cstddef>
#include <cstdint>
#include <span>

#include "stealpool/queue/injector.hpp"

// Relacy last: after every standard and stealpool header.
#include "model_common.hpp"
#include "model_main.hpp"

namespace {

using stealpool::model::RelacyAtomic;
using stealpool::model::RelacySync;
using stealpool::model::SourceLocation;

// --- mutant policy and items: model_common.hpp ---------------------------------

using stealpool::model::check_of;
using stealpool::model::Item;
using stealpool::model::make_item;
using stealpool::model::RelaxedReleaseSync;

// --- the test harness -------------------------------------------------------------

// Threads: Relacy threads. Items: values 0..Items-1 pushed by the test, in
// increasing order by each producer.
// One cached block: with blocks of one or two slots, a retired block is taken
// again by the producer's next install ([INJ-reuse]).
template <class Derived, int Threads, int Items, class Sync, std::uint64_t Lap = 256>
struct InjectorTest : rl::test_suite<Derived, Threads> {
  using Queue = stealpool::Injector<Item, Sync, Lap, 1>;
  Queue queue;
  int taken[Threads + 1][Items] = {};  // row Threads: drained in after()
  int last[Threads + 1] = {};          // per row: last value taken + 1 (FIFO check)
  int count[Threads + 1] = {};         // per row: items taken

  void take(int row, const Item& item) {
    RL_ASSERT(item.value >= 0 && item.value < Items);  // no garbage...
    RL_ASSERT(item.check == check_of(item.value));     // ...and no torn item
    if (item.value < 0 || item.value >= Items) return;
    ++taken[row][item.value];
    ++count[row];
    last[row] = static_cast<int>(item.value) + 1;
  }
  // One steal() attempt; true if it took an item.
  bool steal(int row) {
    stealpool::Steal<Item> s = queue.steal();
    if (!s.is_success()) return false;
    take(row, s.value());
    return true;
  }

  // `attempts` steal() attempts for `row`; what it takes comes in FIFO order.
  void steal_in_order(int row, int attempts) {
    for (int attempt = 0; attempt < attempts; ++attempt) {
      const int before = last[row];
      if (steal(row)) RL_ASSERT(last[row] > before);  // FIFO per consumer
    }
  }

  void after() {
    // Single-threaded now, but steal() still reports `retry` when its
    // compare_exchange_weak on head fails spuriously (Relacy injects such failures),
    // so retry is not only "lost a race": loop on it, bounded (each CAS fails
    // spuriously with probability 1/4 under the random scheduler, at most once
    // per atomic under the context-bound one).
    for (int tries = 0; tries < 64; ++tries) {
      stealpool::Steal<Item> s = queue.steal();
      if (s.is_retry()) continue;
      if (!s.is_success()) break;
      take(Threads, s.value());
    }
    RL_ASSERT(queue.empty_hint());
    for (int v = 0; v < Items; ++v) {
      int n = 0;
      for (int r = 0; r <= Threads; ++r) n += taken[r][v];
      RL_ASSERT(n == 1);  // every item taken exactly once: none lost, none duplicated
    }
  }
};

// (a) two producers push one item each (values 0 and 1) and race on the tail CAS;
// one consumer steals until it has both, yielding between attempts. The bound
// only keeps the search finite: an item left behind is picked up by the drain,
// and exactly-once is checked across both.
template <class Sync>
struct TwoProducers : InjectorTest<TwoProducers<Sync>, 3, 2, Sync> {
  void thread(unsigned index) {
    if (index < 2) {
      this->queue.push(make_item(static_cast<int>(index)));
    } else {
      for (int attempt = 0; attempt < 6 && this->count[2] < 2; ++attempt)
        if (!this->steal(2)) Sync::spin_pause();
    }
  }
};

// (b) one producer pushes 0 and 1 with one push_batch (one tail CAS claims both
// slots, then the slots are written in order); two consumers steal twice each. A
// consumer may claim slot 1 while the producer is still writing slot 0 or 1:
// it must wait on [INJ-ready], never read the unwritten item. A consumer that
// takes both must take 0 before 1 (FIFO).
template <class Sync>
struct BatchVsTwo : InjectorTest<BatchVsTwo<Sync>, 3, 2, Sync> {
  void thread(unsigned index) {
    if (index == 0) {
      const Item items[2] = {make_item(0), make_item(1)};
      this->queue.push_batch(std::span<const Item>(items, 2));
    } else {
      this->steal_in_order(static_cast<int>(index), 2);
    }
  }
};

// (c) blocks of one slot: each push fills its block and installs the next; each
// steal finishes a block (waits for its `next`, moves head_block and head to
// the next lap) and retires it into the cache, where the next install may take
// it. A consumer that reads the wrong lap's block, a reused block's stale
// `ready` or `next`, or a block after it was freed, fails the item checks,
// exactly-once, or Relacy's own checks (use after free).
// (c2), Consumers = 2 and Attempts = 2: as (c) with two consumers racing to
// finish and retire the blocks, one maybe reading a block the other retired and
// the producer reused.
template <class Sync, int Consumers = 1, int Attempts = 3>
struct Boundaries : InjectorTest<Boundaries<Sync, Consumers, Attempts>, Consumers + 1, 3, Sync, 2> {
  void thread(unsigned index) {
    if (index == 0) {
      for (int v = 0; v < 3; ++v) this->queue.push(make_item(v));
    } else {
      this->steal_in_order(static_cast<int>(index), Attempts);
    }
  }
};

// (d) blocks of two slots: one push_batch of 3 claims the first block's two
// slots with one CAS (installing the next block) and the third in the next.
template <class Sync>
struct BatchAcross : InjectorTest<BatchAcross<Sync>, 2, 3, Sync, 3> {
  void thread(unsigned index) {
    if (index == 0) {
      const Item items[3] = {make_item(0), make_item(1), make_item(2)};
      this->queue.push_batch(std::span<const Item>(items, 3));
    } else {
      this->steal_in_order(static_cast<int>(index), 3);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace stealpool::model;
  Runner run(parse_args(argc, argv, 200000), "model_injector.log");

  run.check<TwoProducers<RelacySync>>("injector 2 producers x1 vs 1 consumer");
  run.check<BatchVsTwo<RelacySync>>("injector push_batch(2) vs 2 consumers x2");
  run.check<Boundaries<RelacySync>>("injector 1-slot blocks: 3 pushes vs 1 consumer x3");
  run.check<BatchAcross<RelacySync>>("injector 2-slot blocks: push_batch(3) vs 1 consumer x3");
  run.check_random<Boundaries<RelacySync, 2, 2>>("injector 1-slot blocks: 3 pushes vs 2 consumers x2");

  run.mutant<TwoProducers<RelaxedReleaseSync>>("MUTANT release stores -> relaxed (a)");
  run.mutant<BatchVsTwo<RelaxedReleaseSync>>("MUTANT release stores -> relaxed (b)");

  return run.exit_code();
}

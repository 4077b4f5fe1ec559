// tests/model/sleep_model.cpp: Relacy model checks of the real
// stealpool::detail::SleepRegistry<Sync, ParkerT> (engine/sleep/sleep_registry.hpp),
// instantiated with the Relacy policy of relacy_sync.hpp and FakeParker (fake_parker.hpp). See
// engine/sleep/README.md, "Sleep", for the protocol and [SLEEP-dekker].
//
// Check (under the random and the context-bound scheduler):
//   sleeper_vs_producer  worker 0: announce(0); re-check `work` (relaxed, as the
//                        pool's re-check of the queues after the fence); if none,
//                        park; on waking cancel(0) and re-check. A producer:
//                        work.store(1, relaxed); notify(1).
//                        The sleeper must end up seeing the work, either in its
//                        re-check or after a wake-up; the registry must end with no
//                        sleeper counted.
//   two_sleepers         workers 0 and 1 as above (taking the item with an
//                        exchange, going round once more if the other took it), a
//                        producer publishing one item and calling notify(1): the
//                        item is taken exactly once, never stranded with every
//                        worker asleep for ever.
//
// No lost wake-up, modelled: FakeParker::park returns only on a token, as the real
// Parker::park(kForever) does, except when the producer thread has finished (a
// harness flag, set after notify() returns) and no token is there: then nobody
// will ever unpark it, the real worker would sleep forever with the work
// published, and the test fails ("lost wake-up"). Without that flag the sleeper
// would spin forever and Relacy would report a livelock only at its depth limit.
//
// Mutant (must be reported), through the policy:
//   dekker fence weakened  [SLEEP-dekker] seq_cst fences -> acq_rel (both sides):
//                          the re-check misses the work and the producer reads
//                          sleeping_ == 0 (store buffering): the work is stranded
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "stealpool/engine/sleep/sleep_registry.hpp"

// Relacy last: after every standard and stealpool header.
#include "fake_parker.hpp"
#include "model_main.hpp"

namespace {

using stealpool::model::RelacyAtomic;
using stealpool::model::RelacySync;
using stealpool::model::SourceLocation;
using stealpool::model::FakeParker;
using stealpool::model::g_unparkers_done;

// --- mutant policy ---------------------------------------------------------------

// [SLEEP-dekker] weakened: every seq_cst fence becomes acq_rel, which gives no
// store->load ordering.
struct DekkerFenceWeakSync : RelacySync {
  static void fence(std::memory_order order,
                    const SourceLocation& loc = SourceLocation::current()) {
    if (order == std::memory_order::seq_cst) order = std::memory_order::acq_rel;
    RelacySync::fence(order, loc);
  }
};

// --- the parker --------------------------------------------------------------------

// --- the test ------------------------------------------------------------------------

template <class Sync>
struct SleeperVsProducer : rl::test_suite<SleeperVsProducer<Sync>, 2> {
  using Registry = stealpool::detail::SleepRegistry<Sync, FakeParker>;
  Registry registry{1};
  RelacyAtomic<int> work{0};
  RelacyAtomic<int> producer_done{0};
  bool saw_work = false;  // the sleeper's only

  void before() { g_unparkers_done = &producer_done; }

  void thread(unsigned index) {
    if (index == 0) {  // worker 0, out of local work
      registry.announce(0);
      // The re-check after [SLEEP-dekker]: relaxed, as the pool's queue probes.
      if (work.load(std::memory_order::relaxed) != 0) {
        saw_work = true;
        registry.cancel(0);
        return;
      }
      const bool token = registry.parker(0).park(FakeParker::kForever);
      RL_ASSERT(token);  // otherwise: parked for ever with the work published (lost wake-up)
      registry.cancel(0);
      saw_work = work.load(std::memory_order::relaxed) != 0;
      RL_ASSERT(saw_work);  // [PARK-token] publishes the work to the woken worker
    } else {  // producer
      work.store(1, std::memory_order::relaxed);  // publish (a queue push)
      registry.notify(1);
      producer_done.store(1, std::memory_order::seq_cst);
    }
  }

  void after() {
    RL_ASSERT(saw_work);
    RL_ASSERT(registry.sleeping_hint() == 0);  // the bit was cleared exactly once
  }
};

// Two sleepers, one work item, notify(1): the producer wakes at most one worker,
// so a worker may legitimately sleep for ever; the item must still be taken, by
// exactly one worker. A worker takes the item with an exchange (a steal); one
// that saw the item in its re-check but lost the take goes round once more, as
// the pool's worker loop does. A worker whose park would last for ever (no token,
// producer finished) stops there without looking at the work again.
template <class Sync>
struct TwoSleepers : rl::test_suite<TwoSleepers<Sync>, 3> {
  using Registry = stealpool::detail::SleepRegistry<Sync, FakeParker>;
  Registry registry{2};
  RelacyAtomic<int> work{0};
  RelacyAtomic<int> producer_done{0};
  int took[2] = {};  // each sleeper's own

  void before() { g_unparkers_done = &producer_done; }

  bool try_take(unsigned w) {
    if (work.exchange(0, std::memory_order::acquire) != 1) return false;
    ++took[w];
    return true;
  }

  void thread(unsigned index) {
    if (index == 2) {  // producer
      work.store(1, std::memory_order::relaxed);
      registry.notify(1);
      producer_done.store(1, std::memory_order::seq_cst);
      return;
    }
    for (int round = 0; round < 2; ++round) {
      registry.announce(index);
      if (work.load(std::memory_order::relaxed) != 0) {  // re-check after [SLEEP-dekker]
        registry.cancel(index);
        if (try_take(index)) return;
        continue;  // another worker took it: back to sleep
      }
      if (!registry.parker(index).park(FakeParker::kForever)) return;  // asleep for ever
      registry.cancel(index);
      if (try_take(index)) return;
    }
  }

  void after() {
    RL_ASSERT(took[0] + took[1] == 1);  // the item is never stranded, never taken twice
    RL_ASSERT(work.load(std::memory_order::relaxed) == 0);
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace stealpool::model;
  Runner run(parse_args(argc, argv, 1000000), "model_sleep.log");

  run.check<SleeperVsProducer<RelacySync>>("sleep 1 sleeper vs 1 producer");
  run.check<TwoSleepers<RelacySync>>("sleep 2 sleepers vs 1 producer notify(1)");

  run.mutant<SleeperVsProducer<DekkerFenceWeakSync>>("MUTANT dekker fences seq_cst->acq_rel");
  run.mutant<TwoSleepers<DekkerFenceWeakSync>>("MUTANT dekker fences seq_cst->acq_rel (2)");

  return run.exit_code();
}

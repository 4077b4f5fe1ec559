// tests/model/sleep_model.cpp: Relacy model checks of the real
// stealpool::detail::SleepRegistry<Sync, ParkerT> (engine/sleep/sleep_registry.hpp),
// instantiated with the Relacy policy of relacy_sync.hpp and FakeParker (fake_parker.hpp). See
// engine/sleep/README.md, "Sleep", for the protocol and [SLEEP-dekker].
//
// Check (under the random and the context-bound scheduler), for each of the two
// ways a producer publishes:
//   store + fence        a word stored relaxed, then notify(1), whose fence is
//                        the producer's side (a deque's publish); the sleeper
//                        re-checks the word relaxed, as the pool's re-check of
//                        the deques after its fence, and takes with an exchange.
//   injector push        the real Injector (blocks of 3 slots): push(), whose
//                        seq_cst [INJ-claim] CAS on the tail publishes, then
//                        notify_after_seq_cst_rmw(1), which has no fence; the
//                        sleeper re-checks with empty_hint() (a seq_cst load of
//                        the tail) and takes with steal() (engine/sleep/README.md,
//                        "Publishing with a seq_cst RMW"). The standard would let
//                        that load be relaxed, [atomics.order] p4.3; Relacy's
//                        model of fences does not implement the rule and reports
//                        a lost wake-up. A seq_cst load, a plain load on x86, is
//                        ordered by both.
// the scenarios:
//   sleeper_vs_producer  worker 0: announce(0); re-check; if nothing, park; on
//                        waking cancel(0) and take. The sleeper must end up with
//                        the work, from its re-check or after a wake-up; the
//                        registry must end with no sleeper counted.
//   two_sleepers         workers 0 and 1 as above (going round once more if the
//                        other took the item), a producer publishing one item
//                        and waking one: the item is taken exactly once, never
//                        stranded with every worker asleep for ever.
//
// No lost wake-up, modelled: FakeParker::park returns only on a token, as the real
// Parker::park(kForever) does, except when the producer thread has finished (a
// harness flag, set after the notify returns) and no token is there: then nobody
// will ever unpark it, the real worker would sleep forever with the work
// published, and the test fails ("lost wake-up"). Without that flag the sleeper
// would spin forever and Relacy would report a livelock only at its depth limit.
//
// Mutants (must be reported), through the policies:
//   dekker fence weakened  store + fence with [SLEEP-dekker]'s seq_cst fences ->
//                          acq_rel (both sides): the re-check misses the work and
//                          the producer reads sleeping_ == 0 (store buffering)
//   publishing CAS acq_rel injector push with the injector's seq_cst CASes
//                          acq_rel: out of the total order, nothing orders the
//                          count's load after the claim
//   count load acquire     injector push with notify_after_seq_cst_rmw's load of
//                          the count acquire (seq_cst loads weakened): out of the
//                          total order, it may read the count from before the
//                          sleeper's announce
// (The sleeper's fence is not needed by the injector's pair: its announce RMW
// and the re-check's load are both seq_cst. Weakened, that check still passes;
// the fence is there for producers that publish with a plain store.)
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "stealpool/engine/sleep/sleep_registry.hpp"
#include "stealpool/queue/injector.hpp"

// Relacy last: after every standard and stealpool header.
#include "fake_parker.hpp"
#include "model_common.hpp"
#include "model_main.hpp"

namespace {

using stealpool::model::RelacyAtomic;
using stealpool::model::RelacySync;
using stealpool::model::SourceLocation;
using stealpool::model::FakeParker;
using stealpool::model::g_unparkers_done;

// --- mutant policies --------------------------------------------------------------

// [SLEEP-dekker] weakened: every seq_cst fence becomes acq_rel, which gives no
// store->load ordering.
struct DekkerFenceWeakSync : RelacySync {
  static void fence(std::memory_order order,
                    const SourceLocation& loc = SourceLocation::current()) {
    if (order == std::memory_order::seq_cst) order = std::memory_order::acq_rel;
    RelacySync::fence(order, loc);
  }
};

// seq_cst loads become acquire (the registry's only seq_cst load is
// notify_after_seq_cst_rmw's load of the count).
using CountLoadWeakSync = stealpool::model::WeakerLoadSync<std::memory_order::seq_cst, std::memory_order::acquire>;

// seq_cst CAS successes become acq_rel (the injector's only seq_cst CAS is its
// producers' [INJ-claim]).
template <class U>
class AcqRelCasAtomic : public RelacyAtomic<U> {
 public:
  using RelacyAtomic<U>::RelacyAtomic;
  bool compare_exchange_weak(U& expected, U desired, std::memory_order success, std::memory_order failure,
                             const SourceLocation& loc = SourceLocation::current()) {
    if (success == std::memory_order::seq_cst) success = std::memory_order::acq_rel;
    return RelacyAtomic<U>::compare_exchange_weak(expected, desired, success, failure, loc);
  }
};
struct ClaimWeakSync : RelacySync {
  template <class U>
  using atomic = AcqRelCasAtomic<U>;
};

// --- the producers ------------------------------------------------------------------

// A deque's publish: a plain store, then notify() with its fence.
template <class Registry>
struct StoreThenFence {
  RelacyAtomic<int> work{0};

  void publish(Registry& registry) {
    work.store(1, std::memory_order::relaxed);  // publish (a deque's split store)
    registry.notify(1);
  }
  // The re-check after [SLEEP-dekker]: relaxed, as the pool's probes of the deques.
  bool visible() const { return work.load(std::memory_order::relaxed) != 0; }
  bool take() { return work.exchange(0, std::memory_order::acquire) == 1; }
  bool empty() const { return work.load(std::memory_order::relaxed) == 0; }
};

// An external spawn (ExecutorShared::spawn_one): the injector's push, then
// notify_after_seq_cst_rmw() without a fence.
template <class QueueSync>
struct InjectorPush {
  template <class Registry>
  struct type {
    stealpool::Injector<int, QueueSync, 4> injector;  // 3 slots: a push does not fill a block

    void publish(Registry& registry) {
      injector.push(1);
      registry.notify_after_seq_cst_rmw(1);
    }
    bool visible() const { return !injector.empty_hint(); }  // the pool's re-check of the injector
    // steal() reports `retry` when it lost a race for the position: look again.
    bool take() {
      for (;;) {
        const auto s = injector.steal();
        if (s.is_success()) return true;
        if (!s.is_retry()) return false;
      }
    }
    bool empty() const { return injector.empty_hint(); }
  };
};
template <class Registry>
using InjectorPushSeqCst = typename InjectorPush<RelacySync>::template type<Registry>;
template <class Registry>
using InjectorPushClaimWeak = typename InjectorPush<ClaimWeakSync>::template type<Registry>;

// --- the tests ------------------------------------------------------------------------

template <class Sync, template <class> class Producer>
struct SleeperVsProducer : rl::test_suite<SleeperVsProducer<Sync, Producer>, 2> {
  using Registry = stealpool::detail::SleepRegistry<Sync, FakeParker>;
  Registry registry{1};
  Producer<Registry> work;
  RelacyAtomic<int> producer_done{0};
  bool got_work = false;  // the sleeper's only

  void before() { g_unparkers_done = &producer_done; }

  void thread(unsigned index) {
    if (index == 0) {  // worker 0, out of local work
      registry.announce(0);
      if (work.visible()) {
        registry.cancel(0);
        got_work = work.take();
        return;
      }
      const bool token = registry.parker(0).park(FakeParker::kForever);
      RL_ASSERT(token);  // otherwise: parked for ever with the work published (lost wake-up)
      registry.cancel(0);
      got_work = work.take();
      RL_ASSERT(got_work);  // [PARK-token] publishes the work to the woken worker
    } else {  // producer
      work.publish(registry);
      producer_done.store(1, std::memory_order::seq_cst);
    }
  }

  void after() {
    RL_ASSERT(got_work);
    RL_ASSERT(registry.sleeping_hint() == 0);  // the bit was cleared exactly once
  }
};

// Two sleepers, one work item, a wake-up of one: the producer wakes at most one
// worker, so a worker may legitimately sleep for ever; the item must still be
// taken, by exactly one worker. One that saw the item in its re-check but lost
// the take goes round once more, as the pool's worker loop does. A worker whose
// park would last for ever (no token, producer finished) stops there without
// looking at the work again.
template <class Sync, template <class> class Producer>
struct TwoSleepers : rl::test_suite<TwoSleepers<Sync, Producer>, 3> {
  using Registry = stealpool::detail::SleepRegistry<Sync, FakeParker>;
  Registry registry{2};
  Producer<Registry> work;
  RelacyAtomic<int> producer_done{0};
  int took[2] = {};  // each sleeper's own

  void before() { g_unparkers_done = &producer_done; }

  bool try_take(unsigned w) {
    if (!work.take()) return false;
    ++took[w];
    return true;
  }

  void thread(unsigned index) {
    if (index == 2) {  // producer
      work.publish(registry);
      producer_done.store(1, std::memory_order::seq_cst);
      return;
    }
    for (int round = 0; round < 2; ++round) {
      registry.announce(index);
      if (work.visible()) {  // the re-check after [SLEEP-dekker]
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
    RL_ASSERT(work.empty());
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace stealpool::model;
  Runner run(parse_args(argc, argv, 1000000), "model_sleep.log");

  run.check<SleeperVsProducer<RelacySync, StoreThenFence>>("sleep 1 sleeper vs a store+fence producer");
  run.check<TwoSleepers<RelacySync, StoreThenFence>>("sleep 2 sleepers vs a store+fence producer");
  run.check<SleeperVsProducer<RelacySync, InjectorPushSeqCst>>("sleep 1 sleeper vs an injector push");
  run.check<TwoSleepers<RelacySync, InjectorPushSeqCst>>("sleep 2 sleepers vs an injector push");

  run.mutant<SleeperVsProducer<DekkerFenceWeakSync, StoreThenFence>>("MUTANT dekker fences seq_cst->acq_rel");
  run.mutant<TwoSleepers<DekkerFenceWeakSync, StoreThenFence>>("MUTANT dekker fences seq_cst->acq_rel (2)");
  run.mutant<SleeperVsProducer<RelacySync, InjectorPushClaimWeak>>("MUTANT publishing CAS seq_cst->acq_rel");
  run.mutant<SleeperVsProducer<CountLoadWeakSync, InjectorPushSeqCst>>("MUTANT count load seq_cst->acquire");

  return run.exit_code();
}

// tests/model/group_count_model.cpp: Relacy model check of the real
// stealpool::detail::BasicGroupCount<Sync> (forkjoin/group_count.hpp), how a
// TaskGroup counts its tasks: the owner's spawns and, while it waits, its
// finishes are private; everyone else's are one RMW on the shared word. See
// forkjoin/README.md, "TaskGroup", and [TG-count].
//
// Each task writes its result into a Relacy variable, and the waiter reads
// every result once its wait returns: a wait that returns before a task has
// finished, or without happens-before from its finish, is a data race (or a
// failed assert). A waiter that parks and is never woken fails too: FakeParker
// (fake_parker.hpp) returns false when no token is there and every thread
// that could unpark has finished.
//
//   owner_waits_thief_finishes  the owner spawns two tasks; a thief takes one
//                               (a release/acquire handoff stands for the deque)
//                               and finishes it with shared_finished(); the owner
//                               runs the other and counts it privately, then
//                               waits: probe, fold and park, woken by the thief.
//   foreign_waiter              the owner spawns t1 and t2 and hands the group
//                               to another thread, which waits (kExternal). A
//                               thief runs t2; the owner runs t1, which spawns
//                               t3 (private: the owner's thread) before it
//                               finishes, and then runs t3. The waiter must not
//                               return before t3 is done although t3 was never
//                               counted in the shared word when the wait began:
//                               its fold, the wake-ups and the refold.
//   failed_spawn                the owner spawns t1 and hands the group to a
//                               waiter; t1, on the owner's thread, spawns t2
//                               (private) whose job cannot be queued, so t2 is
//                               taken back as TaskGroup::unspawn does: as a
//                               shared finish. The waiter, which may have
//                               folded t2 in already, must still be woken.
//
// Mutants (must be reported):
//   the waiter's acquire loads of the word made relaxed: the probe may see a
//   finish and still read the owner's count from before the spawn that the
//   finished task made (a false zero), or read a result unordered;
//   the finishers' fetch_sub made relaxed: the waiter's acquire gets no
//   happens-before from the task's writes.
// The failed spawn taken back privately instead (the owner's count -1, as
// TaskGroup did before): the waiter can fold t2 in first and then sleep for
// ever (a lost wake-up). Checked by hand (they change the code, not its
// orders, so no policy can make them): done() reading private_ before word_
// fails foreign_waiter at once, and announce() without the fold fails both
// tests (lost wake-up).
#include <chrono>
#include <cstdint>

#include "stealpool/forkjoin/group_count.hpp"

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

// --- mutant policies -------------------------------------------------------------

// Acquire loads become relaxed (RMWs keep their orders).
using RelaxedAcquireLoadSync = stealpool::model::WeakerLoadSync<std::memory_order::acquire, std::memory_order::relaxed>;

// fetch_sub becomes relaxed: a finish publishes nothing.
template <class U>
class RelaxedFetchSubAtomic : public RelacyAtomic<U> {
 public:
  using RelacyAtomic<U>::RelacyAtomic;
  U fetch_sub(typename RelacyAtomic<U>::add_type v, std::memory_order,
              const SourceLocation& loc = SourceLocation::current()) {
    return RelacyAtomic<U>::fetch_sub(v, std::memory_order::relaxed, loc);
  }
};
struct RelaxedFetchSubSync : RelacySync {
  template <class U>
  using atomic = RelaxedFetchSubAtomic<U>;
};

// TaskGroup's wait, reduced to the count: probe; else fold and announce (false:
// nothing pending after all), park, clear. `who` is the waiter field's value.
template <class Count>
void wait_for(Count& count, FakeParker& parker, std::uint64_t who) {
  while (!count.done()) {
    if (!count.announce(who)) return;
    const bool woken = parker.park();
    RL_ASSERT(woken);  // otherwise asleep for ever with tasks finished: a lost wake-up
    count.clear_waiter();
  }
}

// A finish by a thread that is not the waiting owner, with TaskGroup's wake-up.
template <class Count>
void finish_shared(Count& count, FakeParker& parker) {
  if (count.shared_finished() != 0) parker.unpark();
}

// --- the tests -------------------------------------------------------------------

template <class Sync>
struct OwnerWaitsThiefFinishes : rl::test_suite<OwnerWaitsThiefFinishes<Sync>, 2> {
  using Count = stealpool::detail::BasicGroupCount<Sync>;
  static constexpr std::uint64_t kOwner = 1;  // worker 0's waiter value (id + 1)

  Count count;
  FakeParker parker;
  RelacyAtomic<int> handoff{0};  // the deque: task 1, owner -> thief
  RelacyAtomic<int> thief_done{0};
  rl::var<int> result[2];

  void before() { g_unparkers_done = &thief_done; }

  void thread(unsigned index) {
    if (index == 0) {  // the owner
      count.owner_spawned();
      count.owner_spawned();
      handoff.store(1, std::memory_order::release);  // task 1: pushed, and stolen
      result[0]($) = 10;                             // task 0 runs on the owner, which waits
      count.owner_finished();
      wait_for(count, parker, kOwner);
      RL_ASSERT(result[0]($) == 10);
      RL_ASSERT(result[1]($) == 11);
    } else {  // the thief
      while (handoff.load(std::memory_order::acquire) == 0) rl::yield(1, $);
      result[1]($) = 11;
      finish_shared(count, parker);
      thief_done.store(1, std::memory_order::seq_cst);
    }
  }

  void after() { RL_ASSERT(count.done()); }
};

template <class Sync>
struct ForeignWaiter : rl::test_suite<ForeignWaiter<Sync>, 3> {
  using Count = stealpool::detail::BasicGroupCount<Sync>;
  static constexpr std::uint64_t kExternal = Count::kExternal;

  Count count;
  FakeParker parker;
  RelacyAtomic<int> go{0};       // the group handed to the waiter, after t1 and t2 were spawned
  RelacyAtomic<int> handoff{0};  // t2: owner -> thief
  RelacyAtomic<int> unparkers_done{0};
  RelacyAtomic<int> finished_threads{0};
  rl::var<int> result[3];

  void before() { g_unparkers_done = &unparkers_done; }

  void finished() {
    if (finished_threads.fetch_add(1, std::memory_order::seq_cst) == 1)
      unparkers_done.store(1, std::memory_order::seq_cst);
  }

  void thread(unsigned index) {
    if (index == 0) {  // the owner (it does not wait: its finishes are shared)
      count.owner_spawned();  // t1
      count.owner_spawned();  // t2
      go.store(1, std::memory_order::release);
      handoff.store(1, std::memory_order::release);
      result[0]($) = 1;       // t1 runs on the owner...
      count.owner_spawned();  // ...spawns t3 on the owner's thread...
      finish_shared(count, parker);  // ...and finishes
      result[2]($) = 3;              // t3
      finish_shared(count, parker);
      finished();
    } else if (index == 1) {  // the thief: t2
      while (handoff.load(std::memory_order::acquire) == 0) rl::yield(1, $);
      result[1]($) = 2;
      finish_shared(count, parker);
      finished();
    } else {  // the waiter
      while (go.load(std::memory_order::acquire) == 0) rl::yield(1, $);
      wait_for(count, parker, kExternal);
      RL_ASSERT(result[0]($) == 1);
      RL_ASSERT(result[1]($) == 2);
      RL_ASSERT(result[2]($) == 3);
    }
  }

  void after() { RL_ASSERT(count.done()); }
};

// private_uncount: the mutant, t2 taken back in the owner's count.
template <class Sync, bool private_uncount>
struct FailedSpawn : rl::test_suite<FailedSpawn<Sync, private_uncount>, 2> {
  using Count = stealpool::detail::BasicGroupCount<Sync>;

  Count count;
  FakeParker parker;
  RelacyAtomic<int> go{0};
  RelacyAtomic<int> owner_done{0};
  rl::var<int> result;

  void before() { g_unparkers_done = &owner_done; }

  void thread(unsigned index) {
    if (index == 0) {  // the owner; it does not wait
      count.owner_spawned();  // t1
      go.store(1, std::memory_order::release);
      count.owner_spawned();  // t1 spawns t2...
      if (private_uncount) count.owner_finished();  // ...whose push fails: taken back
      else finish_shared(count, parker);
      result($) = 1;                 // t1's work
      finish_shared(count, parker);  // t1 finishes
      owner_done.store(1, std::memory_order::seq_cst);
    } else {  // the waiter
      while (go.load(std::memory_order::acquire) == 0) rl::yield(1, $);
      wait_for(count, parker, Count::kExternal);
      RL_ASSERT(result($) == 1);
    }
  }

  void after() { RL_ASSERT(count.done()); }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace stealpool::model;
  Runner run(parse_args(argc, argv, 200000), "model_group_count.log");

  run.check<OwnerWaitsThiefFinishes<RelacySync>>("group count: owner waits, thief finishes");
  run.check<ForeignWaiter<RelacySync>>("group count: foreign waiter, owner spawns meanwhile");
  run.check<FailedSpawn<RelacySync, false>>("group count: a failed spawn taken back as a finish");

  run.mutant<ForeignWaiter<RelaxedAcquireLoadSync>>("MUTANT [TG-count] waiter's acquire loads relaxed");
  run.mutant<OwnerWaitsThiefFinishes<RelaxedFetchSubSync>>("MUTANT [TG-count] finish fetch_sub relaxed");
  run.mutant<ForeignWaiter<RelaxedFetchSubSync>>("MUTANT [TG-count] finish fetch_sub relaxed (foreign)");
  run.mutant<FailedSpawn<RelacySync, true>>("MUTANT a failed spawn taken back privately");

  return run.exit_code();
}

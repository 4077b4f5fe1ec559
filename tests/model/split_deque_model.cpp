// tests/model/split_deque_model.cpp: Relacy model checks of the real
// stealpool::SplitDeque<T, Sync> (queue/split_deque.hpp), instantiated with the
// Relacy policy of relacy_sync.hpp. See queue/README.md, "Split deque", for the
// protocol and the tags named below.
//
// Checks (each under the random and the context-bound scheduler; thread 0 is the
// owner, the others thieves):
//   (a) push2_pop2        owner pushes 0 (published: first push into an empty
//                         deque) and 1 (private), pops twice; a thief steals once
//   (b) last_item         1 public item: owner pop vs 1 thief, and vs 2 thieves
//                         (the [SD-claim] CAS decides)
//       reclaim           2 public items (1 2, published on a request) and 1
//                         private (3): owner pops 4 times (private, the fence
//                         path without CAS, the last-item CAS) vs 1 thief
//                         stealing twice, and vs 2 thieves stealing once each
//   (c) request_publish   owner pushes 0 1 2; the thief fails, requests and says
//                         so; the owner's next push must publish (1 2); the
//                         thief steals them while the owner pops everything
//   (d) slot_reuse        capacity 2: owner pushes 0 1 2 (2 fits only if the
//                         thief took 0: [SD-reuse], onto slot 0), pops twice,
//                         pushes 3 and pops twice, over slots a slow thief
//                         (three steals) may be reading
//   (e) publish_all       owner pushes 0 1 2 and publishes all of them unasked,
//                         then pops 3 times; a thief steals 3 times from the start
// Every item carries a check word: a read of an unwritten or torn slot (Item{0,0},
// or half of another item) is a failure, not just a wrong count; a stale read of a
// reused slot shows as an item taken twice. Every item must be taken exactly once
// by the threads themselves (no drain: a pop that says "empty" while an item is
// left is a lost item). Each check also counts the executions in which a thief
// took an item on the path the scenario is about; a count of zero fails the
// program (the scenario would prove nothing).
//
// Thieves in (b)/reclaim and (c) wait for a relaxed flag before stealing: it
// orders the steps of the scenario without creating happens-before (Relacy lets
// a relaxed load read stale values), so the deque's own orders are what is
// checked. (c)'s owner waits for the thief's "asked" flag with acquire: that
// orders the thief's request before the owner's push (thief -> owner only).
//
// Mutants (must be reported), made by instantiating the same deque with a policy
// that breaks one synchronising pair, so no copy of the algorithm exists here:
//   pop fence weakened     [SD-pop-fence] seq_cst -> acq_rel    run on reclaim x1
//   steal fence weakened   [SD-steal-fence] seq_cst -> acq_rel  run on reclaim x2
//   publish relaxed        [SD-publish] release -> relaxed      run on (a), (c) and (e)
//   release stores relaxed [SD-publish] + [SLOT-publish]        run on (c) and (d)
//   CAS split              [SD-claim] CAS -> load, then store   run on (b) last item x1, x2
// Also reported when tried by hand: pop fence weakened on reclaim x2, (c), (d);
// steal fence weakened on reclaim x1; publish relaxed on last item x1, (d); CAS
// split on (a). Not reported, as expected: a weakened fence on (a) or on last
// item (with one public item the owner always takes it with the CAS, so the
// fences are not needed there: only reclaim, (c) and (d), which have two public
// items, can show a fence bug), and publish relaxed on reclaim (the owner's own
// steal in its setup CASes top after writing items 1 and 2, and a thief's
// acquire load of top reads that CAS, so the items reach the thieves through
// [SD-claim] instead).
//
// Mutations of split_deque.hpp itself, each compiled from a mutated copy of the
// header put first on the include path (the production header untouched), and
// which checks then failed (r = random scheduler, cb = context-bound, bound 2):
//   [SD-pop-fence] fence deleted              reclaim x1, x2 (r, cb); (c) (r, cb); (d) (r)
//   [SD-steal-fence] fence deleted            reclaim x1, x2 (r, cb); (c) (r, cb); (d) (r)
//   [SD-publish] store relaxed                (a), last item x1, x2, (c), (d) (r, cb)
//   push: slot written after the publish      (a), last item x1, x2, (c), (d) (r, cb)
//   pop_public: last item taken without CAS   every check (r, cb)
//     (`if (t < b)` -> `if (t <= b)`)
//   push: full check one slot too generous    (d) only (r, cb)
//     (`h - top_seen_ > mask_` -> `> mask_ + 1`, both tests)
//   steal: request never raised               (c) and reclaim (their asserts that
//                                             a seen request is served)
// Not reportable by Relacy: [SD-reuse] acquire -> relaxed (all three owner loads
// of top). A thief reads slot t before its CAS on top; Relacy executes operations
// in an interleaving, so a load never reads a store that comes later in it (no
// load buffering), and the owner writes slot t + capacity only after reading that
// CAS. (In C++ it is also covered by [SLOT-publish]: the slot words are
// release/acquire, so a thief's read that saw the owner's overwrite would make the
// owner's load of top happen before the CAS it read.)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <type_traits>

#include "stealpool/queue/split_deque.hpp"

// Relacy last: after every standard and stealpool header.
#include "model_common.hpp"
#include "model_main.hpp"

namespace {

using stealpool::PushResult;
using stealpool::model::check_of;
using stealpool::model::Item;
using stealpool::model::make_item;
using stealpool::model::RelacyAtomic;
using stealpool::model::RelacySync;
using stealpool::model::RelaxedReleaseSync;
using stealpool::model::SourceLocation;

// --- mutant policies -------------------------------------------------------------

// [SD-pop-fence] weakened: pop_public's fence is the owner's only fence (the
// owner's own steal() calls in the reclaim setup lose theirs too: harmless, no
// thief runs yet).
using PopFenceWeakSync = stealpool::model::OwnerFenceWeakSync;

// [SD-steal-fence] weakened: the thieves' seq_cst fence becomes acq_rel.
using StealFenceWeakSync = stealpool::model::ThiefFenceWeakSync;

// [SD-publish] alone relaxed: the release stores of the deque's indices (the only
// ones are of split) become relaxed. Slot words are std::uint64_t atomics and keep
// [SLOT-publish]; the indices are std::int64_t.
template <class U>
class IndexReleaseRelaxedAtomic : public RelacyAtomic<U> {
 public:
  using RelacyAtomic<U>::RelacyAtomic;
  void store(U value, std::memory_order order = std::memory_order::seq_cst,
             const SourceLocation& loc = SourceLocation::current()) {
    if constexpr (std::is_same_v<U, std::int64_t>)
      if (order == std::memory_order::release) order = std::memory_order::relaxed;
    RelacyAtomic<U>::store(value, order, loc);
  }
};
struct PublishRelaxedSync : RelacySync {
  template <class U>
  using atomic = IndexReleaseRelaxedAtomic<U>;
};

// [SD-claim] broken: compare_exchange_strong done as a load and a later store, so
// another thread can run between them (orders kept).
template <class U>
class SplitCasAtomic : public RelacyAtomic<U> {
  using Base = RelacyAtomic<U>;

 public:
  using Base::Base;
  bool compare_exchange_strong(U& expected, U desired, std::memory_order success, std::memory_order,
                               const SourceLocation& loc = SourceLocation::current()) {
    const U seen = Base::load(success, loc);
    if (seen != expected) {
      expected = seen;
      return false;
    }
    Base::store(desired, success, loc);
    return true;
  }
};
struct SplitCasSync : RelacySync {
  template <class U>
  using atomic = SplitCasAtomic<U>;
};

// --- the test harness -------------------------------------------------------------

// Threads: Relacy threads (0 = owner). Items: values 0..Items-1 pushed by the
// test. Every item must be taken by the threads themselves, exactly once.
template <class Derived, int Threads, int Items, class Sync>
struct DequeTest : rl::test_suite<Derived, Threads> {
  using Deque = stealpool::SplitDeque<Item, Sync>;
  Deque deque;
  int taken[Threads][Items] = {};

  explicit DequeTest(std::size_t capacity) : deque(capacity) {}

  void take(int row, const Item& item) {
    RL_ASSERT(item.value >= 0 && item.value < Items);  // no garbage...
    RL_ASSERT(item.check == check_of(item.value));     // ...and no torn item
    if (item.value >= 0 && item.value < Items) ++taken[row][item.value];
  }
  PushResult push(int v) {
    const PushResult r = deque.push(make_item(v));
    if (r == PushResult::full) take(0, make_item(v));  // the owner runs it itself
    return r;
  }
  void pop() {
    if (std::optional<Item> x = deque.pop()) take(0, *x);
  }
  stealpool::Steal<Item> steal(int row) {
    stealpool::Steal<Item> s = deque.steal();
    if (s.is_success()) take(row, s.value());
    return s;
  }
  // Steals until a steal says empty (which raises the request), at most `tries`.
  void steal_until_empty(int row, int tries) {
    for (int i = 0; i < tries; ++i)
      if (steal(row).is_empty()) return;
  }
  int taken_by_thieves(int v) const {
    int n = 0;
    for (int r = 1; r < Threads; ++r) n += taken[r][v];
    return n;
  }

  void after() {
    RL_ASSERT(deque.empty_hint());
    for (int v = 0; v < Items; ++v) {
      int n = 0;
      for (int r = 0; r < Threads; ++r) n += taken[r][v];
      RL_ASSERT(n == 1);  // every item taken exactly once: none lost, none duplicated
    }
  }
};

// A flag that orders steps of a scenario. relaxed: no happens-before (see the top).
struct Gate {
  RelacyAtomic<int> flag{0};
  void open_relaxed() { flag.store(1, std::memory_order::relaxed); }
  void wait_relaxed() {
    while (flag.load(std::memory_order::relaxed) == 0) RelacySync::spin_pause();
  }
};

// (a) owner pushes 0 (first push into an empty deque: published) and 1 (private)
// and pops both while one thief steals once: the thief may take 0 ([SD-publish]),
// racing the owner's reclaim of it as the last public item.
template <class Sync>
struct PushPopSteal : DequeTest<PushPopSteal<Sync>, 2, 2, Sync> {
  static inline unsigned long hits = 0;  // executions where the thief took item 0
  PushPopSteal() : DequeTest<PushPopSteal<Sync>, 2, 2, Sync>(4) {}
  void thread(unsigned index) {
    if (index == 0) {
      RL_ASSERT(this->push(0) == PushResult::published);
      RL_ASSERT(this->push(1) != PushResult::full);
      this->pop();
      this->pop();
    } else {
      (void)this->steal(1);
    }
  }
  void after() {
    DequeTest<PushPopSteal<Sync>, 2, 2, Sync>::after();
    hits += this->taken[1][0];
  }
};

// (b) the last public item: owner pop vs Thieves thieves stealing once each.
template <class Sync, int Thieves>
struct LastItem : DequeTest<LastItem<Sync, Thieves>, 1 + Thieves, 1, Sync> {
  static inline unsigned long hits = 0;  // executions where a thief won
  LastItem() : DequeTest<LastItem<Sync, Thieves>, 1 + Thieves, 1, Sync>(2) {}
  void thread(unsigned index) {
    if (index == 0) {
      RL_ASSERT(this->push(0) == PushResult::published);
      this->pop();
    } else {
      (void)this->steal(static_cast<int>(index));
    }
  }
  void after() {
    DequeTest<LastItem<Sync, Thieves>, 1 + Thieves, 1, Sync>::after();
    hits += this->taken_by_thieves(0) > 0 ? 1 : 0;
  }
};

// (b) reclaim: the owner makes 1 2 public (it steals 0 itself, fails a steal,
// which requests, and pushes 3, which publishes the older half of 1 2 3), opens
// the gate and pops 4 times: 3 (private), 2 (two public: the fence path, no
// CAS), 1 (the last-item CAS), then nothing. Thieves: StealsEach steals each.
template <class Sync, int Thieves, int StealsEach>
struct Reclaim : DequeTest<Reclaim<Sync, Thieves, StealsEach>, 1 + Thieves, 4, Sync> {
  using Base = DequeTest<Reclaim<Sync, Thieves, StealsEach>, 1 + Thieves, 4, Sync>;
  static inline unsigned long hits = 0;  // executions where a thief took item 2
  Gate ready;
  Reclaim() : Base(4) {}
  void thread(unsigned index) {
    if (index == 0) {
      RL_ASSERT(this->push(0) == PushResult::published);
      RL_ASSERT(this->push(1) == PushResult::kept_private);
      RL_ASSERT(this->push(2) == PushResult::kept_private);
      RL_ASSERT(this->steal(0).is_success());
      RL_ASSERT(this->steal(0).is_empty());
      RL_ASSERT(this->push(3) == PushResult::published);
      ready.open_relaxed();
      for (int i = 0; i < 4; ++i) this->pop();
    } else {
      ready.wait_relaxed();
      for (int i = 0; i < StealsEach; ++i) (void)this->steal(static_cast<int>(index));
    }
  }
  void after() {
    Base::after();
    hits += this->taken_by_thieves(2) > 0 ? 1 : 0;
  }
};

// (e) publish_all: the owner pushes 0 (published) 1 2 and makes all of them
// public unasked, then pops 3 times, while one thief steals 3 times from the
// start. Items pushed privately reach the thief only through publish_all's
// [SD-publish] release (or a publish on the thief's request).
template <class Sync>
struct PublishAll : DequeTest<PublishAll<Sync>, 2, 3, Sync> {
  static inline unsigned long hits = 0;  // executions where the thief took 1 or 2
  PublishAll() : DequeTest<PublishAll<Sync>, 2, 3, Sync>(4) {}
  void thread(unsigned index) {
    if (index == 0) {
      RL_ASSERT(this->push(0) == PushResult::published);
      RL_ASSERT(this->push(1) != PushResult::full);
      RL_ASSERT(this->push(2) != PushResult::full);
      (void)this->deque.publish_all();
      for (int i = 0; i < 3; ++i) this->pop();
    } else {
      for (int i = 0; i < 3; ++i) (void)this->steal(1);
    }
  }
  void after() {
    DequeTest<PublishAll<Sync>, 2, 3, Sync>::after();
    hits += this->taken[1][1] + this->taken[1][2] > 0 ? 1 : 0;
  }
};

// (c) request/publish: the owner pushes 0 1 2 (0 public) and lets the thief go;
// the thief steals until it finds nothing public (so it asks) and says so with
// release; the owner's next push must see the request and publish the older half
// of 1 2 3 ([SD-publish]); the thief steals twice more while the owner pops 4
// times. Items 1 and 2 reach the thief only through that publish.
template <class Sync>
struct RequestPublish : DequeTest<RequestPublish<Sync>, 2, 4, Sync> {
  static inline unsigned long hits = 0;  // executions where the thief took 1 or 2
  Gate pushed;
  RelacyAtomic<int> asked{0};
  RequestPublish() : DequeTest<RequestPublish<Sync>, 2, 4, Sync>(4) {}
  void thread(unsigned index) {
    if (index == 0) {
      RL_ASSERT(this->push(0) == PushResult::published);
      RL_ASSERT(this->push(1) == PushResult::kept_private);
      RL_ASSERT(this->push(2) == PushResult::kept_private);
      pushed.open_relaxed();
      while (asked.load(std::memory_order::acquire) == 0) RelacySync::spin_pause();
      RL_ASSERT(this->push(3) == PushResult::published);  // a seen request is served
      for (int i = 0; i < 4; ++i) this->pop();
    } else {
      pushed.wait_relaxed();
      this->steal_until_empty(1, 2);  // 0 is the only public item: at most 2 tries
      asked.store(1, std::memory_order::release);
      (void)this->steal(1);
      (void)this->steal(1);
    }
  }
  void after() {
    DequeTest<RequestPublish<Sync>, 2, 4, Sync>::after();
    hits += this->taken[1][1] + this->taken[1][2] > 0 ? 1 : 0;
  }
};

// (d) slot reuse at capacity 2 (slot = index & 1): push 2 fits only after the
// thief took 0 and then goes onto slot 0 ([SD-reuse]); the pops take items back
// (maybe racing the thief for the last public one), and push 3 lands on a slot
// that held an earlier item, while the thief, three steals long, may be reading
// any slot with a stale top.
template <class Sync>
struct SlotReuse : DequeTest<SlotReuse<Sync>, 2, 4, Sync> {
  static inline unsigned long hits = 0;  // executions where push 2 reused slot 0
  bool reused = false;
  SlotReuse() : DequeTest<SlotReuse<Sync>, 2, 4, Sync>(2) {}
  void thread(unsigned index) {
    if (index == 0) {
      RL_ASSERT(this->push(0) == PushResult::published);
      RL_ASSERT(this->push(1) != PushResult::full);  // published if the thief asked
      reused = this->push(2) != PushResult::full;
      this->pop();
      this->pop();
      RL_ASSERT(this->push(3) != PushResult::full);
      this->pop();
      this->pop();
    } else {
      (void)this->steal(1);
      (void)this->steal(1);
      (void)this->steal(1);
    }
  }
  void after() {
    DequeTest<SlotReuse<Sync>, 2, 4, Sync>::after();
    hits += reused ? 1 : 0;
  }
};

// Coverage of the scenario's path over all executions of its check.
bool covered(const char* name, unsigned long hits) {
  std::printf("       %-44s %lu executions took the path under test%s\n", name, hits,
              hits == 0 ? ": NONE, the check proved nothing" : "");
  return hits > 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace stealpool::model;
  Runner run(parse_args(argc, argv, 200000), "model_split_deque.log");
  bool ok = true;

  run.check<PushPopSteal<RelacySync>>("split_deque (a) push2/pop2 vs 1 thief");
  ok &= covered("(thief took the published item)", PushPopSteal<RelacySync>::hits);
  run.check<LastItem<RelacySync, 1>>("split_deque (b) last item: pop vs 1 thief");
  ok &= covered("(a thief won)", LastItem<RelacySync, 1>::hits);
  run.check<LastItem<RelacySync, 2>>("split_deque (b) last item: pop vs 2 thieves");
  ok &= covered("(a thief won)", LastItem<RelacySync, 2>::hits);
  run.check<Reclaim<RelacySync, 1, 2>>("split_deque (b) reclaim 2 public vs 1 thief x2");
  ok &= covered("(a thief took item 2)", Reclaim<RelacySync, 1, 2>::hits);
  run.check<Reclaim<RelacySync, 2, 1>>("split_deque (b) reclaim 2 public vs 2 thieves");
  ok &= covered("(a thief took item 2)", Reclaim<RelacySync, 2, 1>::hits);
  run.check<RequestPublish<RelacySync>>("split_deque (c) request, publish, steal");
  ok &= covered("(the thief took a published-on-request item)", RequestPublish<RelacySync>::hits);
  run.check<PublishAll<RelacySync>>("split_deque (e) publish_all vs 1 thief x3");
  ok &= covered("(the thief took an item published unasked)", PublishAll<RelacySync>::hits);
  run.check<SlotReuse<RelacySync>>("split_deque (d) slot reuse at capacity 2");
  ok &= covered("(push 2 reused slot 0)", SlotReuse<RelacySync>::hits);

  run.mutant<Reclaim<PopFenceWeakSync, 1, 2>>("MUTANT pop fence seq_cst->acq_rel");
  run.mutant<Reclaim<StealFenceWeakSync, 2, 1>>("MUTANT steal fence seq_cst->acq_rel");
  run.mutant<PushPopSteal<PublishRelaxedSync>>("MUTANT (a) [SD-publish] release->relaxed");
  run.mutant<RequestPublish<PublishRelaxedSync>>("MUTANT (c) [SD-publish] release->relaxed");
  run.mutant<RequestPublish<RelaxedReleaseSync>>("MUTANT (c) release stores -> relaxed");
  run.mutant<PublishAll<PublishRelaxedSync>>("MUTANT (e) [SD-publish] release->relaxed");
  run.mutant<SlotReuse<RelaxedReleaseSync>>("MUTANT (d) release stores -> relaxed");
  run.mutant<LastItem<SplitCasSync, 1>>("MUTANT (b) CAS split, 1 thief");
  run.mutant<LastItem<SplitCasSync, 2>>("MUTANT (b) CAS split, 2 thieves");

  const int code = run.exit_code();
  if (!ok) std::printf("a check's scenario never took its path: failing\n");
  return ok ? code : 1;
}

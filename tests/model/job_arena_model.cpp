// tests/model/job_arena_model.cpp: Relacy model check of the real
// stealpool::detail::BasicJobArena<Sync, 2> (forkjoin/job_arena.hpp), the
// per-worker storage of TaskGroup jobs. See forkjoin/README.md, "Job storage",
// for the protocol and [ARENA-return].
//
// The scenario: the owner (thread 0) allocates both blocks of its first chunk,
// writes a job into each and hands them to two other workers through a
// release/acquire handoff (standing in for the deque). Each of them reads its
// job and releases the block, which goes onto the owner's `returned_` stack.
// Meanwhile the owner keeps allocating: when a block comes back to it, it
// writes a new job into it. The job's contents are Relacy variables, so if the
// owner's write is not ordered after the other worker's read ([ARENA-return]),
// Relacy reports a data race; a block handed out twice at once fails an
// assert.
//
// Mutant (must be reported): the release CAS and the acquire exchange of
// [ARENA-return] made relaxed.
#include <cstddef>

#include "stealpool/forkjoin/job_arena.hpp"

// Relacy last: after every standard and stealpool header.
#include "model_common.hpp"
#include "model_main.hpp"

namespace {

using stealpool::model::RelacyAtomic;
using stealpool::model::RelacySync;
using stealpool::model::SourceLocation;

// [ARENA-return]'s orders weakened: every RMW relaxed.
template <class U>
class RelaxedRmwAtomic : public RelacyAtomic<U> {
 public:
  using RelacyAtomic<U>::RelacyAtomic;
  U exchange(U value, std::memory_order, const SourceLocation& loc = SourceLocation::current()) {
    return RelacyAtomic<U>::exchange(value, std::memory_order::relaxed, loc);
  }
  bool compare_exchange_weak(U& expected, U desired, std::memory_order, std::memory_order,
                             const SourceLocation& loc = SourceLocation::current()) {
    return RelacyAtomic<U>::compare_exchange_weak(expected, desired, std::memory_order::relaxed,
                                                  std::memory_order::relaxed, loc);
  }
};
struct RelaxedRmwSync : RelacySync {
  template <class U>
  using atomic = RelaxedRmwAtomic<U>;
};

template <class Sync>
struct ReturnToOwner : rl::test_suite<ReturnToOwner<Sync>, 3> {
  using Arena = stealpool::detail::BasicJobArena<Sync, 2>;

  Arena* arena = nullptr;
  RelacyAtomic<void*> handoff[2];  // owner -> worker 1, 2 (the deque's role)
  void* first[2] = {};             // the blocks handed out
  // The contents of the two handed-out blocks, as Relacy variables (a job's
  // fields in the real pool). Kept here, by block, rather than constructed in
  // the block: Relacy treats a newly constructed variable as unrelated to the
  // one destroyed before it at that address, and would miss the race.
  rl::var<int> contents[2];
  int came_back = 0;  // blocks the owner got back from the returned stack

  void before() { arena = new Arena(); }
  void after() {
    delete arena;  // frees the chunks: no block is in use any more
  }

  void thread(unsigned index) {
    if (index == 0) {
      for (int i = 0; i < 2; ++i) {
        first[i] = arena->allocate();
        contents[i]($) = 10 + i;                                  // the job is written...
        handoff[i].store(first[i], std::memory_order::release);  // ...and published, as a deque push does
      }
      RL_ASSERT(first[0] != first[1]);
      // Allocate until the free list has been empty three more times: each
      // time the owner takes the returned stack, or carves a chunk. A block
      // that came back is written: the racing access if [ARENA-return] does
      // not order it after the other worker's use.
      void* mine[6] = {};
      for (int round = 0; round < 6; ++round) {
        void* b = mine[round] = arena->allocate();
        for (int k = 0; k < round; ++k) RL_ASSERT(mine[k] != b);  // never handed out twice
        for (int i = 0; i < 2; ++i) {
          if (b == first[i]) {
            contents[i]($) = 20 + round;
            ++came_back;
          }
        }
      }
      for (void* b : mine) Arena::release(b, arena);  // the owner's own path: its free list
    } else {
      const int i = static_cast<int>(index) - 1;
      void* b = nullptr;
      while ((b = handoff[i].load(std::memory_order::acquire)) == nullptr) rl::yield(1, $);
      RL_ASSERT(b == first[i]);
      RL_ASSERT(contents[i]($) == 10 + i);  // the job runs...
      Arena::release(b, nullptr);           // ...and another worker gives its block back
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace stealpool::model;
  Runner run(parse_args(argc, argv, 200000), "model_job_arena.log");

  run.check<ReturnToOwner<RelacySync>>("job arena: 2 blocks returned by 2 workers while the owner allocates");

  run.mutant<ReturnToOwner<RelaxedRmwSync>>("MUTANT [ARENA-return] relaxed");

  return run.exit_code();
}

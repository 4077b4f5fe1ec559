// stealpool/engine/core/wait_step.hpp: the fork-join policy of a worker that
// waits, written once and shared by the threaded pool (forkjoin/thread_pool.hpp,
// ExecutorWorker::wait_until) and the deterministic simulator (sim/).
//
// take_back_step(): after join()'s first branch returned, one pop of the own
//                   deque: the pushed job itself (run it inline), another job
//                   left above it (run it, then pop again), or nothing (the
//                   pushed job was stolen: wait for its latch).
// wait_step():      one round of a helping wait: return once the latch is set,
//                   else run one job from wherever pop_task finds it, else ask
//                   the idle policy what to do. The caller carries out the idle
//                   action; for `should_park` it sleeps on the latch (settle,
//                   announce, re-check, park: ExecutorWorker::sleep_on).
//
// As with worker_step(), mechanism stays with the caller, so the simulator can
// run the same steps over virtual workers. Both are on the fork-join hot path
// (every join() takes its job back through take_back_step) and are inlined.
// ExecutorWorker::wait_until also runs wait_step's first branch (latch, else
// the own deque's newest job) as a loop of its own before the general one: the
// same policy, without the idle state and bookkeeping, for the common wait
// whose jobs are all on the own deque.
//
// Ctx, besides what pop_task() needs (core/worker_step.hpp):
//   void ran_inline();       the popped job is the caller's own: count it as run
//   void run_popped(Item);   run a job popped from the own deque
// Latch:
//   bool probe() const;      the awaited event happened (acquire: the job's
//                            effects are visible)
#pragma once

#include <cstdint>
#include <utility>

#include "stealpool/engine/core/worker_step.hpp"

namespace stealpool::detail {

enum class TakeBack : std::uint8_t {
  popped_back,  // the pushed job: the caller runs it inline (its latch is never touched)
  ran_other,    // a job pushed after it and left there (a TaskGroup task): it ran; pop again
  stolen,       // nothing left: a thief has the pushed job; wait for its latch
};

// Why "nothing" means stolen: thieves take the oldest public item first, so if
// the pushed job is gone, everything pushed before it is gone too, and
// everything pushed after it was popped before the first branch returned or is
// still above it (forkjoin/README.md, "join(a, b)").
template <class Ctx, class Item>
[[gnu::always_inline]] inline TakeBack take_back_step(Ctx& ctx, const Item& pushed) {
  auto top = ctx.pop_local();
  if (!top) return TakeBack::stolen;
  if (*top == pushed) {
    ctx.ran_inline();
    return TakeBack::popped_back;
  }
  ctx.run_popped(std::move(*top));
  return TakeBack::ran_other;
}

enum class WaitKind : std::uint8_t { latch_set, ran_task, no_work, should_park };
struct WaitResult {
  WaitKind kind;
  IdleAction action{IdleKind::spin};  // no_work, should_park
};

// Unlike worker_step(), no check of the executor's end: its first check exits
// when the executor is done, and a waiter must keep running the jobs it waits
// for even then.
template <class Ctx, class Latch, class Idle, class Trace>
[[gnu::always_inline]] inline WaitResult wait_step(Ctx& ctx, Latch& latch, Idle& idle, Trace& trace) {
  if (latch.probe()) return {WaitKind::latch_set};
  if (auto popped = pop_task(ctx, trace)) {
    idle.on_work();
    trace.on_pop(ctx.worker_id(), popped->source, popped->victim);
    count_task(ctx.core_metrics(), popped->source);
    (void)ctx.run(std::move(popped->item));  // a job keeps its own exception: never false
    return {WaitKind::ran_task};
  }
  const IdleAction action = idle.on_idle();
  trace.on_idle(ctx.worker_id(), action.kind);
  return {action.kind == IdleKind::park ? WaitKind::should_park : WaitKind::no_work, action};
}

}  // namespace stealpool::detail

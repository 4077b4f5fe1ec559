// stealpool/engine/core/worker_step.hpp: the scheduling policy, written once
// and shared by the threaded Executor and the deterministic simulator (sim/).
//
// pop_task():    where the next task comes from: own deque (LIFO), then the
//                injector (a batch moves to the own deque), then up to steal_tries
//                random victims (FIFO), never the worker itself (the last two:
//                pop_task_elsewhere()).
// worker_step(): one step of a worker: exit if done, else pop and run a task, else
//                ask the idle policy what to do. The caller carries out the action
//                (spin, yield, park): mechanism stays with the caller, so the
//                simulator can replace threads and futexes with virtual ones.
//
// Both are templates over a context `Ctx` that provides:
//   std::optional<Item> pop_local();
//   Steal<Item> steal_injector();                 // batch into own deque, pop one
//   Steal<Item> steal_from(std::size_t victim);
//   std::size_t worker_id() const, worker_count() const;
//   std::uint32_t steal_tries() const;
//   XorShift64& victim_rng();
//   WorkerMetrics& core_metrics();
//   bool is_done() const;
//   bool run(Item&&);                             // false: the task threw
// an idle policy (see tiered_idle.hpp) and trace hooks (NoopTrace: zero cost).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

#include "stealpool/metrics.hpp"
#include "stealpool/queue/steal.hpp"
#include "stealpool/rng.hpp"

namespace stealpool::detail {

enum class PopSource : std::uint8_t { local, injector, steal };

enum class IdleKind : std::uint8_t { spin, yield, park };
struct IdleAction {
  IdleKind kind;
  std::chrono::nanoseconds timeout{0};  // for park only; Parker::kForever for none
};

enum class StepKind : std::uint8_t { ran_task, no_work, should_park, exit_done, exit_panicked };
struct StepResult {
  StepKind kind;
  PopSource source = PopSource::local;  // ran_task, exit_panicked
  std::size_t victim = 0;               // ran_task from steal
  IdleAction action{IdleKind::spin};    // no_work, should_park
};

template <class Item>
struct Popped {
  Item item;
  PopSource source;
  std::size_t victim;  // meaningful for PopSource::steal
};

// Trace hooks: every hook is a no-op here, so the optimiser removes the calls.
struct NoopTrace {
  void on_pop(std::size_t /*worker*/, PopSource, std::size_t /*victim*/) noexcept {}
  void on_steal_attempt(std::size_t /*worker*/, std::size_t /*victim*/, StealStatus) noexcept {}
  void on_task_end(std::size_t /*worker*/, bool /*ok*/) noexcept {}
  void on_idle(std::size_t /*worker*/, IdleKind) noexcept {}
  void on_park(std::size_t /*worker*/) noexcept {}
  void on_unpark(std::size_t /*worker*/, bool /*notified*/) noexcept {}
  void on_exit(std::size_t /*worker*/) noexcept {}
};

// The victim for a steal attempt: uniform over the other workers, never `self`.
// Precondition: workers >= 2.
inline std::size_t pick_victim(XorShift64& rng, std::size_t self, std::size_t workers) noexcept {
  std::size_t v = rng.next_below(workers - 1);
  if (v >= self) ++v;
  return v;
}

// Counts a task about to run, by where it came from.
inline void count_task(WorkerMetrics& m, PopSource source) noexcept {
  ++m.tasks_executed;
  switch (source) {
    case PopSource::local: ++m.tasks_from_local; break;
    case PopSource::injector: ++m.tasks_from_injector; break;
    case PopSource::steal: ++m.tasks_from_steal; break;
  }
}

template <class Ctx>
using PoppedOf = Popped<typename decltype(std::declval<Ctx&>().pop_local())::value_type>;

// pop_task() after the own deque came up empty: the injector, then victims.
// Not forced inline (the compiler decides): a worker comes here once per
// injector batch or steal, not per task.
template <class Ctx, class Trace>
std::optional<PoppedOf<Ctx>> pop_task_elsewhere(Ctx& ctx, Trace& trace) {
  using Item = typename decltype(ctx.pop_local())::value_type;
  const std::size_t self = ctx.worker_id();

  // The injector: a lost race (retry) means another consumer got items, not that
  // the queue is empty, so retry a bounded number of times before moving on.
  for (std::uint32_t i = 0; i < ctx.steal_tries(); ++i) {
    Steal<Item> s = ctx.steal_injector();
    if (s.is_success()) return Popped<Item>{std::move(s).value(), PopSource::injector, self};
    if (s.is_empty()) break;
  }

  const std::size_t n = ctx.worker_count();
  if (n < 2) return std::nullopt;
  WorkerMetrics& m = ctx.core_metrics();
  for (std::uint32_t i = 0; i < ctx.steal_tries(); ++i) {
    const std::size_t victim = pick_victim(ctx.victim_rng(), self, n);
    ++m.steal_attempts;
    Steal<Item> s = ctx.steal_from(victim);
    trace.on_steal_attempt(self, victim, s.status());
    if (s.is_success()) {
      ++m.steal_successes;
      return Popped<Item>{std::move(s).value(), PopSource::steal, victim};
    }
  }
  return std::nullopt;
}

template <class Ctx, class Trace>
std::optional<PoppedOf<Ctx>> pop_task(Ctx& ctx, Trace& trace) {
  if (auto item = ctx.pop_local()) return PoppedOf<Ctx>{std::move(*item), PopSource::local, ctx.worker_id()};
  return pop_task_elsewhere(ctx, trace);
}

// Runs a popped task: the step's end for a task from anywhere.
template <class Ctx, class Idle, class Trace, class Item>
[[gnu::always_inline]] inline StepResult run_popped_task(Ctx& ctx, Idle& idle, Trace& trace, Item&& item,
                                                          PopSource source, std::size_t victim) {
  const std::size_t self = ctx.worker_id();
  idle.on_work();
  trace.on_pop(self, source, victim);
  WorkerMetrics& m = ctx.core_metrics();
  count_task(m, source);
  const bool ok = ctx.run(std::move(item));
  trace.on_task_end(self, ok);
  if (!ok) {
    ++m.tasks_failed;
    return {StepKind::exit_panicked, source, victim};
  }
  return {StepKind::ran_task, source, victim};
}

// worker_step() and its pop from the own deque are forced inline into the
// worker's loop: that is the per-task path, and g++ leaves such calls out of
// line in a large translation unit (its unit-growth limit): in stealbench's
// throughput suite pop_task() and ExecutorWorker::run() were calls there, and
// a lone worker spent 128 instructions a task where a small program with the
// same Executor spent 60 (docs/results-log.md, "The worker's loop, inline").
// wait_step() keeps calling pop_task(): forced inline there too (all of it,
// or only its first pop), the join's helping wait grew and fib(32) with a
// join per call ran 1.6-1.8x slower.
// A task from the own deque runs straight from pop_local()'s optional: built
// into a Popped first, a 24-byte task was copied twice more per task, once by a
// `rep movs` (perf, the MPI executor's UTS at 1 worker).
template <class Ctx, class Idle, class Trace>
[[gnu::always_inline]] inline StepResult worker_step(Ctx& ctx, Idle& idle, Trace& trace) {
  const std::size_t self = ctx.worker_id();
  if (ctx.is_done()) {
    trace.on_exit(self);
    return {StepKind::exit_done};
  }
  if (auto item = ctx.pop_local()) return run_popped_task(ctx, idle, trace, std::move(*item), PopSource::local, self);
  if (auto popped = pop_task_elsewhere(ctx, trace))
    return run_popped_task(ctx, idle, trace, std::move(popped->item), popped->source, popped->victim);
  const IdleAction action = idle.on_idle();
  trace.on_idle(self, action.kind);
  return {action.kind == IdleKind::park ? StepKind::should_park : StepKind::no_work,
          PopSource::local, 0, action};
}

}  // namespace stealpool::detail

// stealpool/executor.hpp: Executor<T, S>, the typed-task work-stealing executor
// (seed 000): external producers inject tasks, N workers run them local-first and
// steal when idle.
//
//   Executor<T, S> ex(config, scratch_init, runner);   // workers start at once
//   ex.spawn_external(task);          ex.spawn_external_batch(span);
//   auto h = ex.handle();             h.spawn(task) from any thread
//   MetricsSnapshot m = ex.join();    // close the gate, drain, rethrow
//
// Task type T: any move-constructible type. Small trivially copyable tasks (<= 32
// bytes) travel through the queues by value; others are boxed (one allocation per
// task). Prefer a small struct or enum-tagged union over std::function.
// Scratch type S: per-worker state built on the worker thread by
// scratch_init(worker_id), reachable from every task as ctx.scratch().
// runner(T task, WorkerCtx<T, S>& ctx) runs each task; it may spawn more through
// ctx (spawn_local: own deque, cheapest; spawn_global: the injector). (One
// exception, internal: for T = detail::Job*, the fork-join pool's task, the
// workers call job->execute(job) themselves and never the runner.)
//
// Semantics:
// - spawn/spawn_batch return false, and leave the task(s) with the caller, once the
//   gate is closed (join() or shutdown() began). Spawns from inside running tasks
//   are always accepted, also while join() drains: fork-join trees keep all
//   children.
// - join(): closes the gate, waits until every accepted task has run (including
//   tasks they spawn), stops the workers, returns the merged metrics and rethrows
//   the first exception a task threw. Must not be called from a worker of this
//   executor (std::logic_error). The destructor joins if join() was not called,
//   and then discards a task exception: call join() to see it.
// - shutdown(): a cooperative stop. New spawns are rejected; workers exit after
//   the task they are running; queued tasks are dropped unrun (destroyed at join,
//   counted in MetricsSnapshot::tasks_dropped). A spawn racing shutdown() may
//   return true and its task still be dropped: if it reaches the queue after
//   join() drained it, the task is destroyed with the executor's shared state
//   (the last handle), unrun and not counted.
// - A task that throws is isolated: it counts as finished, the first exception is
//   kept, and the executor stops as by shutdown(); join() rethrows it after every
//   worker has stopped. Later exceptions are discarded.
//
// Costs: spawn_local is a deque push, a relaxed load of the sleeper count and no
// shared RMW (the in-flight count is kept in a per-worker ledger, settled when the
// worker goes to sleep); if a sibling sleeps, the spawn wakes one (a futex wake),
// and every 32nd local spawn checks for sleepers with a fence (wake-on-hoard); external spawn is
// a CAS on the state word, a CAS on the injector tail and a fence; a batch of n
// costs the same plus n slot writes. Idle workers spin, yield, then park on a futex
// and cost no CPU; wake-ups are never lost (engine/sleep/README.md).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "stealpool/engine/core/take_half.hpp"
#include "stealpool/engine/executor_shared.hpp"
#include "stealpool/engine/executor_worker.hpp"
#include "stealpool/platform/fatal.hpp"
#include "stealpool/executor_config.hpp"
#include "stealpool/executor_handle.hpp"
#include "stealpool/metrics.hpp"
#include "stealpool/thread_options.hpp"
#include "stealpool/worker_ctx.hpp"
#include "stealpool/worker_id.hpp"

namespace stealpool {

template <class T, class S = NoScratch>
class Executor {
 public:
  using Runner = typename detail::ExecutorBody<T, S>::Runner;
  using ScratchInit = typename detail::ExecutorBody<T, S>::ScratchInit;

  // Validates the config (std::invalid_argument naming the field) and starts the
  // workers. scratch_init runs on each worker thread; if it throws, the executor
  // stops as if a task had thrown. `threads`: names, stack size and hooks of the
  // worker threads (thread_options.hpp); std::system_error if a thread cannot be
  // started (the ones already started leave at once: no start hook, no
  // scratch_init, no task runs; [START-gate] in engine/executor_worker.hpp).
  Executor(const ExecutorConfig& config, ThreadOptions threads, ScratchInit scratch_init, Runner runner) {
    config.validate();
    if (!scratch_init) throw std::invalid_argument("stealpool::Executor: scratch_init is empty");
    if (!runner) throw std::invalid_argument("stealpool::Executor: runner is empty");
    body_ = std::make_unique<detail::ExecutorBody<T, S>>(config, std::move(threads), std::move(scratch_init),
                                                         std::move(runner));
    body_->threads.reserve(config.workers);
    try {
      for (std::size_t i = 0; i < config.workers; ++i) {
        auto* body = body_.get();
        body_->threads.emplace_back(body->options.stack_size,
                                    body->options.name.empty() ? std::string() : body->options.name + "-" + std::to_string(i),
                                    [body, i] { detail::ExecutorWorker<T, S>::main(body, i); });
      }
    } catch (...) {
      body_->open_gate(detail::ExecutorBody<T, S>::kAbandoned);
      body_->shared->shutdown();
      for (auto& t : body_->threads) t.join();
      throw;
    }
    body_->open_gate(detail::ExecutorBody<T, S>::kOpen);
  }
  Executor(const ExecutorConfig& config, ScratchInit scratch_init, Runner runner)
      : Executor(config, ThreadOptions{}, std::move(scratch_init), std::move(runner)) {}

  // For S == NoScratch: Executor<T> ex(config, runner).
  Executor(const ExecutorConfig& config, Runner runner)
    requires std::is_same_v<S, NoScratch>
      : Executor(config, ThreadOptions{}, [](std::size_t) { return NoScratch{}; }, std::move(runner)) {}
  Executor(const ExecutorConfig& config, ThreadOptions threads, Runner runner)
    requires std::is_same_v<S, NoScratch>
      : Executor(config, std::move(threads), [](std::size_t) { return NoScratch{}; }, std::move(runner)) {}

  Executor(Executor&&) noexcept = default;
  Executor& operator=(Executor&&) = delete;  // would need to join the old one first
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  ~Executor() {
    // A destructor cannot throw join()'s std::logic_error, and going on would
    // destroy the thread that is running this very call: stop with a message
    // that names the mistake instead of std::terminate's bare one.
    if (body_ && detail::current_executor() == body_->shared.get())
      detail::fatal(
          "stealpool: an Executor or ThreadPool was destroyed from inside one of its own tasks; "
          "destroy it from a thread that is not one of its workers");
    if (body_ && !joined_) {
      try {
        (void)join();
      } catch (...) {  // a task exception nobody asked for: see the header comment
      }
    }
  }

  ExecutorHandle<T> handle() const { return ExecutorHandle<T>(shared()); }
  bool spawn_external(T&& task) { return shared()->spawn_one(std::move(task)); }
  bool spawn_external(const T& task) { return shared()->spawn_one(task); }
  bool spawn_external_batch(std::span<T> tasks) { return shared()->spawn_batch(tasks); }
  bool spawn_external_batch(std::span<const T> tasks) { return shared()->spawn_batch(tasks); }
  template <detail::TaskRange<T> R>
  bool spawn_external_batch(R&& tasks) {
    return shared()->spawn_batch(detail::as_span(tasks));
  }
  void shutdown() noexcept {
    if (body_) body_->shared->shutdown();
  }
  // Takes half of the tasks queued in the injector (external spawns not yet
  // picked up) and in the workers' deques, rounded down (a lone queued task
  // stays), at most `max`, oldest first, out of this executor and appends them to
  // `out`; returns how many. They leave for good: they do not run here, count as
  // neither run nor dropped, and no longer hold up join(). Not spare, so never
  // taken: running tasks and a lone worker's private injector batch (a 1-worker
  // executor takes up to 255 external tasks at a time into a buffer only it can
  // reach, unless ExecutorConfig::lone_worker_batches is false). Any thread,
  // while the executor runs or while join() waits (this take may be what lets
  // join() return); 0 once it has stopped. For moving work between executors or
  // processes (a balancer, the MPI executor's steal between ranks):
  // engine/core/README.md, "Taking tasks out". Throws std::bad_alloc, before
  // anything is taken, if `out` cannot grow.
  std::size_t take_half(std::size_t max, std::vector<T>& out)
    requires(std::is_nothrow_move_constructible_v<T> && !std::is_same_v<T, detail::Job*>)
  {
    auto& shared = *this->shared();
    const std::size_t want = detail::half_of_spare(&shared.injector, shared.deques, max);
    out.reserve(out.size() + want);  // what the take can append, so the sink never allocates
    using Box = typename detail::ExecutorShared<T>::Box;
    const detail::TakeResult r = detail::take_spread<typename detail::ExecutorShared<T>::Stored>(
        &shared.injector, shared.deques, shared.state, want,
        [&out](typename Box::Stored&& s) noexcept { out.push_back(Box::unbox(s)); });
    shared.after_settle(r.settled);
    return r.taken;
  }

  // How many tasks the injector and the workers' deques hold now, as take_half()
  // sees them: a racy snapshot for a balancer's decisions (the MPI executor asks
  // for more work when it runs low), not a count. Any thread.
  std::size_t queued_hint() const {
    const auto& shared = *this->shared();
    return detail::queued_hint(&shared.injector, shared.deques);
  }

  std::size_t workers() const { return shared()->config.workers; }

  // Closes the gate, waits for every accepted task, stops the workers, returns the
  // metrics, rethrows the first task exception (see the header comment).
  MetricsSnapshot join() {
    MetricsSnapshot snap = join(std::nothrow);
    if (snap.first_exception) std::rethrow_exception(snap.first_exception);
    return snap;
  }

  // The same, but a task exception is returned in snap.first_exception instead of
  // rethrown, so the metrics (tasks_failed, tasks_dropped) survive a failure. Still
  // throws std::logic_error for misuse (twice, from a worker, moved-from).
  MetricsSnapshot join(std::nothrow_t) {
    if (!body_) throw std::logic_error("stealpool::Executor::join: the executor was moved from");
    if (joined_) throw std::logic_error("stealpool::Executor::join: already joined");
    auto& shared = *body_->shared;
    if (detail::current_executor() == &shared)
      throw std::logic_error("stealpool::Executor::join: called from one of its own workers (would deadlock)");
    if (shared.state.close() == detail::Terminal::yes) shared.initiate_done();
    for (auto& t : body_->threads) t.join();
    joined_ = true;

    MetricsSnapshot snap;
    snap.per_worker = body_->worker_metrics;
    for (const auto& w : snap.per_worker) static_cast<WorkerMetrics&>(snap) += w;
    snap.tasks_dropped = shared.drain();
    snap.first_exception = shared.first_error;
    return snap;
  }

 // Internal (for ThreadPool and tests): the state shared with the workers.
  const std::shared_ptr<detail::ExecutorShared<T>>& shared_state() const { return shared(); }

 private:
  const std::shared_ptr<detail::ExecutorShared<T>>& shared() const {
    if (!body_) throw std::logic_error("stealpool::Executor: the executor was moved from");
    return body_->shared;
  }

  std::unique_ptr<detail::ExecutorBody<T, S>> body_;
  bool joined_ = false;
};

}  // namespace stealpool

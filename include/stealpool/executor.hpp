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
// ctx (spawn_local: own deque, cheapest; spawn_global: the injector).
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
// and cost no CPU; wake-ups are never lost (detail/sleep/README.md).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <ranges>
#include <span>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "stealpool/affinity.hpp"
#include "stealpool/detail/core/ledger.hpp"
#include "stealpool/detail/core/tiered_idle.hpp"
#include "stealpool/detail/core/worker_step.hpp"
#include "stealpool/detail/executor_shared.hpp"
#include "stealpool/executor_config.hpp"
#include "stealpool/metrics.hpp"
#include "stealpool/rng.hpp"
#include "stealpool/worker_id.hpp"

namespace stealpool {

// The scratch type for executors that need none.
struct NoScratch {};

// After this many local spawns in a row a worker wakes a sleeping sibling, so one
// worker cannot hoard a growing deque while the others sleep (seed 000).
inline constexpr std::uint32_t kWakeOnHoardThreshold = 32;

template <class T, class S>
class WorkerCtx;
template <class T, class S>
class Executor;
namespace detail {
template <class T, class S>
class ExecutorWorker;

// A contiguous range of T (or const T) other than a span: what spawn_batch takes.
template <class R, class T>
concept TaskRange = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                    std::same_as<std::remove_cv_t<std::ranges::range_value_t<R>>, T> &&
                    !std::same_as<std::remove_cvref_t<R>, std::span<T>> &&
                    !std::same_as<std::remove_cvref_t<R>, std::span<const T>>;

// A dynamic-extent span over a contiguous range (std::span(array) would be static).
template <class R>
auto as_span(R& range) {
  using Elem = std::remove_reference_t<std::ranges::range_reference_t<R>>;
  return std::span<Elem>(std::ranges::data(range), std::ranges::size(range));
}
}  // namespace detail

// A copyable, thread-safe handle for producers. Keeps the shared state alive, so
// it may outlive the executor (its spawns then return false).
template <class T>
class ExecutorHandle {
 public:
  // false: the gate is closed; `task` is left with the caller, unchanged.
  bool spawn(T&& task) { return shared_->spawn_one(std::move(task)); }
  bool spawn(const T& task) { return shared_->spawn_one(task); }
  // All or nothing. Tasks are moved from only when it returns true (const tasks,
  // and tasks whose move may throw, are copied). Any contiguous range of T works:
  // a std::vector, an array, a span.
  bool spawn_batch(std::span<T> tasks) { return shared_->spawn_batch(tasks); }
  bool spawn_batch(std::span<const T> tasks) { return shared_->spawn_batch(tasks); }
  template <detail::TaskRange<T> R>
  bool spawn_batch(R&& tasks) {
    return shared_->spawn_batch(detail::as_span(tasks));
  }
  bool is_accepting() const noexcept { return shared_->state.accepting(); }
  // Cooperative stop; see the header comment.
  void shutdown() noexcept { shared_->shutdown(); }

 private:
  template <class, class>
  friend class WorkerCtx;
  template <class, class>
  friend class Executor;
  explicit ExecutorHandle(std::shared_ptr<detail::ExecutorShared<T>> shared) : shared_(std::move(shared)) {}
  std::shared_ptr<detail::ExecutorShared<T>> shared_;
};

// What a running task sees of its worker. Only the worker's own thread touches it.
template <class T, class S>
class WorkerCtx {
 public:
  std::size_t worker_id() const noexcept { return id_; }
  S& scratch() noexcept { return scratch_; }
  XorShift64& rng() noexcept { return rng_; }
  WorkerMetrics& metrics() noexcept { return metrics_; }
  const WorkerMetrics& metrics() const noexcept { return metrics_; }

  // Pushes onto this worker's deque: the cheapest spawn (no shared RMW). Always
  // accepted, also while join() drains.
  void spawn_local(T task) {
    ledger_.spawn();
    deque_->push(Box::box(std::move(task)));
    ++metrics_.local_spawns;
    if (++spawns_since_wake_ >= kWakeOnHoardThreshold) {
      spawns_since_wake_ = 0;
      if (shared_->sleep.notify(1) != 0) ++metrics_.hoard_wakes;
    } else if (shared_->sleep.sleeping_hint() != 0) {
      // A sibling sleeps while we have a task it could steal: wake it now rather
      // than at the 32nd spawn. The hint is a relaxed load (one read of a rarely
      // written line); a stale 0 only defers the wake to the hoard rule, and a
      // needless wake costs the woken worker one idle round.
      if (shared_->sleep.notify(1) != 0) ++metrics_.spawn_wakes;
    }
  }

  // Pushes onto the global injector, where any worker takes it first-come.
  void spawn_global(T task) {
    ledger_.spawn();
    shared_->injector.push(Box::box(std::move(task)));
    ++metrics_.global_spawns;
    if (shared_->sleep.notify(1) != 0) ++metrics_.spawn_wakes;
  }

  ExecutorHandle<T> handle() const { return ExecutorHandle<T>(shared_); }

  WorkerCtx(const WorkerCtx&) = delete;
  WorkerCtx& operator=(const WorkerCtx&) = delete;

 private:
  friend class detail::ExecutorWorker<T, S>;
  using Shared = detail::ExecutorShared<T>;
  using Box = typename Shared::Box;

  WorkerCtx(std::size_t id, std::shared_ptr<Shared> shared, S scratch)
      : id_(id),
        scratch_(std::move(scratch)),
        rng_(derive_worker_seed(shared->config.seed, id)),
        victim_rng_(derive_worker_seed(~shared->config.seed, id)),
        shared_(std::move(shared)),
        deque_(shared_->deques[id].get()),
        ledger_(shared_->state) {}

  std::size_t id_;
  S scratch_;
  XorShift64 rng_;         // the task's: drawing from it never changes victim choice
  XorShift64 victim_rng_;  // the scheduler's
  WorkerMetrics metrics_;
  std::shared_ptr<Shared> shared_;
  typename Shared::Deque* deque_;
  detail::Ledger<> ledger_;
  std::uint32_t spawns_since_wake_ = 0;
};

namespace detail {

// The state shared by the Executor object and its threads (kept on the heap so the
// Executor itself is movable).
template <class T, class S>
struct ExecutorBody {
  using Runner = std::function<void(T, WorkerCtx<T, S>&)>;
  using ScratchInit = std::function<S(std::size_t)>;

  ExecutorBody(const ExecutorConfig& cfg, ScratchInit init, Runner run)
      : shared(std::make_shared<ExecutorShared<T>>(cfg)),
        scratch_init(std::move(init)),
        runner(std::move(run)),
        worker_metrics(cfg.workers) {}

  std::shared_ptr<ExecutorShared<T>> shared;
  ScratchInit scratch_init;
  Runner runner;
  std::vector<WorkerMetrics> worker_metrics;  // slot i written by worker i at exit
  std::vector<std::thread> threads;
};

// One worker: adapts WorkerCtx to the core policy's Ctx interface
// (core/worker_step.hpp) and carries out the idle actions.
template <class T, class S>
class ExecutorWorker {
 public:
  using Shared = ExecutorShared<T>;
  using Stored = typename Shared::Stored;
  using Box = typename Shared::Box;

  static void main(ExecutorBody<T, S>* body, std::size_t id) noexcept {
    Shared& shared = *body->shared;
    set_current_worker(&shared, id);
    if (shared.config.pin_threads) (void)pin_current_thread(CoreAssigner().cpu_for(id));
    std::optional<S> scratch;
    try {
      scratch.emplace(body->scratch_init(id));
    } catch (...) {
      shared.record_error(std::current_exception());
      shared.shutdown();
    }
    if (scratch) {
      WorkerCtx<T, S> ctx(id, body->shared, std::move(*scratch));
      ExecutorWorker worker(ctx, body->runner);
      worker.loop();
      body->worker_metrics[id] = ctx.metrics_;
    }
    set_current_worker(nullptr, std::nullopt);
  }

  // --- the core policy's Ctx interface ---------------------------------------
  std::optional<Stored> pop_local() noexcept { return ctx_.deque_->pop(); }
  Steal<Stored> steal_injector() { return shared_.injector.steal_batch_and_pop(*ctx_.deque_); }
  Steal<Stored> steal_from(std::size_t victim) { return shared_.deques[victim]->steal(); }
  std::size_t worker_id() const noexcept { return ctx_.id_; }
  std::size_t worker_count() const noexcept { return shared_.config.workers; }
  std::uint32_t steal_tries() const noexcept { return shared_.config.steal_tries; }
  XorShift64& victim_rng() noexcept { return ctx_.victim_rng_; }
  WorkerMetrics& core_metrics() noexcept { return ctx_.metrics_; }
  bool is_done() const noexcept { return shared_.is_done(); }

  // Runs one task. A task that throws still counts as finished; the first
  // exception is kept and the executor stops (seed 000's panic isolation).
  bool run(Stored stored) noexcept {
    try {
      runner_(Box::unbox(stored), ctx_);
      ctx_.ledger_.complete();
      return true;
    } catch (...) {
      ctx_.ledger_.complete();
      shared_.record_error(std::current_exception());
      shared_.shutdown();
      return false;
    }
  }

 private:
  ExecutorWorker(WorkerCtx<T, S>& ctx, const typename ExecutorBody<T, S>::Runner& runner)
      : ctx_(ctx), shared_(*ctx.shared_), runner_(runner),
        idle_(shared_.config.spin_iters, shared_.config.park_timeout) {}

  void loop() noexcept {
    NoopTrace trace;
    for (;;) {
      const StepResult r = worker_step(*this, idle_, trace);
      switch (r.kind) {
        case StepKind::ran_task:
          break;
        case StepKind::no_work:
          if (r.action.kind == IdleKind::spin) StdSync::spin_pause();
          else std::this_thread::yield();
          break;
        case StepKind::should_park:
          sleep(r.action.timeout);
          break;
        case StepKind::exit_done:
        case StepKind::exit_panicked:
          settle();  // keep [LEDGER-bound] exact even on the way out
          return;
      }
    }
  }

  void settle() noexcept {
    if (ctx_.ledger_.settle() == Terminal::yes) shared_.initiate_done();
  }

  // The sleeper's side of sleep/README.md's protocol.
  void sleep(std::chrono::nanoseconds timeout) noexcept {
    settle();  // [LEDGER-bound]: never sleep holding units, or join() would wait forever
    if (shared_.is_done()) return;
    const std::size_t id = ctx_.id_;
    shared_.sleep.announce(id);  // [SLEEP-dekker]
    if (shared_.work_visible() || shared_.is_done()) {
      (void)shared_.sleep.cancel(id);
      return;
    }
    ++ctx_.metrics_.parks;
    const bool notified = shared_.sleep.parker(id).park(timeout);
    (void)shared_.sleep.cancel(id);
    if (notified) ++ctx_.metrics_.unparks;
    idle_.on_woken(notified);
  }

  WorkerCtx<T, S>& ctx_;
  Shared& shared_;
  const typename ExecutorBody<T, S>::Runner& runner_;
  TieredIdle idle_;
};

}  // namespace detail

template <class T, class S = NoScratch>
class Executor {
 public:
  using Runner = typename detail::ExecutorBody<T, S>::Runner;
  using ScratchInit = typename detail::ExecutorBody<T, S>::ScratchInit;

  // Validates the config (std::invalid_argument naming the field) and starts the
  // workers. scratch_init runs on each worker thread; if it throws, the executor
  // stops as if a task had thrown.
  Executor(const ExecutorConfig& config, ScratchInit scratch_init, Runner runner) {
    config.validate();
    if (!scratch_init) throw std::invalid_argument("stealpool::Executor: scratch_init is empty");
    if (!runner) throw std::invalid_argument("stealpool::Executor: runner is empty");
    body_ = std::make_unique<detail::ExecutorBody<T, S>>(config, std::move(scratch_init), std::move(runner));
    body_->threads.reserve(config.workers);
    try {
      for (std::size_t i = 0; i < config.workers; ++i)
        body_->threads.emplace_back(&detail::ExecutorWorker<T, S>::main, body_.get(), i);
    } catch (...) {
      body_->shared->shutdown();
      for (auto& t : body_->threads) t.join();
      throw;
    }
  }

  // For S == NoScratch: Executor<T> ex(config, runner).
  Executor(const ExecutorConfig& config, Runner runner)
    requires std::is_same_v<S, NoScratch>
      : Executor(config, [](std::size_t) { return NoScratch{}; }, std::move(runner)) {}

  Executor(Executor&&) noexcept = default;
  Executor& operator=(Executor&&) = delete;  // would need to join the old one first
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  ~Executor() {
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

 private:
  const std::shared_ptr<detail::ExecutorShared<T>>& shared() const {
    if (!body_) throw std::logic_error("stealpool::Executor: the executor was moved from");
    return body_->shared;
  }

  std::unique_ptr<detail::ExecutorBody<T, S>> body_;
  bool joined_ = false;
};

}  // namespace stealpool

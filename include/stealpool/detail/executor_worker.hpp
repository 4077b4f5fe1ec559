// stealpool/detail/executor_worker.hpp: the worker threads of an Executor:
// the state they share with the Executor object (ExecutorBody) and one worker's
// loop (ExecutorWorker), which adapts WorkerCtx to the core policy's context
// interface (core/worker_step.hpp) and carries out the idle actions, including
// the sleeper's side of the sleep protocol (sleep/README.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "stealpool/affinity.hpp"
#include "stealpool/detail/core/tiered_idle.hpp"
#include "stealpool/detail/core/worker_step.hpp"
#include "stealpool/detail/executor_shared.hpp"
#include "stealpool/worker_ctx.hpp"
#include "stealpool/worker_id.hpp"

namespace stealpool {

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

}  // namespace stealpool

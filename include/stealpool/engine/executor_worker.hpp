// stealpool/engine/executor_worker.hpp: the worker threads of an Executor:
// the state they share with the Executor object (ExecutorBody) and one worker's
// loop (ExecutorWorker), which adapts WorkerCtx to the core policy's context
// interface (core/worker_step.hpp) and carries out the idle actions, including
// the sleeper's side of the sleep protocol (sleep/README.md).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "stealpool/affinity.hpp"
#include "stealpool/engine/core/refill_pacer.hpp"
#include "stealpool/engine/core/tiered_idle.hpp"
#include "stealpool/engine/core/wait_step.hpp"
#include "stealpool/engine/core/worker_step.hpp"
#include "stealpool/engine/executor_shared.hpp"
#include "stealpool/engine/idle_yield.hpp"
#include "stealpool/platform/native_thread.hpp"
#include "stealpool/engine/private_batch.hpp"
#include "stealpool/engine/sink_trace.hpp"
#include "stealpool/thread_options.hpp"
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

  ExecutorBody(const ExecutorConfig& cfg, ThreadOptions opts, ScratchInit init, Runner run)
      : shared(std::make_shared<ExecutorShared<T>>(cfg)),
        options(std::move(opts)),
        scratch_init(std::move(init)),
        runner(std::move(run)),
        worker_metrics(cfg.workers) {}

  std::shared_ptr<ExecutorShared<T>> shared;
  ThreadOptions options;
  ScratchInit scratch_init;
  Runner runner;
  std::vector<WorkerMetrics> worker_metrics;  // slot i written by worker i at exit
  std::vector<NativeThread> threads;

  // [START-gate] The workers wait here until the constructor has started every
  // thread, then run their start hook and scratch_init. If a thread cannot be
  // started, the ones already running leave without running either: nothing of
  // the user's runs, and nothing allocates while the process is short of memory
  // (under `ulimit -v`, jemalloc crashed in a worker's first allocation while
  // the constructor was failing).
  enum Gate : std::uint32_t { kWaiting, kOpen, kAbandoned };
  std::atomic<std::uint32_t> gate{kWaiting};
  void open_gate(Gate to) noexcept {
    gate.store(to, std::memory_order::release);  // [START-gate] pairs with pass_gate()'s acquire
    gate.notify_all();
  }
  // A worker: true once the gate opens, false if the start was abandoned.
  bool pass_gate() noexcept {
    std::uint32_t g = gate.load(std::memory_order::acquire);  // [START-gate]
    while (g == kWaiting) {
      gate.wait(kWaiting, std::memory_order::acquire);
      g = gate.load(std::memory_order::acquire);
    }
    return g == kOpen;
  }
};

// One worker: adapts WorkerCtx to the core policy's Ctx interface
// (core/worker_step.hpp) and carries out the idle actions.
template <class T, class S>
class ExecutorWorker {
 public:
  using Shared = ExecutorShared<T>;
  using Stored = typename Shared::Stored;
  using Box = typename Shared::Box;
  // Fork-join pools (split deques) get the helping-wait API below.
  static constexpr bool kSplit = kIsSplitDeque<typename Shared::Deque>;

  static void main(ExecutorBody<T, S>* body, std::size_t id) noexcept {
    Shared& shared = *body->shared;
    if (!body->pass_gate()) return;  // the constructor failed to start a later thread
    set_current_worker(&shared, id);
    if (shared.config.pin_threads) (void)pin_current_thread(CoreAssigner().cpu_for(id));
    std::optional<S> scratch;
    try {
      if (body->options.on_start) body->options.on_start(id);
      scratch.emplace(body->scratch_init(id));
    } catch (...) {
      shared.record_error(std::current_exception());
      shared.shutdown();
    }
    shared.mark_started();
    if (scratch) {
      WorkerCtx<T, S> ctx(id, body->shared, std::move(*scratch));
      ExecutorWorker worker(ctx, body->runner);
      current_ = &worker;
      worker.loop();
      current_ = nullptr;
      body->worker_metrics[id] = ctx.metrics_;
    }
    if (body->options.on_stop) {
      try {
        body->options.on_stop(id);
      } catch (...) {
        shared.record_error(std::current_exception());
      }
    }
    set_current_worker(nullptr, std::nullopt);
  }

  // --- the core policy's Ctx interface ---------------------------------------
  std::optional<Stored> pop_local() noexcept {
    if constexpr (kSplit) {
      std::optional<Stored> item = deque_->pop();
      // A thief asked while we held only private items: hand it some now.
      if (item && deque_->publish_requested() == PushResult::published) [[unlikely]]
        wake_for_published();
      return item;
    } else {
      if (alone_) [[unlikely]] {
        if (std::optional<Stored> item = lone_batch_.pop()) return item;
      }
      return deque_->pop();
    }
  }
  Steal<Stored> steal_injector() {
    // Jobs come to a fork-join pool's injector one per run() or outside spawn:
    // take one at a time (a batch would land private in the split deque).
    if constexpr (kSplit) {
      return shared_.injector.steal();
    } else {
      // A lone worker's batches: no other worker could steal them, so they skip
      // the deque (its pop fences against thieves) for a private buffer, and
      // come a block at a time. pop_local() empties the buffer before this runs.
      if (alone_) [[unlikely]]
        return paced_take(lone_batch_, LoneBatch::kCapacity + 1);
      return paced_take(*ctx_.deque_, Injector<Stored>::kBatchLimit);
    }
  }
  Steal<Stored> steal_from(std::size_t victim) { return shared_.deques[victim]->steal(); }
  std::size_t worker_id() const noexcept { return ctx_.id_; }
  std::size_t worker_count() const noexcept { return shared_.config.workers; }
  std::uint32_t steal_tries() const noexcept { return shared_.config.steal_tries; }
  XorShift64& victim_rng() noexcept { return ctx_.victim_rng_; }
  WorkerMetrics& core_metrics() noexcept { return ctx_.metrics_; }
  bool is_done() const noexcept { return shared_.is_done(); }

  // Runs one task. A task that throws still counts as finished; the first
  // exception is kept and the executor stops (seed 000's panic isolation).
  // Forced inline: the per-task path (core/worker_step.hpp, worker_step).
  [[gnu::always_inline]] bool run(Stored stored) noexcept {
    if constexpr (std::is_same_v<T, Job*>) {
      // A fork-join pool: the worker calls the job itself (engine/job.hpp),
      // not through the std::function runner. execute() is noexcept (each
      // kind keeps its own exception): no handler either. On every TaskGroup
      // task and stolen join branch (UTS T3 with a TaskGroup per node, 1
      // worker: 240 instructions of scheduling per task against 261).
      stored->execute(stored);
      ctx_.ledger_.complete();
      return true;
    } else {
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
  }

  // --- waiting by helping (fork-join: forkjoin/README.md) ---------------------

  // The worker the calling thread is, if it is a worker of an executor of this
  // type; nullptr otherwise.
  static ExecutorWorker* current() noexcept { return current_; }

  std::size_t id() const noexcept { return ctx_.id_; }
  Shared& shared() noexcept { return shared_; }
  S& scratch() noexcept { return ctx_.scratch(); }

  // The isolated wait this worker's current job runs under (nullptr: none):
  // jobs it creates inherit the tag (forkjoin/README.md, "Isolated waits").
  const void* isolation() const noexcept { return isolation_; }
  void set_isolation(const void* tag) noexcept { isolation_ = tag; }
  const std::shared_ptr<Shared>& shared_owner() const noexcept { return ctx_.shared_; }

  // Pushes a job this worker's running task created. false: the deque is full
  // and nothing happened (the caller runs the job itself or uses push_global).
  // Inlined into every join(): the common case is a few plain stores.
  bool push_local(Stored item) noexcept
    requires kSplit
  {
    const PushResult r = deque_->push(item);
    if (r == PushResult::full) [[unlikely]]
      return false;
    ctx_.ledger_.spawn();
    ++ctx_.metrics_.local_spawns;
    if (r == PushResult::published) [[unlikely]]
      wake_for_published();
    return true;
  }

  // Makes every job of this worker's deque stealable and wakes as many sleepers
  // (the split deque's publish_all()): for a job about to run long without
  // pushing or popping, such as a loop's part, whose private siblings would
  // otherwise wait for it to finish.
  void publish_all() noexcept
    requires kSplit
  {
    if (deque_->publish_all() == PushResult::published) wake_for_published();
  }

  // Before a worker waits for tasks it spawned (a TaskGroup's wait), and so
  // before it runs one of them, which may take long: publish_all() if a sibling
  // sleeps or a thief asked. A sleeper never asks (it is woken only by a
  // publish), and a thief that asks while this worker runs one of the tasks is
  // served only after it: left private, the other tasks would wait for it (on 4
  // or 8 workers, at most 2 or 3 of the group's long tasks ran at once).
  // relaxed loads: the registry's count, a line written only when a worker
  // falls asleep or is woken, and the request hint push() reads too; a stale
  // answer leaves the tasks private until the next request, as without this.
  void publish_before_wait() noexcept
    requires kSplit
  {
    if (shared_.sleep.sleeping_hint() != 0 || deque_->requested()) publish_all();
  }

  // Pushes onto the injector: for when the own deque is full.
  void push_global(Stored item) {
    ctx_.counted([&] { shared_.injector.push(item); });
    ++ctx_.metrics_.global_spawns;
    // The injector's [INJ-claim] published it: no fence needed.
    if (shared_.sleep.notify_after_seq_cst_rmw(1) != 0) ++ctx_.metrics_.spawn_wakes;
  }

  // The owner took back a job it pushed and ran it inline (or will): account
  // for it as a task that ran from the local deque.
  void ran_inline() noexcept {
    ctx_.ledger_.complete();
    count_task(ctx_.metrics_, PopSource::local);
  }

  // Runs a job popped from the own deque that is not the one the caller waits for.
  void run_popped(Stored item) noexcept {
    count_task(ctx_.metrics_, PopSource::local);
    (void)run(std::move(item));
  }

  // Runs other work (own deque, injector, other workers' deques) until
  // latch.probe() is true; sleeps when there is none. Latch:
  //   bool probe() const;      the awaited event happened (acquire)
  //   bool prepare_sleep();    announce that the waiter may sleep; false if set
  //   void end_sleep();        the waiter is awake again
  // and its setter unparks parker(id()) of this executor's sleep registry when it
  // sees the waiter announced (forkjoin/latch.hpp).
  // Under an isolated wait (isolation() != nullptr) it runs only jobs with that
  // tag, as wait_isolated() does, so that waits nested in it stay isolated.
  template <class Latch>
  void wait_until(Latch& latch) noexcept {
    if constexpr (kSplit) {
      if (isolation_ != nullptr) return wait_isolated(latch, isolation_);
    }
    if (trace_sink_ != nullptr) [[unlikely]]
      return wait_with(latch, SinkTrace{trace_sink_});
    // wait_step's first branch, inlined: while the latch is not set, the own
    // deque's newest job. A TaskGroup's owner finds its tasks there (its
    // children, spawned just before the wait), so most waits end here without
    // the general loop's idle state and bookkeeping (UTS T3 with a TaskGroup
    // per node, 1 worker: 202 instructions of scheduling per task against
    // 240, counted by callgrind). The latch is checked before every pop: a
    // job below ours belongs to an outer frame and must wait for it (running
    // it here would nest the tree's breadth on this stack).
    while (!latch.probe()) {
      std::optional<Stored> item = pop_local();
      if (!item) return wait_with(latch, NoopTrace{});
      run_popped(std::move(*item));
    }
  }

  // wait_until's loop, with tracing chosen once per wait (see loop()). The
  // policy is core/wait_step.hpp's (shared with the simulator); here the idle
  // actions are carried out.
  template <class Latch, class Trace>
  void wait_with(Latch& latch, Trace trace) noexcept {
    TieredIdle idle(shared_.config.spin_iters, shared_.config.park_timeout);
    for (;;) {
      const WaitResult r = wait_step(*this, latch, idle, trace);
      switch (r.kind) {
        case WaitKind::latch_set: return;
        case WaitKind::ran_task: break;
        case WaitKind::no_work:
          if (r.action.kind == IdleKind::spin) StdSync::spin_pause();
          else idle_yield(idle);
          break;
        case WaitKind::should_park: sleep_on(latch, r.action.timeout, idle, /*isolated=*/false); break;
      }
    }
  }

  // Like wait_until, but runs only jobs whose isolation tag is `tag` (an
  // isolated wait, forkjoin/README.md): it pops its own deque and takes from the
  // injector, and moves any other job it meets to the injector for other
  // workers (or for itself after the wait); it never steals from other workers.
  template <class Latch>
  void wait_isolated(Latch& latch, const void* tag) noexcept
    requires kSplit
  {
    TieredIdle idle(shared_.config.spin_iters, shared_.config.park_timeout);
    while (!latch.probe()) {
      std::optional<Stored> item = pop_local();
      bool from_local = item.has_value();
      if (!item) {
        Steal<Stored> s = shared_.injector.steal();
        if (s.is_success()) item = s.value();
      }
      if (item && (*item)->isolation == tag) {
        idle.on_work();
        count_task(ctx_.metrics_, from_local ? PopSource::local : PopSource::injector);
        (void)run(*item);
        continue;
      }
      if (item) {
        shared_.injector.push(*item);  // still counted: it just moves
        (void)shared_.sleep.notify_after_seq_cst_rmw(1);  // someone else may run it now
      }
      const IdleAction a = idle.on_idle();
      if (a.kind == IdleKind::park) sleep_on(latch, a.timeout, idle, /*isolated=*/true);
      else idle_yield(idle);
    }
  }

 private:
  static inline thread_local ExecutorWorker* current_ = nullptr;

  // A push or pop made items public: the producer side of [SLEEP-dekker]. A
  // publish is a batch: wake as many sleepers as there are public items (one
  // per publish left the others asleep beside stealable work until the deque
  // drained; the simulator's liveness check found it, sim/README.md).
  [[gnu::noinline]] void wake_for_published() noexcept {
    if (shared_.sleep.notify(deque_->public_size_hint()) != 0) ++ctx_.metrics_.spawn_wakes;
  }

  // The sleeper's side of sleep/README.md's protocol, for the main loop (latch:
  // DoneLatch) and for waiters (the latch they wait on): settle, announce to the
  // registry and the latch, recheck, park. Woken by the latch's setter or by
  // anyone publishing work.
  // An isolated waiter rechecks only its latch: the work it could see elsewhere
  // is what it must not run, and rechecking it would keep it from ever parking.
  // Jobs of its own that reach the injector wake a sleeper (the spawner's
  // notify), and whoever wakes runs them or, if isolated elsewhere, passes them on
  // with another notify.
  template <class Latch>
  void sleep_on(Latch& latch, std::chrono::nanoseconds timeout, TieredIdle& idle, bool isolated) noexcept {
    settle();  // [LEDGER-bound]: never sleep holding units, or join() would wait forever
    if (!latch.prepare_sleep()) return;  // already set
    const std::size_t id = ctx_.id_;
    // [SLEEP-last]: the last worker to fall asleep parks with no timeout.
    if (shared_.sleep.announce(id) == shared_.config.workers) timeout = Parker::kForever;  // [SLEEP-dekker]
    if ((!isolated && shared_.work_visible()) || latch.probe()) {
      (void)shared_.sleep.cancel(id);
      latch.end_sleep();
      return;
    }
    ++ctx_.metrics_.parks;
    SinkTrace{trace_sink_}.on_park(id);
    const bool notified = shared_.sleep.parker(id).park(timeout);
    SinkTrace{trace_sink_}.on_unpark(id, notified);
    (void)shared_.sleep.cancel(id);
    latch.end_sleep();
    if (notified) ++ctx_.metrics_.unparks;
    idle.on_woken(notified);
  }

  ExecutorWorker(WorkerCtx<T, S>& ctx, const typename ExecutorBody<T, S>::Runner& runner)
      : ctx_(ctx), shared_(*ctx.shared_), deque_(ctx.deque_), runner_(runner),
        idle_(shared_.config.spin_iters, shared_.config.park_timeout), trace_sink_(shared_.config.trace) {}

  // Tracing is chosen once, here: without a sink the loop is compiled with
  // NoopTrace, whose hooks vanish. (A test of the sink at every hook cost ~15%
  // on the 1-worker spawn_local benchmark, about 2 ns a task.)
  void loop() noexcept {
    if (trace_sink_ != nullptr) [[unlikely]]
      loop_with(SinkTrace{trace_sink_});
    else
      loop_with(NoopTrace{});
  }

  template <class Trace>
  void loop_with(Trace trace) noexcept {
    for (;;) {
      const StepResult r = worker_step(*this, idle_, trace);
      switch (r.kind) {
        case StepKind::ran_task:
          break;
        case StepKind::no_work:
          if (r.action.kind == IdleKind::spin) StdSync::spin_pause();
          else idle_yield(idle_);
          break;
        case StepKind::should_park: {
          DoneLatch done{shared_};
          sleep_on(done, r.action.timeout, idle_, /*isolated=*/false);
          break;
        }
        case StepKind::exit_done:
        case StepKind::exit_panicked:
          drop_lone_batch();
          settle();  // keep [LEDGER-bound] exact even on the way out
          return;
      }
    }
  }

  // After a shutdown or a task's exception, the tasks left in the private
  // buffer are dropped like those left in the queues, and counted with them.
  void drop_lone_batch() noexcept {
    if constexpr (!kSplit) {
      std::size_t n = 0;
      while (std::optional<Stored> item = lone_batch_.pop()) {
        Box::discard(*item);
        ++n;
      }
      if (n != 0) shared_.count_dropped(n);
    }
  }

  void settle() noexcept { shared_.after_settle(ctx_.ledger_.settle_reporting()); }

  // Every injector take of a typed executor is paced (core/refill_pacer.hpp):
  // after a streak of small takes, wait kRefillWait so that the producer's
  // pushes gather.
  static constexpr std::chrono::nanoseconds kRefillWait{1000};

  // An injector batch's destination that counts what it receives.
  template <class Dest>
  struct CountingDest {
    Dest& dest;
    std::size_t count = 0;
    template <class U>
    void push(U&& item) {
      dest.push(std::forward<U>(item));
      ++count;
    }
  };

  // One injector take of up to `limit` tasks into `dest` (the lone worker's
  // buffer or the worker's deque), waiting first if the pacer says so.
  template <class Dest>
  Steal<Stored> paced_take(Dest& dest, std::size_t limit) {
    if (pacer_.should_wait()) [[unlikely]] {
      const auto until = std::chrono::steady_clock::now() + kRefillWait;
      do StdSync::spin_pause();
      while (std::chrono::steady_clock::now() < until);
    }
    CountingDest<Dest> into{dest};
    Steal<Stored> s = shared_.injector.steal_batch_and_pop(into, limit);
    pacer_.on_take(s.is_success() ? into.count + 1 : 0);
    return s;
  }

  // The main loop's "latch": the executor's end. A worker does not go to sleep
  // once done, and its recheck includes done, so it wakes for work or the end.
  struct DoneLatch {
    const Shared& shared;
    bool probe() const noexcept { return shared.is_done(); }
    bool prepare_sleep() noexcept { return !shared.is_done(); }
    void end_sleep() noexcept {}
  };

  WorkerCtx<T, S>& ctx_;
  Shared& shared_;
  typename Shared::Deque* deque_;  // ctx_.deque_, one indirection closer
  const void* isolation_ = nullptr;
  const typename ExecutorBody<T, S>::Runner& runner_;
  TieredIdle idle_;
  TraceSink* const trace_sink_;  // ExecutorConfig::trace: null unless tracing
  // A typed executor's only worker takes injector batches into this buffer
  // instead of its deque (steal_injector). 255: one injector block.
  // Fork-join pools (split deques) take one job at a time: no buffer.
  using LoneBatch = PrivateBatch<Stored, 255>;
  struct NoBatch {};
  const bool alone_ = !kSplit && shared_.config.workers == 1 && shared_.config.lone_worker_batches;
  RefillPacer pacer_;  // paced_take()
  [[no_unique_address]] std::conditional_t<kSplit, NoBatch, LoneBatch> lone_batch_;
};

}  // namespace detail

}  // namespace stealpool

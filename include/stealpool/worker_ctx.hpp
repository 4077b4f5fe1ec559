// stealpool/worker_ctx.hpp: WorkerCtx<T, S>, what a running task sees of its
// worker: its id, its scratch, its RNG and metrics, and the spawn paths.
// Only the worker's own thread touches it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "stealpool/engine/core/ledger.hpp"
#include "stealpool/engine/executor_shared.hpp"
#include "stealpool/executor_handle.hpp"
#include "stealpool/metrics.hpp"
#include "stealpool/rng.hpp"

namespace stealpool {

// The scratch type for executors that need none.
struct NoScratch {};

// Every this many local spawns in a row a worker checks for sleeping siblings with
// the sleep protocol's fence and wakes one (seed 000's wake-on-hoard). Each local
// spawn also wakes a sibling at once when a relaxed read sees one asleep; this
// rule is the fenced fallback (engine/core/README.md, "Waking siblings").
inline constexpr std::uint32_t kWakeOnHoardThreshold = 32;

// What a running task sees of its worker. Only the worker's own thread touches it.
template <class T, class S>
class WorkerCtx {
 public:
  std::size_t worker_id() const noexcept { return id_; }
  S& scratch() noexcept { return scratch_; }
  XorShift64& rng() noexcept { return rng_; }
  WorkerMetrics& metrics() noexcept { return metrics_; }
  const WorkerMetrics& metrics() const noexcept { return metrics_; }
  // How many tasks wait in this worker's deque: a racy snapshot (two relaxed
  // loads), exact but for what thieves take meanwhile. For a task that decides
  // whether its siblings have enough to steal.
  std::size_t queued_hint() const noexcept { return deque_->size_hint(); }

  // Pushes onto this worker's deque: the cheapest spawn (no shared RMW). Always
  // accepted, also while join() drains.
  void spawn_local(T task) {
    counted([&] { Box::box_and_push(std::move(task), [&](const auto& s) { deque_->push(s); }); });
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
    counted([&] { Box::box_and_push(std::move(task), [&](const auto& s) { shared_->injector.push(s); }); });
    ++metrics_.global_spawns;
    // The injector's [INJ-claim] published it: no fence needed.
    if (shared_->sleep.notify_after_seq_cst_rmw(1) != 0) ++metrics_.spawn_wakes;
  }

  ExecutorHandle<T> handle() const { return ExecutorHandle<T>(shared_); }

  WorkerCtx(const WorkerCtx&) = delete;
  WorkerCtx& operator=(const WorkerCtx&) = delete;

 private:
  friend class detail::ExecutorWorker<T, S>;
  using Shared = detail::ExecutorShared<T>;
  using Box = typename Shared::Box;

  // Counts one task in the ledger, then queues it with push(). The unit comes
  // first: a thief may run and complete the task as soon as it is queued. If
  // push() throws (an allocation: boxing the task, growing the deque, a new
  // injector block), nothing was queued: the unit is given back as if the task
  // had run, so join() does not wait for a task that does not exist.
  template <class Push>
  void counted(Push&& push) {
    ledger_.spawn();
    try {
      push();
    } catch (...) {
      ledger_.complete();
      throw;
    }
  }

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

}  // namespace stealpool

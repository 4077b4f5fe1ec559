// stealpool/engine/executor_shared.hpp: the state every thread of one executor
// shares (workers, handles, the owner), and the external spawn path.
//
// Lifetime: owned by shared_ptr from the Executor and from every ExecutorHandle,
// so a handle outliving its executor stays safe (its spawns are rejected: the gate
// closed at join).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <type_traits>
#include <vector>

#include "stealpool/platform/cache_line.hpp"
#include "stealpool/engine/core/state_word.hpp"
#include "stealpool/engine/sleep/sleep_registry.hpp"
#include "stealpool/engine/task_box.hpp"
#include "stealpool/engine/worker_deque.hpp"
#include "stealpool/executor_config.hpp"
#include "stealpool/queue/injector.hpp"

namespace stealpool::detail {

template <class T>
class ExecutorShared {
 public:
  using Box = TaskBox<T, kExecutorInlineBytes<T>>;
  using Stored = typename Box::Stored;
  using Deque = typename WorkerDeque<Stored>::type;

  explicit ExecutorShared(const ExecutorConfig& cfg) : config(cfg), sleep(cfg.workers) {
    deques.reserve(cfg.workers);
    for (std::size_t i = 0; i < cfg.workers; ++i) deques.push_back(std::make_unique<Deque>());
  }

  // A producer that was accepted just before shutdown() may push after join()
  // drained; the last owner (a handle, perhaps) frees what it left.
  ~ExecutorShared() { (void)drain(); }

  ExecutorShared(const ExecutorShared&) = delete;
  ExecutorShared& operator=(const ExecutorShared&) = delete;

  // --- the external spawn path (ExecutorHandle, Executor::spawn_external) ------

  // On false (gate closed) `task` is untouched: the caller keeps it.
  template <class U>
  bool spawn_one(U&& task) {
    if (!state.try_acquire_external(1)) return false;
    try {
      Box::box_and_push(T(std::forward<U>(task)), [&](const Stored& s) { injector.push(s); });
    } catch (...) {
      give_back(1);
      throw;
    }
    sleep.notify_after_seq_cst_rmw(1);  // the injector's [INJ-claim] published it
    return true;
  }

  // All or nothing: on false no task was taken. Elem is T (tasks are moved from)
  // or const T (tasks are copied; so are T whose move may throw). If a task's
  // constructor or an allocation throws, nothing is queued and the tasks stay with
  // the caller, except on std::bad_alloc from the queue itself, which may leave a
  // prefix of the batch queued (it runs: sleepers are woken for it) and the rest
  // with the caller.
  template <class Elem>
  bool spawn_batch(std::span<Elem> tasks) {
    if (tasks.empty()) return state.accepting();
    if (!state.try_acquire_external(tasks.size())) return false;
    std::size_t queued = 0;
    try {
      if constexpr (Box::kInline) {
        injector.push_batch(std::span<const Stored>(tasks.data(), tasks.size()), &queued);
      } else {
        std::vector<Stored> boxes;
        boxes.reserve(tasks.size());
        try {
          for (Elem& e : tasks) {
            // A move that may throw could leave the caller's batch half moved-from;
            // copy instead where T allows (std::move_if_noexcept), as std::vector does.
            if constexpr (std::is_const_v<Elem>) boxes.push_back(Box::box(T(e)));
            else boxes.push_back(Box::box(T(std::move_if_noexcept(e))));
          }
          injector.push_batch(std::span<const Stored>(boxes), &queued);
        } catch (...) {
          return_unqueued(tasks, boxes, queued);
          throw;
        }
      }
    } catch (...) {
      give_back(tasks.size() - queued);
      // A prefix queued before the queue's std::bad_alloc runs: wake for it, or
      // a parked pool would leave it until join() (or the next spawn).
      sleep.notify_after_seq_cst_rmw(std::min(queued, config.workers));  // none if queued == 0
      throw;
    }
    sleep.notify_after_seq_cst_rmw(std::min(tasks.size(), config.workers));  // as spawn_one
    return true;
  }

  // --- stopping ---------------------------------------------------------------

  // What every settle does next: the terminal one starts [DONE-flag]; one that
  // left the executor quiescent calls the user's hook (ExecutorConfig::on_quiescent).
  void after_settle(Settled settled) noexcept {
    if (settled == Settled::terminal) initiate_done();
    else if (settled == Settled::quiescent && config.on_quiescent) config.on_quiescent();
  }

  // Terminal state reached (or a cooperative stop): every worker exits at its next
  // step. Idempotent.
  void initiate_done() noexcept {
    // [DONE-flag] release: pairs with the acquire in is_done(); a worker that sees
    // done also sees the terminal state word (or the recorded error).
    done.value.store(true, std::memory_order::release);
    sleep.unpark_all();  // tokens, so even a worker about to park returns at once
  }
  bool is_done() const noexcept {
    return done.value.load(std::memory_order::acquire);  // [DONE-flag]
  }

  // Cooperative stop: reject new spawns, let workers exit after their current
  // task. Queued tasks are dropped (destroyed at join, counted in tasks_dropped).
  void shutdown() noexcept {
    (void)state.close();
    initiate_done();
  }

  // Each worker, once its start hook and scratch_init have run (or thrown).
  void mark_started() noexcept {
    // release: the error a failed start recorded is visible to wait_started().
    if (started.fetch_add(1, std::memory_order::acq_rel) + 1 == config.workers) started.notify_all();
  }
  // Blocks until every worker has started; returns the first start error, if any.
  std::exception_ptr wait_started() {
    for (std::size_t n = started.load(std::memory_order::acquire); n < config.workers;
         n = started.load(std::memory_order::acquire))
      started.wait(n, std::memory_order::acquire);
    std::lock_guard<std::mutex> lock(error_mu);
    return first_error;
  }

  void record_error(std::exception_ptr e) noexcept {
    std::lock_guard<std::mutex> lock(error_mu);
    if (!first_error) first_error = std::move(e);
  }

  // After a failed batch: boxes [queued, end) never reached the queue. Where their
  // tasks were moved out of the caller's span (a noexcept move), they are moved
  // back into place; where they were copied, the caller still has the originals.
  template <class Elem>
  static void return_unqueued(std::span<Elem> tasks, std::vector<Stored>& boxes, std::size_t queued) noexcept {
    for (std::size_t i = queued; i < boxes.size(); ++i) {
      if constexpr (!std::is_const_v<Elem> && std::is_nothrow_move_constructible_v<T>) {
        std::destroy_at(&tasks[i]);
        std::construct_at(&tasks[i], std::move(*boxes[i]));
      }
      Box::discard(boxes[i]);
    }
  }

  // Units taken for tasks that were never queued (an allocation failed).
  void give_back(std::size_t n) noexcept {
    if (n != 0) after_settle(state.settle_reporting(n));
  }

  // The sleeper's re-check ([SLEEP-dekker]): could any worker find work now?
  bool work_visible() const noexcept {
    if (!injector.empty_hint()) return true;
    for (const auto& d : deques)
      if (!d->empty_hint()) return true;
    return false;
  }

  // A worker exiting early (shutdown, a task's exception) dropped n tasks it
  // held privately (ExecutorWorker::drop_lone_batch); drain() reports them.
  void count_dropped(std::size_t n) noexcept {
    dropped_by_workers.fetch_add(n, std::memory_order::relaxed);  // read after the workers are joined
  }

  // After every worker has exited: destroys every task still queued. Returns how
  // many there were, with those workers dropped on their way out.
  std::size_t drain() noexcept {
    std::size_t n = dropped_by_workers.exchange(0, std::memory_order::relaxed);  // the threads are joined
    for (;;) {
      Steal<Stored> s = injector.steal();
      if (!s.is_success()) break;
      Box::discard(s.value());
      ++n;
    }
    for (auto& d : deques)
      while (auto item = d->pop()) {
        Box::discard(*item);
        ++n;
      }
    return n;
  }

  const ExecutorConfig config;
  // On a line of its own: every external spawn is a CAS on it, and workers read
  // `config` (worker_count(), steal_tries()) at every step. Sharing the line
  // made each spawn's CAS a coherence miss while a worker polled
  // (docs/results-log.md, 2026-11-27, "Single external spawns").
  alignas(kCacheLine) StateWord<> state;
  Injector<Stored> injector;
  std::vector<std::unique_ptr<Deque>> deques;  // deques[i] is owned by worker i
  SleepRegistry<> sleep;
  Padded<std::atomic<bool>> done{};
  std::atomic<std::size_t> started{0};  // workers past their start-up (mark_started)
  std::atomic<std::size_t> dropped_by_workers{0};  // see count_dropped
  std::mutex error_mu;
  std::exception_ptr first_error;  // guarded by error_mu until the workers are joined
};

}  // namespace stealpool::detail

// stealpool/metrics.hpp: what the workers did, counted privately per worker
// (no shared counters on the hot path) and merged at join().
#pragma once

#include <cstdint>
#include <exception>
#include <vector>

namespace stealpool {

struct WorkerMetrics {
  std::uint64_t tasks_executed = 0;       // == from_local + from_injector + from_steal
  std::uint64_t tasks_from_local = 0;     // popped from the worker's own deque
  std::uint64_t tasks_from_injector = 0;  // taken from the global injector
  std::uint64_t tasks_from_steal = 0;     // stolen from another worker's deque
  std::uint64_t tasks_failed = 0;         // tasks that threw (counted in tasks_executed)
  std::uint64_t steal_attempts = 0;       // victim steals tried
  std::uint64_t steal_successes = 0;      // victim steals that took a task
  std::uint64_t parks = 0;                // times the worker went to sleep
  std::uint64_t unparks = 0;              // sleeps ended by a wake-up (not a timeout)
  std::uint64_t local_spawns = 0;         // WorkerCtx::spawn_local calls
  std::uint64_t global_spawns = 0;        // WorkerCtx::spawn_global calls
  std::uint64_t hoard_wakes = 0;          // wake-ups sent by the wake-on-hoard rule (32 spawns)
  std::uint64_t spawn_wakes = 0;          // other wake-ups sent by spawns from tasks

  WorkerMetrics& operator+=(const WorkerMetrics& o) noexcept {
    tasks_executed += o.tasks_executed;
    tasks_from_local += o.tasks_from_local;
    tasks_from_injector += o.tasks_from_injector;
    tasks_from_steal += o.tasks_from_steal;
    tasks_failed += o.tasks_failed;
    steal_attempts += o.steal_attempts;
    steal_successes += o.steal_successes;
    parks += o.parks;
    unparks += o.unparks;
    local_spawns += o.local_spawns;
    global_spawns += o.global_spawns;
    hoard_wakes += o.hoard_wakes;
    spawn_wakes += o.spawn_wakes;
    return *this;
  }
};

// The totals (inherited fields) and each worker's own figures.
struct MetricsSnapshot : WorkerMetrics {
  std::vector<WorkerMetrics> per_worker;
  // Tasks still queued when the executor stopped early (shutdown() or a task
  // exception) and destroyed without running. 0 after a normal drain.
  std::uint64_t tasks_dropped = 0;
  // The first exception a task (or scratch_init) threw; null if none. join()
  // rethrows it; join(std::nothrow) leaves it here.
  std::exception_ptr first_exception;
};

}  // namespace stealpool

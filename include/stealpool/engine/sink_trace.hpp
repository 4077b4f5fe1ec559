// stealpool/engine/sink_trace.hpp: the trace hooks of core/ (worker_step,
// pop_task, wait_step; see NoopTrace in core/worker_step.hpp) forwarded to the
// user's TraceSink (stealpool/trace.hpp), if ExecutorConfig::trace set one.
// The worker's loops use it only when a sink is set (ExecutorWorker::loop and
// wait_until pick NoopTrace otherwise); sleep_on uses it around a park, where a
// test of the pointer costs nothing next to the system call, so it is null-safe.
#pragma once

#include <cstddef>

#include "stealpool/engine/core/worker_step.hpp"
#include "stealpool/trace.hpp"

namespace stealpool::detail {

struct SinkTrace {
  TraceSink* sink;  // null: tracing is off

  void on_pop(std::size_t worker, PopSource source, std::size_t victim) noexcept {
    if (sink != nullptr) [[unlikely]]
      sink->on_task(worker, to_task_source(source), victim);
  }
  void on_steal_attempt(std::size_t, std::size_t, StealStatus) noexcept {}
  void on_task_end(std::size_t, bool) noexcept {}
  void on_idle(std::size_t worker, IdleKind) noexcept {
    if (sink != nullptr) [[unlikely]]
      sink->on_idle(worker);
  }
  void on_park(std::size_t worker) noexcept {
    if (sink != nullptr) [[unlikely]]
      sink->on_park(worker);
  }
  void on_unpark(std::size_t worker, bool notified) noexcept {
    if (sink != nullptr) [[unlikely]]
      sink->on_unpark(worker, notified);
  }
  void on_exit(std::size_t worker) noexcept { on_idle(worker, IdleKind::park); }

  static TaskSource to_task_source(PopSource s) noexcept {
    switch (s) {
      case PopSource::local: return TaskSource::local;
      case PopSource::injector: return TaskSource::injector;
      case PopSource::steal: break;
    }
    return TaskSource::steal;
  }
};

}  // namespace stealpool::detail

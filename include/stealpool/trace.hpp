// stealpool/trace.hpp: what a worker can report about its scheduling, for
// timelines and debugging. Off by default: ExecutorConfig::trace is null, and
// the worker's loops are then compiled without hooks (the choice is made once
// per worker loop and once per fork-join wait; a park tests the pointer).
//
//   stealpool::TraceRecorder rec(workers);      // or any TraceSink of your own
//   stealpool::ExecutorConfig cfg;
//   cfg.workers = workers;
//   cfg.trace = &rec;                           // must outlive the executor/pool
//   { stealpool::ThreadPool pool(cfg); ... }    // join or destroy before reading
//   rec.write_chrome_json(file);                // Perfetto UI, chrome://tracing
//
// The hooks run on the worker's own thread, on the scheduling path: a sink must
// not throw (they are noexcept), should be quick, and sees one worker's calls in
// program order and never two calls for the same worker at once. Calls for
// different workers run concurrently.
#pragma once

#include <cstddef>
#include <cstdint>

namespace stealpool {

// Where a task a worker is about to run came from.
enum class TaskSource : std::uint8_t {
  local,     // its own deque
  injector,  // the executor's global queue (external or global spawns)
  steal,     // another worker's deque
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // About to run a task found by looking for work (the main loop, or a
  // fork-join wait that helps). A fork-join job popped back by its own join()
  // runs inline, as part of the task that forked it, and is not reported.
  virtual void on_task(std::size_t worker, TaskSource source, std::size_t victim) noexcept = 0;
  // Looked for a task and found none (it spins, yields or parks next).
  virtual void on_idle(std::size_t worker) noexcept = 0;
  // About to sleep; then woken by a notification (true) or a timeout (false).
  virtual void on_park(std::size_t worker) noexcept = 0;
  virtual void on_unpark(std::size_t worker, bool notified) noexcept = 0;
};

}  // namespace stealpool

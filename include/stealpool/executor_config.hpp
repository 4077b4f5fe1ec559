// stealpool/executor_config.hpp: the knobs of an Executor, with the defaults of
// the specification (seed 000). All defaults are conservative.
//
//   workers       worker threads                                  default 1
//   seed          RNG seed for victim selection (runs replay)     0x853c49e6748fea9b
//   steal_tries   random victims tried per idle round,            4
//                 1 .. kMaxStealTries (4096)
//   spin_iters    idle rounds spent polling (and yielding) before 200
//                 the first park, 0 .. kMaxSpinIters (100,000).
//                 A worker settles its task count only when it
//                 parks, so this also bounds how long join() may
//                 wait after the last task: about a microsecond
//                 per round; when another thread has the CPU,
//                 the first yield that comes back late ends
//                 the rounds (engine/idle_yield.hpp)
//   park_timeout  first park's timeout (> 0; Parker's kForever:    200 us
//                 never time out); it doubles on each empty
//                 park up to 64x, then workers park with no
//                 timeout (wake-ups are never lost, so a timeout
//                 only bounds latency, it is not needed for
//                 correctness). The last worker to fall
//                 asleep parks with no timeout (engine/sleep/README.md)
//   pin_threads   pin worker i to the i-th allowed CPU (Linux)    false (see
//                 default_pin_threads() for why)
//   trace         a TraceSink (stealpool/trace.hpp) the workers     null (off)
//                 report to: tasks found, idle, park and wake;
//                 not owned, must outlive the executor
//   lone_worker_batches  a 1-worker executor takes external      true
//                 tasks up to 255 at a time into a buffer only
//                 it reads (no fence per pop). false keeps
//                 them in its deque, where take_half() can
//                 reach them (the MPI executor's ranks)
//   on_quiescent  called each time the executor goes quiescent:   empty (none)
//                 every accepted task, and all they spawned, has
//                 finished and no worker holds a unit of the
//                 count, while the gate is open (not at join's
//                 end). Exact, never early: it is the settle
//                 that takes the count to 0 ([LEDGER-bound]), on
//                 the thread that made it (a worker about to
//                 park, up to spin_iters idle rounds after the
//                 last task; or a take_half caller). Must not
//                 throw (std::terminate) and should be quick. For
//                 a thread that must know the moment an executor
//                 runs dry without joining it (the MPI executor's
//                 progress thread)
//
// validate() (called by the Executor constructor) throws std::invalid_argument
// naming the field and the bad value.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "stealpool/affinity.hpp"
#include "stealpool/trace.hpp"

namespace stealpool {

struct ExecutorConfig {
  // The most workers an executor may have: worker ids index fixed arrays (the
  // sleep mask, the deque table) and steal victims are drawn from them.
  static constexpr std::size_t kMaxWorkers = 4096;
  // Each idle round tries up to steal_tries victims before it looks at the
  // executor's end again: more than there can be workers buys nothing and
  // delays shutdown.
  static constexpr std::uint32_t kMaxStealTries = 4096;
  // A worker polls spin_iters rounds before it parks (fewer if a yield comes
  // back late: engine/idle_yield.hpp), and settles its share of the task count
  // only then (engine/core/README.md, [LEDGER-bound]): a huge value would keep
  // join() waiting for that long after the last task.
  static constexpr std::uint32_t kMaxSpinIters = 100'000;

  std::size_t workers = 1;
  std::uint64_t seed = 0x853c49e6748fea9bull;
  std::uint32_t steal_tries = 4;
  std::uint32_t spin_iters = 200;
  std::chrono::nanoseconds park_timeout = std::chrono::microseconds(200);
  bool pin_threads = default_pin_threads();
  TraceSink* trace = nullptr;
  bool lone_worker_batches = true;
  std::function<void()> on_quiescent;

  void validate() const {
    if (workers == 0) throw std::invalid_argument("ExecutorConfig.workers must be >= 1 (got 0)");
    if (workers > kMaxWorkers)
      throw std::invalid_argument("ExecutorConfig.workers must be <= " + std::to_string(kMaxWorkers) +
                                  " (got " + std::to_string(workers) + ")");
    if (steal_tries == 0 || steal_tries > kMaxStealTries)
      throw std::invalid_argument("ExecutorConfig.steal_tries must be in 1.." + std::to_string(kMaxStealTries) +
                                  " (got " + std::to_string(steal_tries) + ")");
    if (spin_iters > kMaxSpinIters)
      throw std::invalid_argument("ExecutorConfig.spin_iters must be in 0.." + std::to_string(kMaxSpinIters) +
                                  " (got " + std::to_string(spin_iters) + ")");
    if (park_timeout.count() <= 0)
      throw std::invalid_argument("ExecutorConfig.park_timeout must be > 0 ns (got " +
                                  std::to_string(park_timeout.count()) + " ns)");
  }
};

}  // namespace stealpool

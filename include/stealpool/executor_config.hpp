// stealpool/executor_config.hpp: the knobs of an Executor, with the defaults of
// the specification (seed 000). All defaults are conservative.
//
//   workers       worker threads                                  default 1
//   seed          RNG seed for victim selection (runs replay)     0x853c49e6748fea9b
//   steal_tries   random victims tried per idle round             4
//   spin_iters    idle rounds spent spinning before yielding      200
//   park_timeout  first park's timeout; it doubles on each empty  200 us
//                 park up to 64x, then workers park with no
//                 timeout (wake-ups are never lost, so a timeout
//                 only bounds latency, it is not needed for
//                 correctness)
//   pin_threads   pin worker i to the i-th allowed CPU (Linux)    true on Linux
//   trace         a TraceSink (stealpool/trace.hpp) the workers     null (off)
//                 report to: tasks found, idle, park and wake;
//                 not owned, must outlive the executor
//
// validate() (called by the Executor constructor) throws std::invalid_argument
// naming the field and the bad value.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "stealpool/affinity.hpp"
#include "stealpool/trace.hpp"

namespace stealpool {

struct ExecutorConfig {
  // The most workers an executor may have: worker ids index fixed arrays (the
  // sleep mask, the deque table) and steal victims are drawn from them.
  static constexpr std::size_t kMaxWorkers = 4096;

  std::size_t workers = 1;
  std::uint64_t seed = 0x853c49e6748fea9bull;
  std::uint32_t steal_tries = 4;
  std::uint32_t spin_iters = 200;
  std::chrono::nanoseconds park_timeout = std::chrono::microseconds(200);
  bool pin_threads = default_pin_threads();
  TraceSink* trace = nullptr;

  void validate() const {
    if (workers == 0) throw std::invalid_argument("ExecutorConfig.workers must be >= 1 (got 0)");
    if (workers > kMaxWorkers)
      throw std::invalid_argument("ExecutorConfig.workers must be <= " + std::to_string(kMaxWorkers) +
                                  " (got " + std::to_string(workers) + ")");
    if (steal_tries == 0)
      throw std::invalid_argument("ExecutorConfig.steal_tries must be >= 1 (got 0)");
    if (park_timeout.count() <= 0)
      throw std::invalid_argument("ExecutorConfig.park_timeout must be > 0 ns (got " +
                                  std::to_string(park_timeout.count()) + " ns)");
  }
};

}  // namespace stealpool

// stealpool/forkjoin/pool_options.hpp: PoolOptions, everything a ThreadPool
// can be configured with: the engine's knobs (ExecutorConfig) and how its threads
// start (ThreadOptions).
//
//   stealpool::PoolOptions opts;              // available_parallelism() workers
//   opts.config.workers = 4;
//   opts.threads.name = "render";             // threads "render-0", "render-1", ...
//   opts.threads.stack_size = 64 << 20;       // for very deep recursion
//   opts.threads.on_start = [](std::size_t id) { set_thread_priority(id); };
//   stealpool::ThreadPool pool(opts);
#pragma once

#include <cstddef>

#include "stealpool/cpu_count.hpp"
#include "stealpool/executor_config.hpp"
#include "stealpool/thread_options.hpp"

namespace stealpool {

struct PoolOptions {
  // workers defaults to available_parallelism(): the CPUs this process may run
  // on (affinity mask), within its cgroup CPU quota; not hardware_concurrency().
  ExecutorConfig config = default_config();
  ThreadOptions threads;

  static PoolOptions with_workers(std::size_t workers) {
    PoolOptions o;
    o.config.workers = workers;
    return o;
  }

 private:
  static ExecutorConfig default_config() {
    ExecutorConfig c;
    c.workers = available_parallelism();
    return c;
  }
};

}  // namespace stealpool

// stealpool/thread_options.hpp: how an executor's (or a pool's) worker threads
// are started: their name, stack size and start/stop hooks.
//
//   name         worker i is named "<name>-<i>" (what top -H, gdb and perf show;
//                Linux keeps the first 15 bytes). Empty: threads are not named.
//   stack_size   bytes of stack per worker; default 8 MiB, whatever the ulimit.
//                Fork-join recursion runs on the worker's stack, and a joiner
//                that waits may run other jobs on top of its frames, so the depth
//                a pool supports is bounded by this (forkjoin/README.md, "Stack
//                depth"). 0: the platform default (detail::default_stack_size()).
//   on_start     called on each worker thread with its id, before its first
//                task (to set a thread-local, a priority, a NUMA policy...)
//   on_stop      called on each worker thread with its id, after its last task
// A hook that throws stops the executor as a task exception would: join()
// rethrows it (the pool's destructor discards it).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace stealpool {

struct ThreadOptions {
  static constexpr std::size_t kDefaultStackSize = std::size_t{8} << 20;

  std::string name = "stealpool";
  std::size_t stack_size = kDefaultStackSize;
  std::function<void(std::size_t)> on_start;
  std::function<void(std::size_t)> on_stop;
};

}  // namespace stealpool

// stealpool/affinity.hpp: pinning worker threads to CPUs (Linux; a no-op
// elsewhere).
//
// Workers are pinned round-robin over the CPUs the process is *allowed* to run on
// (its sched_getaffinity mask, which respects taskset and cgroup cpusets), never
// over 0..N-1 blindly: CPU 3 may not be ours. With more workers than allowed CPUs,
// CPUs are shared round-robin.
#pragma once

#include <cstddef>
#include <vector>

namespace stealpool {

// The CPUs this process may run on, ascending. Empty if it cannot be determined.
std::vector<int> allowed_cpus();

// Pins the calling thread to `cpu`. Returns false (and changes nothing) on
// failure or on platforms without thread affinity.
bool pin_current_thread(int cpu) noexcept;

// Assigns CPUs to workers 0, 1, 2, ... round-robin over allowed_cpus().
class CoreAssigner {
 public:
  CoreAssigner();
  // -1 if no CPU is known.
  int cpu_for(std::size_t worker_id) const noexcept;

 private:
  std::vector<int> cpus_;
};

// Whether ExecutorConfig pins by default: false. Seed 000 pins on Linux; we
// measured the cost of that first. A task given to an idle pool starts 3-4x
// later when the woken worker is pinned (stealbench wake, 2 cores: p50 20-28 us
// pinned against 5-13 us unpinned, a mutex+condvar pool 9-13 us): the kernel
// can no longer run it on the waker's CPU and must first bring an idle CPU out
// of its sleep. Fork-join barely cares: fib(32) at 2 workers was 3-10% faster
// pinned, nqueens and UTS within noise. oneTBB, OpenMP (OMP_PROC_BIND unset)
// and rayon do not pin by default either. ExecutorConfig::pin_threads = true
// still pins, for users who own the whole machine. docs/wakeup.md has the
// measurements and a trace.
constexpr bool default_pin_threads() noexcept { return false; }

}  // namespace stealpool

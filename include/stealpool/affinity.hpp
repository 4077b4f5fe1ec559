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

// Whether ExecutorConfig pins by default: true on Linux, false elsewhere.
constexpr bool default_pin_threads() noexcept {
#if defined(__linux__)
  return true;
#else
  return false;
#endif
}

}  // namespace stealpool

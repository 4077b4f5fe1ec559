#include "stealpool/affinity.hpp"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace stealpool {

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
#endif
  return cpus;
}

bool pin_current_thread(int cpu) noexcept {
#if defined(__linux__)
  if (cpu < 0 || cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
#else
  (void)cpu;
  return false;
#endif
}

CoreAssigner::CoreAssigner() : cpus_(allowed_cpus()) {}

int CoreAssigner::cpu_for(std::size_t worker_id) const noexcept {
  if (cpus_.empty()) return -1;
  return cpus_[worker_id % cpus_.size()];
}

}  // namespace stealpool

// bench/stealbench/suites.hpp: the suites stealbench runs, in this order. Each
// builder creates the runtimes and data its cases need (before any timing) and
// returns the suite; run_suite() then measures it.
#pragma once

#include <string>
#include <vector>

#include "harness.hpp"

namespace stealbench {

// fib (a task per call), nqueens, UTS T1 and T3: stealpool join against oneTBB
// task_group, OpenMP tasks and the serial code.
Suite forkjoin_suite(const Config& config);
// uniform / triangle / heavy-tailed / tiny parallel_for and a parallel_reduce:
// stealpool's partitioners against oneTBB and OpenMP schedules.
Suite loops_suite(const Config& config);
// One producer thread submits 10^6 tiny tasks, one at a time and in batches:
// stealpool's Executor against a mutex+condvar pool and oneTBB.
Suite throughput_suite(const Config& config);
// Submit-to-start latency of one task given to a parked pool, p50 and p99.
Suite wake_suite(const Config& config);
// CPU an idle pool burns after a burst of work, in % of one core.
Suite idle_suite(const Config& config);

// The suite names, in the order they run.
inline const std::vector<std::string>& suite_names() {
  static const std::vector<std::string> names{"forkjoin", "loops", "throughput", "wake", "idle"};
  return names;
}

// The OpenMP runtime the OpenMP peers use ("libgomp", "libomp" or "not built").
const char* omp_runtime_name();
// "stealpool", then the task-parallel peers this build has: "oneTBB", "OpenMP".
std::vector<std::string> task_runtimes();

}  // namespace stealbench

// bench/stealbench/report.hpp: what stealbench writes once its suites have run:
// the terminal table, the JSON file (every figure and the machine description)
// and the SVG chart.
#pragma once

#include <string>
#include <vector>

#include "harness.hpp"

namespace stealbench {

// The machine and build a run was taken on.
struct Machine {
  std::string cpu;           // /proc/cpuinfo's model name
  unsigned hardware_threads = 0;
  std::size_t available = 0;  // stealpool::available_parallelism(): affinity and cgroup quota
  std::string kernel;        // uname -sr
  std::string compiler;
  std::string omp_runtime;
  std::string tbb_version;
  static Machine describe();
};

// One suite's table: per workload, the serial row then every other row; median,
// min and max over the repetitions, the speedup over the serial median and, for
// stealpool rows, the best peer's median over this row's (above 1: stealpool was
// faster).
void print_suite(const Suite& suite);
// Per suite, workload and worker count: the best stealpool row against the best
// peer row.
void print_summary(const std::vector<Suite>& suites);

void write_json(const std::string& path, const Machine& machine, const Config& config, const std::string& command,
                const std::vector<Suite>& suites);
// Two charts: each workload's median per runtime at the largest worker count
// (bars, relative to the slowest), and the speedup over serial against the
// worker count for every workload that has a serial row.
void write_svg(const std::string& path, const Machine& machine, const std::vector<Suite>& suites);

}  // namespace stealbench

// sim/scaling.hpp: the scaling study of shared cache-line writes (sim/README.md,
// "Shared cache-line writes: a proxy for scaling"): one workload (a case) run
// at several worker counts over several seeds, reduced to medians per task.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "case_file.hpp"
#include "shared_lines.hpp"

namespace stealpool::sim {

// One worker count: each figure is the median over the seeds of that figure
// (so the kinds need not add up to the total exactly).
struct ScalingRow {
  std::size_t workers = 0;
  double tasks = 0;            // tasks (fork-join: calls) run
  double writes_per_task = 0;  // shared-line writes per task
  double steals_per_task = 0;  // successful steals from other workers' deques per task
  // (writes_per_task - the 1-worker row's) / steals_per_task: the writes that
  // come with parallelism, per steal. 0: no 1-worker row, or no steal.
  double extra_writes_per_steal = 0;
  std::array<double, kLineKinds> kind_per_task{};
  std::array<double, kLineOps> op_per_task{};  // writes per task by operation
};

struct ScalingStudy {
  std::vector<ScalingRow> rows;
  std::string violation;  // non-empty: a run failed ("workers W seed S: ...")
};

// Runs `c` with its worker count replaced by each of `workers`, for the seeds
// first..last.
ScalingStudy run_scaling(Case c, const std::vector<std::size_t>& workers, std::uint64_t first, std::uint64_t last);

// The table: workers, tasks, writes per task (and by kind), steals per task,
// extra writes per steal.
std::string format_scaling(const ScalingStudy& s);

// The operations whose writes per task changed most between the first and the
// last row, largest first (at most `n`): what grows with the worker count.
std::string format_growth(const ScalingStudy& s, std::size_t n);

double median(std::vector<double> v);

}  // namespace stealpool::sim

// sim/scaling.cpp: the scaling study (scaling.hpp).
#include "scaling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "simulator.hpp"

namespace stealpool::sim {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

ScalingStudy run_scaling(Case c, const std::vector<std::size_t>& workers, std::uint64_t first, std::uint64_t last) {
  ScalingStudy s;
  for (std::size_t w : workers) {
    c.workers = w;
    std::vector<double> tasks, writes, steals;
    std::array<std::vector<double>, kLineKinds> kinds;
    std::array<std::vector<double>, kLineOps> ops;
    for (std::uint64_t seed = first;; ++seed) {
      const RunResult r = run_case(c, seed, Mutant::none, false);
      if (!r.ok) {
        s.violation = "workers " + std::to_string(w) + " seed " + std::to_string(seed) + ": " + r.violation;
        return s;
      }
      // A run with no task has no per-task figure; the case files never do that.
      const double n = r.executed == 0 ? 1.0 : static_cast<double>(r.executed);
      tasks.push_back(static_cast<double>(r.executed));
      writes.push_back(static_cast<double>(r.shared_writes.total()) / n);
      steals.push_back(static_cast<double>(r.metrics.steal_successes) / n);
      for (std::size_t k = 0; k < kLineKinds; ++k)
        kinds[k].push_back(static_cast<double>(r.shared_writes.kinds[k]) / n);
      for (std::size_t o = 0; o < kLineOps; ++o)
        ops[o].push_back(static_cast<double>(r.shared_writes.writes_of(static_cast<LineOp>(o))) / n);
      if (seed == last) break;
    }
    ScalingRow row;
    row.workers = w;
    row.tasks = median(tasks);
    row.writes_per_task = median(writes);
    row.steals_per_task = median(steals);
    for (std::size_t k = 0; k < kLineKinds; ++k) row.kind_per_task[k] = median(kinds[k]);
    for (std::size_t o = 0; o < kLineOps; ++o) row.op_per_task[o] = median(ops[o]);
    s.rows.push_back(row);
  }
  if (!s.rows.empty() && s.rows.front().workers == 1)
    for (ScalingRow& row : s.rows)
      if (row.steals_per_task > 0)
        row.extra_writes_per_steal = (row.writes_per_task - s.rows.front().writes_per_task) / row.steals_per_task;
  return s;
}

std::string format_scaling(const ScalingStudy& s) {
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "| workers | tasks | shared writes / task |");
  out += buf;
  for (const char* k : kLineKindNames) out += std::string(" ") + k + " |";
  out += " steals / task | extra writes / steal |\n|---:|---:|---:|";
  for (std::size_t k = 0; k < kLineKinds; ++k) out += "---:|";
  out += "---:|---:|\n";
  for (const ScalingRow& r : s.rows) {
    std::snprintf(buf, sizeof buf, "| %zu | %.0f | %.3f |", r.workers, r.tasks, r.writes_per_task);
    out += buf;
    for (double k : r.kind_per_task) {
      std::snprintf(buf, sizeof buf, " %.3f |", k);
      out += buf;
    }
    std::snprintf(buf, sizeof buf, " %.4f |", r.steals_per_task);
    out += buf;
    if (r.extra_writes_per_steal == 0) std::snprintf(buf, sizeof buf, " - |\n");
    else std::snprintf(buf, sizeof buf, " %.1f |\n", r.extra_writes_per_steal);
    out += buf;
  }
  return out;
}

std::string format_growth(const ScalingStudy& s, std::size_t n) {
  if (s.rows.size() < 2) return "";
  const ScalingRow& a = s.rows.front();
  const ScalingRow& b = s.rows.back();
  std::vector<std::pair<double, std::size_t>> delta;
  for (std::size_t o = 0; o < kLineOps; ++o) delta.emplace_back(b.op_per_task[o] - a.op_per_task[o], o);
  std::sort(delta.begin(), delta.end(),
            [](const auto& x, const auto& y) { return std::abs(x.first) > std::abs(y.first); });
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "  change in writes per task from %zu to %zu workers, by operation:", a.workers,
                b.workers);
  out += buf;
  for (std::size_t i = 0; i < n && i < delta.size() && delta[i].first != 0; ++i) {
    const std::size_t o = delta[i].second;
    std::snprintf(buf, sizeof buf, " %s %+.3f (%.3f -> %.3f);", kLineCosts[o].name, delta[i].first,
                  a.op_per_task[o], b.op_per_task[o]);
    out += buf;
  }
  return out + "\n";
}

}  // namespace stealpool::sim

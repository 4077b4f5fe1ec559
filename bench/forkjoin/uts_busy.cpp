// uts_busy: how the workers spend a UTS run, for the join and the TaskGroup
// versions of stealbench's stealpool runtime (peer_stealpool.cpp): per worker,
// the time inside the TraceRecorder's "run" slices, the time between them
// (looking for work, parked) and the steals. docs/benchmarks.md uses it to show
// that both versions keep every worker busy at 2 workers.
//
//   uts_busy [--tree T1|T3] [--workers N] [--runs R]     (defaults T3, 2, 5)
//
// Each version first runs the tree once on an untraced pool (a warm-up), then R
// times on a traced one; the figures are the sums over the R runs. A gap
// between two runs counts as time between slices (microseconds here).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "../common/bench_cli.hpp"
#include "stealpool/executor_config.hpp"
#include "stealpool/trace_recorder.hpp"
#include "workloads.hpp"

namespace {

using stealbench::fj::UtsTree;
using Kind = stealpool::TraceRecorder::Kind;

struct Lane {
  double run_ms = 0, between_ms = 0, parked_ms = 0;
  long steals = 0;
};

Lane summarize(const std::vector<stealpool::TraceRecorder::Event>& events) {
  Lane lane;
  std::int64_t begin = -1, end = -1, park = -1;
  for (const auto& e : events) {
    switch (e.kind) {
      case Kind::run_begin:
        if (end >= 0) lane.between_ms += static_cast<double>(e.ns - end) / 1e6;
        begin = e.ns;
        end = -1;
        break;
      case Kind::run_end:
        if (begin >= 0) lane.run_ms += static_cast<double>(e.ns - begin) / 1e6;
        begin = -1;
        end = e.ns;
        break;
      case Kind::steal: ++lane.steals; break;
      case Kind::park: park = e.ns; break;
      case Kind::unpark_notified:
      case Kind::unpark_timeout:
        if (park >= 0) lane.parked_ms += static_cast<double>(e.ns - park) / 1e6;
        park = -1;
        break;
    }
  }
  return lane;
}

int measure(const UtsTree& tree, bool group, std::size_t workers, int runs) {
  const char* name = group ? "TaskGroup" : "join";
  {
    const auto warm = stealbench::fj::make_stealpool_runtime(workers, group);
    if (warm->uts(tree) != tree.nodes) return 1;
  }
  stealpool::TraceRecorder rec(workers);
  stealpool::ExecutorConfig cfg;
  cfg.workers = workers;
  cfg.trace = &rec;
  double wall_ms = 0;
  {
    const auto rt = stealbench::fj::make_stealpool_runtime(cfg, group);
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < runs; ++r)
      if (rt->uts(tree) != tree.nodes) return 1;
    wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }  // destroyed: the recorder may be read now
  std::printf("%-9s %d runs, %.1f ms in all (%.1f ms a run)%s\n", name, runs, wall_ms, wall_ms / runs,
              rec.dropped() != 0 ? "; events dropped: figures incomplete" : "");
  for (std::size_t w = 0; w < workers; ++w) {
    const Lane l = summarize(rec.events(w));
    std::printf("  worker %zu: running %.1f ms, between runs of tasks %.1f ms (parked %.1f), steals %ld\n", w,
                l.run_ms, l.between_ms, l.parked_ms, l.steals);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string tree_name = "T3";
  std::size_t workers = 2;
  int runs = 5;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "--tree") == 0) tree_name = stealbench::option_value(argc, argv, i, a);
    else if (std::strcmp(a, "--workers") == 0)
      workers = static_cast<std::size_t>(stealbench::positive_arg(a, stealbench::option_value(argc, argv, i, a), 4096));
    else if (std::strcmp(a, "--runs") == 0)
      runs = static_cast<int>(stealbench::positive_arg(a, stealbench::option_value(argc, argv, i, a), 1000));
    else {
      std::fprintf(stderr, "uts_busy: unknown argument '%s' (see the header of uts_busy.cpp)\n", a);
      return 2;
    }
  }
  if (tree_name != "T1" && tree_name != "T3") {
    std::fprintf(stderr, "uts_busy: --tree must be T1 or T3 (got '%s')\n", tree_name.c_str());
    return 2;
  }
  const UtsTree& tree = tree_name == "T1" ? stealbench::fj::kUtsT1 : stealbench::fj::kUtsT3;
  std::printf("UTS %s, %zu workers\n", tree_name.c_str(), workers);
  try {
    for (bool group : {false, true})
      if (measure(tree, group, workers, runs) != 0) {
        std::fprintf(stderr, "uts_busy: wrong node count\n");
        return 1;
      }
  } catch (const std::exception& e) {  // e.g. more workers than ExecutorConfig accepts
    std::fprintf(stderr, "uts_busy: %s\n", e.what());
    return 2;
  }
  return 0;
}

// Parallel-loop benchmark: stealpool's partitioners against oneTBB parallel_for
// (auto_partitioner), OpenMP worksharing loops (static, dynamic, dynamic with
// stealpool's grain, guided) and the serial loop, in one run, on four loops
// (loops.hpp): uniform, triangle (work proportional to the index), pareto (a
// heavy-tailed fixed-seed draw) and tiny (1000 trivial indices: the overhead of one
// loop). Every run's result is checked against the serial loop's, exactly, and a
// wrong one fails the program (exit 1).
//
//   stealpool_loops [--workers 1,2] [--reps R] [--only SUBSTR] [--quick]
//
// --only keeps the rows whose name "loop/runtime/schedule/workers" (e.g.
// triangle/stealpool/adaptive/2, pareto/omp/guided/1) contains SUBSTR; a loop keeps
// its serial row whenever one of its rows is kept, so that speedups can be computed.
// --quick: 1 rep, loops 100 times smaller, the tiny loop repeated 100 times (a smoke
// test).
//
// Each runtime is created once per worker count, before any timing, and reused for
// every run. Repetitions are interleaved (rep 1 of every row, then rep 2, ...), as in
// stealpool_forkjoin: on a small machine, noise and what a runtime leaves behind
// (spinning workers) then hit every row alike.
//
// Prints per row the median / min / max time (ms per loop; for tiny, microseconds per
// loop), the speedup over the serial median, the median against the ideal (serial
// median / workers: 100% is ideal, above is slower), and for stealpool rows the best
// peer's median (oneTBB or any OpenMP schedule, same loop and workers) divided by
// this row's: above 1 means stealpool was faster.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../common/bench_cli.hpp"
#include "loops.hpp"

namespace stealbench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options : CommonOptions {
  Options() { reps = 7; }
};

// --- the loops --------------------------------------------------------------------------
// Sizes for the project machine (2 cores, about 1.7 ns per recurrence step): serial
// about 500 ms uniform, 550 ms triangle, 500 ms pareto.
constexpr int kHeavyN = 25'600;
constexpr std::uint32_t kUniformIters = 11'600;  // 297 M steps
constexpr double kParetoAlpha = 1.5;             // infinite variance
constexpr double kParetoCap = 300;               // at most 300 x the minimum (about 100 x the mean)
constexpr std::uint64_t kParetoSeed = 0x5eed'1005;
constexpr int kTinyN = 1000;
constexpr int kTinyRepeat = 1000;

struct Workload {
  Loop loop;
  std::vector<std::uint32_t> iters;  // heavy loops
  std::vector<std::uint64_t> out;    // n slots
  std::uint64_t expected = 0;        // sum(out) after the serial loop
  std::uint64_t total_iters = 0;     // heavy: sum(iters)
  std::uint32_t max_iters = 0;
  double unit_scale = 1.0;  // displayed value = ms * unit_scale
  const char* unit = "ms";
  int decimals = 1;
};

// A fixed-seed draw from a Pareto distribution (minimum xm, tail index alpha), capped
// at kParetoCap * xm, with xm chosen so that the counts add up to about `total`.
std::vector<std::uint32_t> pareto_iters(int n, std::uint64_t total) {
  std::vector<double> raw(static_cast<std::size_t>(n));
  std::uint64_t state = kParetoSeed;
  for (double& r : raw) {
    state += 0x9e3779b97f4a7c15ULL;  // splitmix64
    const double u = static_cast<double>(mix64(state) >> 11) * 0x1.0p-53;  // [0, 1)
    r = std::min(kParetoCap, std::pow(1.0 - u, -1.0 / kParetoAlpha));    // >= 1
  }
  const double xm = static_cast<double>(total) / std::accumulate(raw.begin(), raw.end(), 0.0);
  std::vector<std::uint32_t> iters(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) iters[i] = static_cast<std::uint32_t>(std::llround(raw[i] * xm));
  return iters;
}

std::vector<std::unique_ptr<Workload>> workloads(const Options& o) {
  const int heavy_n = o.quick ? kHeavyN / 10 : kHeavyN;
  const std::uint32_t uniform = o.quick ? kUniformIters / 10 : kUniformIters;
  std::vector<std::unique_ptr<Workload>> ws;
  auto heavy = [&](const char* name, std::vector<std::uint32_t> iters) {
    auto w = std::make_unique<Workload>();
    w->iters = std::move(iters);
    for (std::uint32_t k : w->iters) w->total_iters += k;
    w->max_iters = *std::max_element(w->iters.begin(), w->iters.end());
    w->loop.name = name;
    w->loop.kind = LoopKind::kHeavy;
    w->loop.n = heavy_n;
    w->loop.iters = w->iters.data();
    ws.push_back(std::move(w));
  };
  heavy("uniform", std::vector<std::uint32_t>(static_cast<std::size_t>(heavy_n), uniform));
  std::vector<std::uint32_t> tri(static_cast<std::size_t>(heavy_n));
  std::iota(tri.begin(), tri.end(), 0u);
  heavy("triangle", std::move(tri));
  heavy("pareto", pareto_iters(heavy_n, static_cast<std::uint64_t>(heavy_n) * uniform));

  auto tiny = std::make_unique<Workload>();
  tiny->loop.name = "tiny";
  tiny->loop.kind = LoopKind::kTiny;
  tiny->loop.n = kTinyN;
  tiny->loop.repeat = o.quick ? kTinyRepeat / 10 : kTinyRepeat;
  tiny->unit_scale = 1000.0 / tiny->loop.repeat;  // ms per run -> us per loop
  tiny->unit = "us/loop";
  tiny->decimals = 2;
  ws.push_back(std::move(tiny));
  for (auto& w : ws) {
    w->out.assign(static_cast<std::size_t>(w->loop.n), 0);
    w->loop.out = w->out.data();
  }
  return ws;
}

// The serial loop behind the Runtime interface.
class SerialRuntime final : public Runtime {
 public:
  std::vector<std::string> schedules() const override { return {"serial"}; }
  void run(const Loop& loop, std::size_t) override {
    run_loop(loop, [](int n, auto& body) {
      for (int i = 0; i < n; ++i) body(i);
    });
  }
};

std::uint64_t checksum(const Workload& w) {
  std::uint64_t s = 0;  // wrapping
  for (std::uint64_t v : w.out) s += v;
  return s;
}

void clear(Workload& w) { std::fill(w.out.begin(), w.out.end(), 0); }

// The reference sums, from one untimed serial run of each loop; the tiny loop's is
// also checked against its closed form.
void reference(std::vector<std::unique_ptr<Workload>>& ws, SerialRuntime& serial) {
  for (auto& w : ws) {
    clear(*w);
    serial.run(w->loop, 0);
    w->expected = checksum(*w);
    if (w->loop.kind == LoopKind::kTiny) {
      std::uint64_t want = 0;
      for (int i = 0; i < w->loop.n; ++i) want += tiny_value(i) * static_cast<std::uint64_t>(w->loop.repeat);
      if (want != w->expected) {
        std::fprintf(stderr, "WRONG RESULT: serial tiny loop sums to %llu, want %llu\n",
                     static_cast<unsigned long long>(w->expected), static_cast<unsigned long long>(want));
        std::exit(1);
      }
    }
  }
}

// --- rows -------------------------------------------------------------------------------
struct Row : Samples {
  Workload* workload;
  std::string runtime;   // serial, stealpool, tbb, omp
  std::string schedule;  // stealing, auto, guided, ...
  std::size_t index;     // the schedule's index in the runtime
  std::size_t workers;   // 0 for serial
  Runtime* rt;
  bool peer() const { return runtime == "tbb" || runtime == "omp"; }
  std::string label() const { return runtime == "serial" ? runtime : runtime + " " + schedule; }
};

std::string row_key(const Workload& w, const std::string& runtime, const std::string& schedule,
                    std::size_t workers) {
  return runtime == "serial" ? w.loop.name + "/serial"
                             : w.loop.name + "/" + runtime + "/" + schedule + "/" + std::to_string(workers);
}

[[noreturn]] void usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s [--workers 1,2] [--reps R] [--only SUBSTR] [--quick]\n", argv0);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (!parse_common_option(argc, argv, i, o)) usage(argv[0]);
  }
  finish_common_options(o);
  return o;
}

void run_interleaved(std::vector<Row>& rows, const Options& o) {
  for (int rep = 0; rep < o.reps; ++rep)
    for (auto& row : rows) {
      Workload& w = *row.workload;
      clear(w);
      const auto t0 = Clock::now();
      row.rt->run(w.loop, row.index);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      const std::uint64_t got = checksum(w);
      if (got != w.expected) {
        std::fprintf(stderr, "WRONG RESULT from %s (rep %d): checksum %llu, want %llu\n",
                     row_key(w, row.runtime, row.schedule, row.workers).c_str(), rep + 1,
                     static_cast<unsigned long long>(got), static_cast<unsigned long long>(w.expected));
        std::exit(1);
      }
      row.ms.push_back(ms);
    }
}

void print_table(const std::vector<Row>& rows) {
  const Workload* last = nullptr;
  for (const Row& r : rows) {
    const Workload& w = *r.workload;
    if (last != &w) {
      std::printf("\n%-9s %7s  %-22s %10s %10s %10s %9s %9s %10s   [%s]\n", "loop", "workers", "runtime", "median",
                  "min", "max", "speedup", "vs ideal", "peer/ours", w.unit);
      last = &w;
    }
    double serial = 0, best_peer = 0;
    for (const Row& o : rows) {
      if (o.workload != &w) continue;
      if (o.runtime == "serial") serial = o.median();
      if (o.peer() && o.workers == r.workers) best_peer = best_peer == 0 ? o.median() : std::min(best_peer, o.median());
    }
    std::string name = r.runtime == "omp" ? "omp " + r.schedule : r.label();
    const std::string workers = r.workers == 0 ? "-" : std::to_string(r.workers);
    const double s = w.unit_scale;
    const int d = w.decimals;
    std::printf("%-9s %7s  %-22s %10.*f %10.*f %10.*f", w.loop.name.c_str(), workers.c_str(), name.c_str(), d,
                r.median() * s, d, r.min() * s, d, r.max() * s);
    if (serial > 0 && r.runtime != "serial") {
      const double ideal = serial / static_cast<double>(r.workers);
      std::printf(" %8.3fx %8.1f%%", serial / r.median(), 100.0 * r.median() / ideal);
    } else {
      std::printf(" %9s %9s", "", "");
    }
    if (r.runtime == "stealpool" && best_peer > 0) std::printf(" %9.3fx", best_peer / r.median());
    std::printf("\n");
  }
  std::printf(
      "\nspeedup: serial median / row median. vs ideal: row median / (serial median / workers), 100%% = ideal,\n"
      "above = slower. peer/ours: the best peer's median (oneTBB or an OpenMP schedule, same loop and workers) /\n"
      "this stealpool row's median; above 1 means stealpool was faster. omp is %s.\n",
      omp_runtime_name());

  // The best stealpool partitioner and the best peer, per loop and worker count.
  std::printf("\nbest per loop and workers:\n");
  std::vector<std::pair<const Workload*, std::size_t>> seen;
  for (const Row& r : rows) {
    if (r.runtime == "serial") continue;
    const std::pair<const Workload*, std::size_t> key{r.workload, r.workers};
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    const Row* ours = nullptr;
    const Row* peer = nullptr;
    for (const Row& o : rows) {
      if (o.workload != r.workload || o.workers != r.workers) continue;
      if (o.runtime == "stealpool" && (!ours || o.median() < ours->median())) ours = &o;
      if (o.peer() && (!peer || o.median() < peer->median())) peer = &o;
    }
    const double s = r.workload->unit_scale;
    char ours_text[64] = "-", peer_text[64] = "-";
    if (ours) std::snprintf(ours_text, sizeof ours_text, "%s %.*f", ours->schedule.c_str(), r.workload->decimals,
                          ours->median() * s);
    if (peer) std::snprintf(peer_text, sizeof peer_text, "%s %.*f", peer->label().c_str(), r.workload->decimals,
                          peer->median() * s);
    std::printf("  %-9s W=%zu  stealpool: %-22s  peer: %-24s", r.workload->loop.name.c_str(), r.workers, ours_text,
                peer_text);
    if (ours && peer) std::printf("  peer/ours %.3fx", peer->median() / ours->median());
    std::printf("\n");
  }
}

}  // namespace
}  // namespace stealbench

int main(int argc, char** argv) {
  using namespace stealbench;
  const Options o = parse(argc, argv);
  std::vector<std::unique_ptr<Workload>> work = workloads(o);

  std::vector<std::string> runtimes{"stealpool"};
#if STEALBENCH_HAVE_TBB
  runtimes.push_back("tbb");
#endif
#if STEALBENCH_HAVE_OMP
  runtimes.push_back("omp");
#endif

  // The runtimes, each created once per worker count, before any timing.
  SerialRuntime serial;
  std::map<std::pair<std::string, std::size_t>, std::unique_ptr<Runtime>> pools;
  auto runtime = [&](const std::string& name, std::size_t workers) -> Runtime* {
    auto& slot = pools[{name, workers}];
    if (!slot) {
      if (name == "stealpool") slot = make_stealpool_runtime(workers);
#if STEALBENCH_HAVE_TBB
      if (name == "tbb") slot = make_tbb_runtime(workers);
#endif
#if STEALBENCH_HAVE_OMP
      if (name == "omp") slot = make_omp_runtime(workers);
#endif
    }
    return slot.get();
  };
  auto wanted = [&](const std::string& key) { return o.only.empty() || key.find(o.only) != std::string::npos; };
  std::vector<Row> rows;
  for (auto& wp : work) {
    Workload& w = *wp;
    std::vector<Row> parallel;
    for (std::size_t workers : o.workers)
      for (const std::string& name : runtimes) {
        Runtime* rt = runtime(name, workers);
        const std::vector<std::string> schedules = rt->schedules();
        for (std::size_t i = 0; i < schedules.size(); ++i)
          if (wanted(row_key(w, name, schedules[i], workers)))
            parallel.push_back({{}, &w, name, schedules[i], i, workers, rt});
      }
    if (parallel.empty() && !wanted(row_key(w, "serial", "", 0))) continue;
    rows.push_back({{}, &w, "serial", "", 0, 0, &serial});
    for (auto& r : parallel) rows.push_back(std::move(r));
  }

  std::printf("loops: %d reps, workers", o.reps);
  for (std::size_t w : o.workers) std::printf(" %zu", w);
  std::printf(", %u hardware threads; peers: oneTBB %s, OpenMP %s\n", std::thread::hardware_concurrency(),
              STEALBENCH_HAVE_TBB ? "parallel_for auto_partitioner" : "not built", omp_runtime_name());
  for (const auto& w : work) {
    if (w->loop.kind == LoopKind::kHeavy)
      std::printf("  %-9s n = %d, %.1f M recurrence steps in all, at most %u per index\n", w->loop.name.c_str(),
                  w->loop.n, static_cast<double>(w->total_iters) / 1e6, w->max_iters);
    else
      std::printf("  %-9s n = %d trivial indices, %d loops per timed run\n", w->loop.name.c_str(), w->loop.n,
                  w->loop.repeat);
  }
  reference(work, serial);
  std::printf("reference checksums from one untimed serial run of each loop: ok\n");
  run_interleaved(rows, o);
  print_table(rows);
  return 0;
}

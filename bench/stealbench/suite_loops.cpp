// The loops suite: the loops of bench/loops/loops.hpp on every runtime there
// (stealpool's partitioners, oneTBB auto_partitioner, OpenMP schedules, the
// serial loop), plus a parallel_reduce.
//
// Sizes (n indices; heavy loops: recurrence steps, about 1.7 ns each here):
//   --full    n = 25,600, uniform 11,600 steps per index: about 500 ms serial each
//   default   n = 12,800, uniform 5,800: about 125 ms serial each
//   --quick   n = 2,560, uniform 1,160, the tiny loop 100 times per run
// The tiny loop (1000 trivial indices) runs 1000 times per timed run and is
// reported in microseconds per loop. The reduction sums reduce_value(i) over
// 2^24 indices (2^20 with --quick).
//
// Every run is checked exactly against the serial loop: each index adds its value
// into out[i], so a skipped or doubled index changes the wrapping sum of out.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "../loops/loops.hpp"
#include "suites.hpp"

namespace stealbench {
namespace {

using loops::Loop;
using loops::LoopKind;
using loops::Runtime;

constexpr double kParetoAlpha = 1.5;  // infinite variance
constexpr double kParetoCap = 300;    // at most 300 x the minimum (about 100 x the mean)
constexpr std::uint64_t kParetoSeed = 0x5eed'1005;
constexpr int kTinyN = 1000;

struct Workload {
  Loop loop;
  std::vector<std::uint32_t> iters;  // heavy loops
  std::vector<std::uint64_t> out;    // n slots
  std::optional<std::uint64_t> expected;  // sum(out) after the serial loop, once a row needs it
  double scale = 1.0;                // reported value = ms * scale
  std::string unit = "ms";
};

// A fixed-seed draw from a Pareto distribution (minimum xm, tail index alpha), capped
// at kParetoCap * xm, with xm chosen so that the counts add up to about `total`.
std::vector<std::uint32_t> pareto_iters(int n, std::uint64_t total) {
  std::vector<double> raw(static_cast<std::size_t>(n));
  std::uint64_t state = kParetoSeed;
  for (double& r : raw) {
    state += 0x9e3779b97f4a7c15ULL;  // splitmix64
    const double u = static_cast<double>(loops::mix64(state) >> 11) * 0x1.0p-53;  // [0, 1)
    r = std::min(kParetoCap, std::pow(1.0 - u, -1.0 / kParetoAlpha));           // >= 1
  }
  const double xm = static_cast<double>(total) / std::accumulate(raw.begin(), raw.end(), 0.0);
  std::vector<std::uint32_t> iters(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) iters[i] = static_cast<std::uint32_t>(std::llround(raw[i] * xm));
  return iters;
}

class SerialRuntime final : public Runtime {
 public:
  std::vector<std::string> schedules() const override { return {""}; }
  void run(const Loop& loop, std::size_t) override {
    loops::run_loop(loop, [](int n, auto& body) {
      for (int i = 0; i < n; ++i) body(i);
    });
  }
  std::uint64_t reduce(int n) override { return loops::reduce_serial(n); }
};

std::uint64_t checksum(const Workload& w) {
  std::uint64_t s = 0;  // wrapping
  for (std::uint64_t v : w.out) s += v;
  return s;
}

std::unique_ptr<Runtime> make_runtime(const std::string& name, std::size_t workers) {
  if (name == "stealpool") return loops::make_stealpool_runtime(workers);
#if STEALBENCH_HAVE_TBB
  if (name == "oneTBB") return loops::make_tbb_runtime(workers);
#endif
#if STEALBENCH_HAVE_OMP
  if (name == "OpenMP") return loops::make_omp_runtime(workers);
#endif
  throw std::logic_error("loops suite: no runtime '" + name + "'");
}

struct State {
  std::vector<std::unique_ptr<Workload>> work;
  int reduce_n = 0;
  std::optional<std::uint64_t> reduce_expected;  // once a reduce row needs it
  SerialRuntime serial;
  RuntimeCache<Runtime> runtimes{make_runtime};

  void make_workloads(const Config& c) {
    const int n = c.quick ? 2'560 : c.full ? 25'600 : 12'800;
    const std::uint32_t uniform = c.quick ? 1'160 : c.full ? 11'600 : 5'800;
    auto heavy = [&](const char* name, std::vector<std::uint32_t> iters) {
      auto w = std::make_unique<Workload>();
      w->iters = std::move(iters);
      w->loop.name = name;
      w->loop.kind = LoopKind::kHeavy;
      w->loop.n = n;
      w->loop.iters = w->iters.data();
      work.push_back(std::move(w));
    };
    heavy("uniform", std::vector<std::uint32_t>(static_cast<std::size_t>(n), uniform));
    // iters[i] proportional to i: i itself with --full (the loop issue's table),
    // else scaled to about the uniform loop's work.
    std::vector<std::uint32_t> tri(static_cast<std::size_t>(n));
    const double slope = c.full ? 1.0 : 2.0 * uniform / n;
    for (std::size_t i = 0; i < tri.size(); ++i) tri[i] = static_cast<std::uint32_t>(static_cast<double>(i) * slope);
    heavy("triangle", std::move(tri));
    heavy("pareto", pareto_iters(n, static_cast<std::uint64_t>(n) * uniform));

    auto tiny = std::make_unique<Workload>();
    tiny->loop.name = "tiny";
    tiny->loop.kind = LoopKind::kTiny;
    tiny->loop.n = kTinyN;
    tiny->loop.repeat = c.quick ? 100 : 1000;
    tiny->scale = 1000.0 / tiny->loop.repeat;  // ms per run -> us per loop
    tiny->unit = "us/loop";
    work.push_back(std::move(tiny));
    for (auto& w : work) {
      w->out.assign(static_cast<std::size_t>(w->loop.n), 0);
      w->loop.out = w->out.data();
    }
    reduce_n = c.quick ? 1 << 20 : 1 << 24;
  }

  // The reference results, computed (untimed) before the first run that needs
  // them, so that `--only` runs of other suites do not pay for every loop.
  std::uint64_t expected(Workload& w) {
    if (!w.expected) {
      std::fill(w.out.begin(), w.out.end(), 0);
      serial.run(w.loop, 0);
      w.expected = checksum(w);
    }
    return *w.expected;
  }
  std::uint64_t expected_reduce() {
    if (!reduce_expected) reduce_expected = loops::reduce_serial(reduce_n);
    return *reduce_expected;
  }
};

std::function<void(std::span<double>)> timed_loop(Runtime& rt, std::size_t schedule, Workload& w, State& st) {
  return [&rt, schedule, &w, &st](std::span<double> out) {
    const std::uint64_t want = st.expected(w);
    std::fill(w.out.begin(), w.out.end(), 0);
    out[0] = w.scale * time_ms([&] { rt.run(w.loop, schedule); });
    const std::uint64_t got = checksum(w);
    if (got != want) throw WrongResult("checksum " + std::to_string(got) + ", want " + std::to_string(want));
  };
}

std::function<void(std::span<double>)> timed_reduce(Runtime& rt, State& st) {
  return [&rt, &st](std::span<double> out) {
    const std::uint64_t want = st.expected_reduce();
    std::uint64_t got = 0;
    out[0] = time_ms([&] { got = rt.reduce(st.reduce_n); });
    if (got != want) throw WrongResult("sum " + std::to_string(got) + ", want " + std::to_string(want));
  };
}

}  // namespace

Suite loops_suite(const Config& config) {
  Suite s;
  s.name = "loops";
  s.reps = config.reps_or(5);
  auto state = std::make_shared<State>();
  state->make_workloads(config);
  s.keep_alive = state;

  SuiteBuilder b(s, config);
  for (auto& wp : state->work) {
    Workload& w = *wp;
    for (std::size_t workers : config.workers)
      for (const std::string& name : task_runtimes()) {
        Runtime& rt = state->runtimes.get(name, workers);
        const auto schedules = rt.schedules();
        for (std::size_t i = 0; i < schedules.size(); ++i)
          if (const long row = b.add({w.loop.name, name, schedules[i], workers, w.unit, {}}); row >= 0)
            b.add_case({row}, timed_loop(rt, i, w, *state));
      }
    b.add_serial({w.loop.name, "serial", "", 0, w.unit, {}}, timed_loop(state->serial, 0, w, *state));
  }
  const std::map<std::string, std::string> reduce_idiom{
      {"stealpool", "parallel_reduce"}, {"oneTBB", "parallel_reduce"}, {"OpenMP", "reduction static"}};
  for (std::size_t workers : config.workers)
    for (const std::string& name : task_runtimes())
      if (const long row = b.add({"reduce", name, reduce_idiom.at(name), workers, "ms", {}}); row >= 0)
        b.add_case({row}, timed_reduce(state->runtimes.get(name, workers), *state));
  b.add_serial({"reduce", "serial", "", 0, "ms", {}}, timed_reduce(state->serial, *state));

  const Workload& first = *state->work.front();
  s.title = "parallel loops: n = " + std::to_string(first.loop.n) + " heavy indices (uniform, triangle, pareto), " +
            "1000-index tiny loop, reduce over " + std::to_string(state->reduce_n) + " indices; OpenMP is " +
            omp_runtime_name();
  s.notes.push_back("checked every run: the wrapping sum of every index's output equals the serial loop's");
  return s;
}

}  // namespace stealbench

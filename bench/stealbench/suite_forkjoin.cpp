// The fork-join suite: fib, nqueens and UTS on every runtime of bench/forkjoin/
// (stealpool join, oneTBB task_group, OpenMP tasks, the serial code). Sizes:
//   default  fib(32) (--fib N,M to choose), nqueens(12), UTS T1 and T3
//   --quick  fib(25), nqueens(9), UTS T3 (one rep)
//   --full   fib(30) and fib(35), and UTS also with a TaskGroup per node
// Every run's result is checked: fib against the closed loop, nqueens against the
// known counts, UTS against the published node counts.
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "../forkjoin/workloads.hpp"
#include "suites.hpp"

namespace stealbench {
namespace {

using fj::Runtime;

enum class Kind { kFib, kQueens, kUts };

struct Workload {
  std::string name;
  Kind kind;
  int n = 0;                        // fib, nqueens
  const fj::UtsTree* tree = nullptr;  // uts
  std::uint64_t expected = 0;
};

std::uint64_t run_workload(Runtime& rt, const Workload& w) {
  switch (w.kind) {
    case Kind::kFib: return rt.fib(w.n);
    case Kind::kQueens: return rt.nqueens(w.n);
    case Kind::kUts: return rt.uts(*w.tree);
  }
  return 0;
}

class SerialRuntime final : public Runtime {
 public:
  std::uint64_t fib(int n) override { return fj::fib_serial(n); }
  std::uint64_t nqueens(int n) override { return fj::nqueens_serial(n); }
  std::uint64_t uts(const fj::UtsTree& tree) override { return fj::uts_count_serial(tree, fj::uts_root(tree)); }
};

std::vector<Workload> workloads(const Config& c) {
  std::vector<Workload> w;
  for (int n : c.quick ? std::vector<int>{25} : c.fib)
    w.push_back({"fib" + std::to_string(n), Kind::kFib, n, nullptr, fj::fib_expected(n)});
  const int q = c.quick ? 9 : 12;
  w.push_back({"nqueens" + std::to_string(q), Kind::kQueens, q, nullptr, fj::kQueensSolutions[static_cast<std::size_t>(q)]});
  if (!c.quick) w.push_back({"uts_t1", Kind::kUts, 0, &fj::kUtsT1, fj::kUtsT1.nodes});
  w.push_back({"uts_t3", Kind::kUts, 0, &fj::kUtsT3, fj::kUtsT3.nodes});
  return w;
}

std::unique_ptr<Runtime> make_runtime(const std::string& name, std::size_t workers) {
  if (name == "stealpool") return fj::make_stealpool_runtime(workers, false);
  if (name == "stealpool TaskGroup") return fj::make_stealpool_runtime(workers, true);
#if STEALBENCH_HAVE_TBB
  if (name == "oneTBB") return fj::make_tbb_runtime(workers);
#endif
#if STEALBENCH_HAVE_OMP
  if (name == "OpenMP") return fj::make_omp_runtime(workers);
#endif
  throw std::logic_error("forkjoin suite: no runtime '" + name + "'");
}

struct State {
  std::vector<Workload> work;
  SerialRuntime serial;
  RuntimeCache<Runtime> runtimes{make_runtime};
};

std::function<void(std::span<double>)> timed(Runtime& rt, const Workload& w) {
  return [&rt, &w](std::span<double> out) {
    std::uint64_t got = 0;
    out[0] = time_ms([&] { got = run_workload(rt, w); });
    if (got != w.expected)
      throw WrongResult(w.name + " = " + std::to_string(got) + ", want " + std::to_string(w.expected));
  };
}

}  // namespace

Suite forkjoin_suite(const Config& config) {
  Suite s;
  s.name = "forkjoin";
  s.reps = config.reps_or(5);
  auto state = std::make_shared<State>();
  state->work = workloads(config);
  s.keep_alive = state;

  const std::map<std::string, std::string> idiom{
      {"stealpool", "join"}, {"oneTBB", "task_group"}, {"OpenMP", "tasks"}};

  if (!fj::sha1_self_test()) throw WrongResult("SHA-1 fails its FIPS 180 test vectors");
  SuiteBuilder b(s, config);
  for (const Workload& w : state->work) {
    for (std::size_t workers : config.workers) {
      for (const std::string& name : task_runtimes())
        if (const long row = b.add({w.name, name, idiom.at(name), workers, "ms", {}}); row >= 0)
          b.add_case({row}, timed(state->runtimes.get(name, workers), w));
      // UTS also with a TaskGroup per node and a spawn per child, the peers'
      // idiom (the other row, a recursive join over the children, is faster):
      // what a user porting oneTBB code meets first.
      if (w.kind == Kind::kUts)
        if (const long row = b.add({w.name, "stealpool", "TaskGroup", workers, "ms", {}}); row >= 0)
          b.add_case({row}, timed(state->runtimes.get("stealpool TaskGroup", workers), w));
    }
    b.add_serial({w.name, "serial", "", 0, "ms", {}}, timed(state->serial, w));
  }
  s.title = "fork-join: a task per fork, no cutoff; ms per run; OpenMP is " + std::string(omp_runtime_name());
  s.notes.push_back("checked every run: fib values, nqueens counts (OEIS A000170), UTS node counts (T1 4,130,071; "
                    "T3 4,112,897 published)");
  return s;
}

}  // namespace stealbench

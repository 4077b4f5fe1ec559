// Fork-join benchmark: stealpool against oneTBB task_group, OpenMP tasks and the
// serial code, in one run, on fib (a task per call, no cutoff), nqueens and the UTS
// tree T3 (workloads.hpp). Every run's result is checked, and a wrong one fails the
// program (exit 1).
//
//   stealpool_forkjoin [--workers 1,2] [--reps R] [--only SUBSTR] [--quick]
//                      [--uts-t1] [--stealpool-uts join|group]
//
// --only keeps the rows whose name "workload/runtime/workers" (e.g. fib35/tbb/2)
// contains SUBSTR; a workload keeps its serial row whenever one of its rows is kept,
// so that speedups can be computed. --quick: 1 rep, fib(25), nqueens(9), and UTS T3
// only if its serial run takes under a second (a smoke test). --uts-t1 adds the UTS
// tree T1. --stealpool-uts group runs stealpool's UTS with a TaskGroup per node
// instead of a recursive join over the children.
//
// Each runtime is created once per worker count, before any timing, and reused for
// every repetition. Repetitions are interleaved (rep 1 of every row, then rep 2, ...),
// as in stealpool_throughput: on a small machine, noise and what a runtime leaves
// behind (spinning workers) then hit every row alike.
//
// Prints per row the median / min / max time, the speedup over the serial median,
// and for stealpool the best peer's median (oneTBB or OpenMP, same workload and
// worker count) divided by stealpool's: above 1 means stealpool was faster.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../common/bench_cli.hpp"
#include "workloads.hpp"

namespace stealbench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options : CommonOptions {
  bool uts_t1 = false;
  bool stealpool_uts_group = false;
};

enum class Kind { kFib, kQueens, kUts };

struct Workload {
  std::string name;
  Kind kind;
  int n;                   // fib, nqueens
  const UtsTree* tree;     // uts
  std::uint64_t expected;  // the checked result
};

std::uint64_t run_workload(Runtime& rt, const Workload& w) {
  switch (w.kind) {
    case Kind::kFib: return rt.fib(w.n);
    case Kind::kQueens: return rt.nqueens(w.n);
    case Kind::kUts: return rt.uts(*w.tree);
  }
  std::abort();
}

// The serial code of workloads.hpp / uts.hpp behind the Runtime interface.
class SerialRuntime final : public Runtime {
 public:
  std::uint64_t fib(int n) override { return fib_serial(n); }
  std::uint64_t nqueens(int n) override { return nqueens_serial(n); }
  std::uint64_t uts(const UtsTree& tree) override { return uts_count_serial(tree, uts_root(tree)); }
};

struct Row : Samples {
  const Workload* workload;
  std::string runtime;  // serial, stealpool, tbb, omp
  std::size_t workers;  // 0 for serial
  Runtime* rt;
  bool skipped = false;
};

std::string row_key(const Workload& w, const std::string& runtime, std::size_t workers) {
  return runtime == "serial" ? w.name + "/serial" : w.name + "/" + runtime + "/" + std::to_string(workers);
}

[[noreturn]] void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--workers 1,2] [--reps R] [--only SUBSTR] [--quick] [--uts-t1] "
               "[--stealpool-uts join|group]\n",
               argv0);
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (parse_common_option(argc, argv, i, o)) {
      // done
    } else if (!std::strcmp(argv[i], "--uts-t1")) {
      o.uts_t1 = true;
    } else if (!std::strcmp(argv[i], "--stealpool-uts")) {
      const std::string v = option_value(argc, argv, i, "--stealpool-uts");
      if (v != "join" && v != "group") usage(argv[0]);
      o.stealpool_uts_group = v == "group";
    } else {
      usage(argv[0]);
    }
  }
  finish_common_options(o);
  return o;
}

std::vector<Workload> workloads(const Options& o) {
  std::vector<Workload> w;
  auto fib = [&](int n) { w.push_back({"fib" + std::to_string(n), Kind::kFib, n, nullptr, fib_expected(n)}); };
  auto queens = [&](int n) {
    w.push_back({"nqueens" + std::to_string(n), Kind::kQueens, n, nullptr, kQueensSolutions[static_cast<std::size_t>(n)]});
  };
  auto uts = [&](const UtsTree& t, const char* name) { w.push_back({name, Kind::kUts, 0, &t, t.nodes}); };
  if (o.quick) {
    fib(25);
    queens(9);
  } else {
    fib(30);
    fib(35);
    queens(12);
  }
  uts(kUtsT3, "uts_t3");
  if (o.uts_t1) uts(kUtsT1, "uts_t1");
  return w;
}

// Checks that cost little and catch a broken build before anything is timed: the
// SHA-1 test vectors and the serial nqueens counts for n = 1..12.
void self_test() {
  if (!sha1_self_test()) {
    std::fprintf(stderr, "WRONG RESULT: SHA-1 fails its test vectors\n");
    std::exit(1);
  }
  for (int n = 1; n <= 12; ++n) {
    const std::uint64_t got = nqueens_serial(n);
    if (got != kQueensSolutions[static_cast<std::size_t>(n)]) {
      std::fprintf(stderr, "WRONG RESULT: serial nqueens(%d) = %llu, want %llu\n", n,
                   static_cast<unsigned long long>(got),
                   static_cast<unsigned long long>(kQueensSolutions[static_cast<std::size_t>(n)]));
      std::exit(1);
    }
  }
  std::printf("self-test: SHA-1 test vectors ok; serial nqueens(1..12) = 1 0 0 2 10 4 40 92 352 724 2680 14200 ok\n");
}

void check(const Row& row, std::uint64_t got) {
  const Workload& w = *row.workload;
  if (got == w.expected) return;
  std::fprintf(stderr, "WRONG RESULT from %s: %llu, want %llu\n", row_key(w, row.runtime, row.workers).c_str(),
               static_cast<unsigned long long>(got), static_cast<unsigned long long>(w.expected));
  std::exit(1);
}

void run_interleaved(std::vector<Row>& rows, const Options& o) {
  for (int rep = 0; rep < o.reps; ++rep)
    for (auto& row : rows) {
      if (row.skipped) continue;
      const auto t0 = Clock::now();
      const std::uint64_t got = run_workload(*row.rt, *row.workload);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      check(row, got);
      row.ms.push_back(ms);
      if (rep != 0 || row.runtime != "serial") continue;
      const Workload& w = *row.workload;
      if (w.kind == Kind::kUts)
        std::printf("serial UTS %s: %llu nodes (published %llu) ok\n", w.tree->name,
                    static_cast<unsigned long long>(got), static_cast<unsigned long long>(w.tree->nodes));
      // The smoke test keeps UTS only while it is cheap.
      if (o.quick && w.kind == Kind::kUts && ms > 1000.0) {
        std::printf("--quick: serial %s took %.0f ms (> 1 s): its parallel rows are skipped\n", w.name.c_str(), ms);
        for (auto& other : rows)
          if (other.workload == row.workload && &other != &row) other.skipped = true;
      }
    }
}

void print_table(const std::vector<Row>& rows) {
  std::printf("\n%-10s %7s  %-16s %10s %10s %10s %9s %15s\n", "workload", "workers", "runtime", "median ms",
              "min ms", "max ms", "speedup", "peer/stealpool");
  const Workload* last = nullptr;
  for (const Row& r : rows) {
    if (r.ms.empty()) continue;
    const Workload& w = *r.workload;
    if (last && last != &w) std::printf("\n");
    last = &w;
    double serial = 0, best_peer = 0;
    for (const Row& o : rows) {
      if (o.workload != &w || o.ms.empty()) continue;
      if (o.runtime == "serial") serial = o.median();
      if ((o.runtime == "tbb" || o.runtime == "omp") && o.workers == r.workers)
        best_peer = best_peer == 0 ? o.median() : std::min(best_peer, o.median());
    }
    std::string name = r.runtime == "omp" ? std::string("omp (") + omp_runtime_name() + ")" : r.runtime;
    const std::string workers = r.workers == 0 ? "-" : std::to_string(r.workers);
    std::printf("%-10s %7s  %-16s %10.1f %10.1f %10.1f", w.name.c_str(), workers.c_str(), name.c_str(), r.median(),
                r.min(), r.max());
    if (serial > 0 && r.runtime != "serial") std::printf(" %8.3fx", serial / r.median());
    else std::printf(" %9s", "");
    if (r.runtime == "stealpool" && best_peer > 0) std::printf(" %14.2fx", best_peer / r.median());
    std::printf("\n");
  }
  std::printf(
      "\nspeedup: serial median / row median. peer/stealpool: the best peer's median (oneTBB or OpenMP, same\n"
      "workload and workers) / stealpool's median; above 1 means stealpool was faster.\n");
}

}  // namespace
}  // namespace stealbench

int main(int argc, char** argv) {
  using namespace stealbench;
  const Options o = parse(argc, argv);
  const std::vector<Workload> work = workloads(o);

  std::vector<std::string> runtimes{"stealpool"};
#if STEALBENCH_HAVE_TBB
  runtimes.push_back("tbb");
#endif
#if STEALBENCH_HAVE_OMP
  runtimes.push_back("omp");
#endif

  // The rows, and the runtimes they need, each created once.
  SerialRuntime serial;
  std::map<std::pair<std::string, std::size_t>, std::unique_ptr<Runtime>> pools;
  auto runtime = [&](const std::string& name, std::size_t workers) -> Runtime* {
    auto& slot = pools[{name, workers}];
    if (!slot) {
      if (name == "stealpool") slot = make_stealpool_runtime(workers, o.stealpool_uts_group);
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
  for (const Workload& w : work) {
    std::vector<Row> parallel;
    for (std::size_t workers : o.workers)
      for (const std::string& name : runtimes)
        if (wanted(row_key(w, name, workers))) parallel.push_back({{}, &w, name, workers, runtime(name, workers)});
    if (parallel.empty() && !wanted(row_key(w, "serial", 0))) continue;
    rows.push_back({{}, &w, "serial", 0, &serial});
    for (auto& r : parallel) rows.push_back(std::move(r));
  }

  std::printf("fork-join: %d reps, workers", o.reps);
  for (std::size_t w : o.workers) std::printf(" %zu", w);
  std::printf(", %u hardware threads; peers: oneTBB %s, OpenMP %s; stealpool UTS: %s\n",
              std::thread::hardware_concurrency(), STEALBENCH_HAVE_TBB ? "task_group" : "not built",
              omp_runtime_name(),
              o.stealpool_uts_group ? "TaskGroup per node" : "recursive join over the children");
  self_test();
  run_interleaved(rows, o);
  print_table(rows);
  return 0;
}

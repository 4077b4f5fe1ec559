// stealbench: stealpool against the runtimes its users would otherwise pick
// (oneTBB, OpenMP tasks and loops, a mutex+condvar pool) and the serial code, on
// the standard work-stealing workloads, in one run of one process.
//
//   stealbench [--workers 1,2] [--reps R] [--only SUBSTR] [--quick] [--full]
//              [--fib N,M] [--json FILE] [--svg FILE] [--trace FILE] [--list]
//
//   --workers  worker counts to measure (default: 1 and all available CPUs)
//   --reps     repetitions per row (default: each suite's own, 3 to 7)
//   --only     keep the rows whose key "suite/workload/runtime[/variant][/workers]"
//              contains SUBSTR, e.g. forkjoin, uts_t3, oneTBB, stealpool/join/2;
//              a workload keeps its serial row whenever another of its rows is kept;
//              given more than once, a row is kept if its key contains any of them
//   --quick    small sizes and one rep: a smoke test (results still checked)
//   --full     the sizes of the fork-join and loop issues' tables (fib 30 and 35,
//              loops of about 500 ms serial)
//   --fib      the fib(n) workloads (default 32)
//   --json     every figure, the machine and the command, as JSON
//   --svg      a chart of the medians and of the speedups (see report.hpp)
//   --trace    also a Chrome/Perfetto trace of one traced run of the fork-join
//              workloads (trace_run.cpp); with --only trace, only that
//   --list     print the keys of the rows that would run, and exit
//
// Exit status: 0 done, 1 a wrong result (the run stops there), 2 bad arguments.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../common/bench_cli.hpp"
#include "report.hpp"
#include "stealpool/cpu_count.hpp"
#include "suites.hpp"
#include "trace_run.hpp"

namespace stealbench {

const char* omp_runtime_name() {
#if !STEALBENCH_HAVE_OMP
  return "not built";
#elif defined(__clang__)
  return "libomp";
#else
  return "libgomp";
#endif
}

std::vector<std::string> task_runtimes() {
  std::vector<std::string> names{"stealpool"};
  if (STEALBENCH_HAVE_TBB) names.push_back("oneTBB");
  if (STEALBENCH_HAVE_OMP) names.push_back("OpenMP");
  return names;
}

namespace {

struct Options {
  Config config;
  std::string json, svg, trace;
  bool list = false;
};

[[noreturn]] void usage(int status) {
  std::fprintf(status ? stderr : stdout,
               "usage: stealbench [--workers 1,2] [--reps R] [--only SUBSTR] [--quick] [--full]\n"
               "                  [--fib N,M] [--json FILE] [--svg FILE] [--trace FILE] [--list]\n");
  std::exit(status);
}

Options parse(int argc, char** argv) {
  Options o;
  const std::size_t cpus = stealpool::available_parallelism();
  o.config.workers = cpus > 1 ? std::vector<std::size_t>{1, cpus} : std::vector<std::size_t>{1};
  bool fib_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--workers") {
      o.config.workers = worker_list("--workers", option_value(argc, argv, i, "--workers"));
      std::sort(o.config.workers.begin(), o.config.workers.end());
      o.config.workers.erase(std::unique(o.config.workers.begin(), o.config.workers.end()), o.config.workers.end());
    } else if (a == "--reps") {
      o.config.reps = static_cast<int>(positive_arg("--reps", option_value(argc, argv, i, "--reps"), 1000));
    } else if (a == "--only") {
      o.config.only.push_back(option_value(argc, argv, i, "--only"));
    } else if (a == "--quick") {
      o.config.quick = true;
    } else if (a == "--full") {
      o.config.full = true;
    } else if (a == "--fib") {
      o.config.fib.clear();
      for (std::size_t n : worker_list("--fib", option_value(argc, argv, i, "--fib"))) {
        if (n > 45) {
          std::fprintf(stderr, "--fib: bad value '%zu' (want 1..45: fib(46) takes minutes)\n", n);
          std::exit(2);
        }
        o.config.fib.push_back(static_cast<int>(n));
      }
      fib_given = true;
    } else if (a == "--json") {
      o.json = option_value(argc, argv, i, "--json");
    } else if (a == "--svg") {
      o.svg = option_value(argc, argv, i, "--svg");
    } else if (a == "--trace") {
      o.trace = option_value(argc, argv, i, "--trace");
    } else if (a == "--list") {
      o.list = true;
    } else if (a == "-h" || a == "--help") {
      usage(0);
    } else {
      std::fprintf(stderr, "stealbench: unknown argument '%s'\n", argv[i]);
      usage(2);
    }
  }
  if (o.config.full && !fib_given) o.config.fib = {30, 35};
  if (o.config.quick && o.config.full) {
    std::fprintf(stderr, "stealbench: --quick and --full exclude each other\n");
    std::exit(2);
  }
  return o;
}

Suite build(const std::string& name, const Config& c) {
  static const std::map<std::string, std::function<Suite(const Config&)>> builders{
      {"forkjoin", forkjoin_suite}, {"loops", loops_suite}, {"throughput", throughput_suite},
      {"wake", wake_suite},         {"idle", idle_suite}};
  return builders.at(name)(c);
}

// Every --only naming another suite exactly (or "trace"): this one need not even be built.
bool excluded(const std::string& suite, const Config& c) {
  const auto& names = suite_names();
  return !c.only.empty() && std::all_of(c.only.begin(), c.only.end(), [&](const std::string& o) {
    return o != suite && (o == "trace" || std::find(names.begin(), names.end(), o) != names.end());
  });
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "'" : ", '") + x + "'";
  return s;
}

}  // namespace
}  // namespace stealbench

int main(int argc, char** argv) {
  using namespace stealbench;
  const Options o = parse(argc, argv);
  const Machine machine = Machine::describe();
  std::string command;
  for (int i = 0; i < argc; ++i) {
    if (i) command += ' ';
    command += argv[i];
  }

  std::printf("stealbench: %s; %u hardware threads, %zu available; %s; oneTBB %s; OpenMP %s\nworkers:",
              machine.cpu.c_str(), machine.hardware_threads, machine.available, machine.compiler.c_str(),
              machine.tbb_version.c_str(), machine.omp_runtime.c_str());
  for (std::size_t w : o.config.workers) std::printf(" %zu", w);
  std::printf("%s\n", o.config.quick ? " (--quick)" : o.config.full ? " (--full)" : "");

  std::vector<Suite> done;
  try {
    for (const std::string& name : suite_names()) {
      if (excluded(name, o.config)) continue;
      Suite s = build(name, o.config);
      if (s.rows.empty()) continue;
      if (o.list) {
        for (const Row& r : s.rows) std::printf("%s\n", s.key(r).c_str());
        continue;
      }
      run_suite(s);
      print_suite(s);
      std::fflush(stdout);
      s.keep_alive.reset();  // stop this suite's runtimes before the next suite
      done.push_back(std::move(s));
    }
  } catch (const WrongResult& e) {
    std::fprintf(stderr, "\nWRONG RESULT: %s\n", e.what());
    return 1;
  }
  if (o.list) return 0;
  if (!o.trace.empty()) {
    try {
      write_trace(o.trace, o.config);
    } catch (const WrongResult& e) {
      std::fprintf(stderr, "\nWRONG RESULT: %s\n", e.what());
      return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "stealbench: %s\n", e.what());
      return 2;
    }
    if (o.config.only_trace()) return 0;
  }
  if (done.empty()) {
    std::fprintf(stderr, "stealbench: --only %s matches no row (try --list)\n", joined(o.config.only).c_str());
    return 2;
  }
  print_summary(done);
  try {
    if (!o.json.empty()) {
      write_json(o.json, machine, o.config, command, done);
      std::printf("\nwrote %s\n", o.json.c_str());
    }
    if (!o.svg.empty()) {
      write_svg(o.svg, machine, done);
      std::printf("wrote %s\n", o.svg.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stealbench: %s\n", e.what());
    return 2;
  }
  return 0;
}

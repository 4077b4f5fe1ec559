// tests/model/model_main.hpp: the driver shared by the model-test programs.
// Included after relacy_sync.hpp.
//
// Each program runs every check of the real protocol under Relacy's random
// scheduler and its context-bound scheduler, then every mutant (a deliberately
// broken instantiation) under the random scheduler, which must be *reported*.
// Exit status 0 only if every check passed and every mutant was caught.
//
// Usage: <program> [random-iterations [context-bound [name-filter]]]
// (defaults: kDefaultIterations, bound 2; CI uses the defaults, which finish in
// well under a minute on 2 cores; longer runs: e.g. `model_chase_lev 10000000 3`).
#pragma once

// Its standard headers (<chrono>, <cstdio>, <cstdlib>, <fstream>, <string>) are
// included by relacy_sync.hpp, before Relacy's macros.
#include "relacy_sync.hpp"

namespace stealpool::model {

struct RunConfig {
  unsigned long random_iterations;
  unsigned context_bound;
  unsigned long mutant_iterations;
  std::string filter;  // run only the tests whose name contains this
};

// Relacy's own output (its report and the execution history of a failure) goes to
// a log file. Not to a std::ostringstream: Relacy replaces global operator new and
// delete while a simulation runs, and a string stream that grows its buffer then
// frees memory the normal heap gave it (Relacy reports a bad free() and crashes).
// A file stream allocates its buffer when opened, before any simulation.
inline RunConfig parse_args(int argc, char** argv, unsigned long default_iterations) {
  RunConfig c{default_iterations, 2, default_iterations, ""};
  if (argc > 1) c.random_iterations = c.mutant_iterations = std::strtoul(argv[1], nullptr, 10);
  if (argc > 2) c.context_bound = static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10));
  if (argc > 3) c.filter = argv[3];
  return c;
}

class Runner {
 public:
  Runner(RunConfig config, const char* log_path) : config_(config), log_path_(log_path), log_(log_path) {
    std::printf("Relacy reports and failing histories: %s\n", log_path);
  }

  // A property of the real code: must hold under both schedulers.
  template <class Test>
  void check(const char* name) {
    run_one<Test>(name, rl::random_scheduler_type, config_.random_iterations, /*mutant=*/false);
    run_one<Test>(name, rl::fair_context_bound_scheduler_type, 0, /*mutant=*/false);
  }

  // As check(), under the random scheduler only: for a test whose context-bound
  // search does not end in minutes (more threads or steps).
  template <class Test>
  void check_random(const char* name) {
    run_one<Test>(name, rl::random_scheduler_type, config_.random_iterations, /*mutant=*/false);
  }

  // A broken variant: Relacy must report it (random scheduler).
  template <class Test>
  void mutant(const char* name) {
    run_one<Test>(name, rl::random_scheduler_type, config_.mutant_iterations, /*mutant=*/true);
  }

  int exit_code() const {
    std::printf("\n%d failure(s)\n", failures_);
    return failures_ == 0 ? 0 : 1;
  }

 private:
  template <class Test>
  void run_one(const char* name, rl::scheduler_type_e sched, unsigned long iterations, bool mutant) {
    if (!config_.filter.empty() && std::string(name).find(config_.filter) == std::string::npos) return;
    rl::test_params p;
    log_ << "==== " << name << (mutant ? " (mutant: must fail)" : "") << std::endl;
    p.output_stream = &log_;
    p.progress_stream = &log_;
    p.search_type = sched;
    if (sched == rl::fair_context_bound_scheduler_type) {
      p.context_bound = config_.context_bound;
      p.iteration_count = ~0ull >> 1;  // the tree search ends when the space is exhausted
    } else {
      p.iteration_count = iterations;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const bool passed = rl::simulate<Test>(p);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const char* sched_name = sched == rl::random_scheduler_type ? "random" : "context-bound";
    const bool ok = mutant ? !passed : passed;
    if (!ok) ++failures_;
    if (!mutant) {
      std::printf("%-6s %-44s %-13s %10llu iterations %7.2f s%s\n", ok ? "PASS" : "FAIL", name,
                  sched_name, static_cast<unsigned long long>(p.stop_iteration), secs,
                  sched == rl::fair_context_bound_scheduler_type
                      ? (" (bound " + std::to_string(config_.context_bound) + ")").c_str()
                      : "");
    } else {
      std::printf("%-6s %-44s %-13s %s\n", ok ? "CAUGHT" : "MISSED", name, sched_name,
                  ok ? ("reported at iteration " + std::to_string(p.stop_iteration) + " (" +
                        rl::test_result_str(p.test_result) + "), " + std::to_string(secs) + " s")
                           .c_str()
                     : ("not reported in " + std::to_string(p.stop_iteration) +
                        " iterations: the checker or the test has no teeth")
                           .c_str());
    }
    if (!ok && !mutant) std::printf("       Relacy's report and the failing execution: %s\n", log_path_);
    log_.flush();
    std::fflush(stdout);
  }

  RunConfig config_;
  const char* log_path_;
  std::ofstream log_;
  int failures_ = 0;
};

}  // namespace stealpool::model

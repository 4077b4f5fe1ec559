// sim/main.cpp: stealpool_sim, the simulator's command line (sim/README.md).
//
//   stealpool_sim --case FILE [--seeds A..B] [--seed S] [--trace] [--mutant NAME]
//                 [--print-hash] [--lines]
//   stealpool_sim --case FILE --scaling [--workers 1,2,4,...] [--seeds A..B]
//   stealpool_sim ranks --tree T1|T3 [--ranks N] ...   (the rank simulator: ranks/README.md)
//
// Runs every seed of the range (default 1..1000). On the first failing seed it
// prints the violation, the seed, the command that replays it and the run's
// trace (replayed with the trace kept: a seed always gives the same run), and
// exits 1. Exit 2: bad arguments or case file. --lines adds the shared-line
// writes by operation; --scaling runs the case at each worker count (default
// 1..64 in powers of two, seeds default 1..5) and prints the table of shared
// cache-line writes per task (scaling.hpp).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "case_file.hpp"
#include "ranks/ranks_main.hpp"
#include "scaling.hpp"
#include "simulator.hpp"

namespace {

using stealpool::sim::Mutant;

// The seed whose trace hash a case pins (`expect trace_hash`).
constexpr std::uint64_t kPinnedSeed = 1;

int usage(const char* why) {
  std::fprintf(stderr,
               "stealpool_sim: %s\n"
               "usage: stealpool_sim --case FILE [--seeds A..B] [--seed S] [--trace] [--print-hash] [--lines]\n"
               "                     [--mutant skip-settle|double-run|no-hoard|no-publish|join-no-wait|\n"
               "                               latch-no-unpark|wake-one]\n"
               "       stealpool_sim --case FILE --scaling [--workers 1,2,4,...] [--seeds A..B]\n",
               why);
  return 2;
}

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// "1,2,4": worker counts for --scaling.
std::vector<std::size_t> worker_list(const std::string& s) {
  std::vector<std::size_t> out;
  for (std::size_t at = 0; at < s.size();) {
    const std::size_t comma = std::min(s.find(',', at), s.size());
    out.push_back(std::stoul(s.substr(at, comma - at)));
    if (out.back() == 0 || out.back() > 64) throw std::runtime_error("--workers: each must be 1..64");
    at = comma + 1;
  }
  if (out.empty()) throw std::runtime_error("--workers wants a list such as 1,2,4");
  return out;
}

// The always-on summary line: shared-line writes per task, by kind.
void print_shared_writes(const stealpool::sim::SharedWrites& w, std::uint64_t tasks, bool by_op) {
  using namespace stealpool::sim;
  const double n = tasks == 0 ? 1.0 : static_cast<double>(tasks);
  std::printf("  shared-line writes: %.3f per task (", static_cast<double>(w.total()) / n);
  for (std::size_t k = 0; k < kLineKinds; ++k)
    std::printf("%s%s %.3f", k == 0 ? "" : ", ", kLineKindNames[k], static_cast<double>(w.kinds[k]) / n);
  std::printf("); %llu writes, %llu tasks\n", static_cast<unsigned long long>(w.total()),
              static_cast<unsigned long long>(tasks));
  if (!by_op) return;
  for (std::size_t o = 0; o < kLineOps; ++o) {
    if (w.ops[o] == 0) continue;
    const LineCost& c = kLineCosts[o];
    std::printf("    %-8s %-20s x%u: %12llu times, %.4f writes per task\n",
                kLineKindNames[static_cast<std::size_t>(c.kind)], c.name, c.writes,
                static_cast<unsigned long long>(w.ops[o]),
                static_cast<double>(w.writes_of(static_cast<LineOp>(o))) / n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // `stealpool_sim ranks ...`: the rank simulator (ranks/README.md).
  if (argc >= 2 && std::strcmp(argv[1], "ranks") == 0) return stealpool::sim::ranks::ranks_main(argc - 1, argv + 1);
  std::string case_path;
  std::uint64_t first = 1, last = 1000;
  bool trace = false, print_hash = false, lines = false, scaling = false, seeds_given = false;
  std::vector<std::size_t> workers{1, 2, 4, 8, 16, 32, 64};
  Mutant mutant = Mutant::none;
  std::string mutant_name;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
        return argv[++i];
      };
      if (a == "--case") case_path = value();
      else if (a == "--seeds") {
        const std::string r = value();
        const auto dots = r.find("..");
        if (dots == std::string::npos) throw std::runtime_error("--seeds wants A..B");
        first = std::stoull(r.substr(0, dots));
        last = std::stoull(r.substr(dots + 2));
        seeds_given = true;
      } else if (a == "--seed") {
        first = last = std::stoull(value());
        seeds_given = true;
      } else if (a == "--lines") lines = true;
      else if (a == "--scaling") scaling = true;
      else if (a == "--workers") workers = worker_list(value());
      else if (a == "--trace") trace = true;
      else if (a == "--print-hash") print_hash = true;
      else if (a == "--mutant") {
        mutant_name = value();
        if (mutant_name == "skip-settle") mutant = Mutant::skip_settle;
        else if (mutant_name == "double-run") mutant = Mutant::double_run;
        else if (mutant_name == "no-hoard") mutant = Mutant::no_hoard;
        else if (mutant_name == "no-publish") mutant = Mutant::no_publish;
        else if (mutant_name == "join-no-wait") mutant = Mutant::join_no_wait;
        else if (mutant_name == "latch-no-unpark") mutant = Mutant::latch_no_unpark;
        else if (mutant_name == "wake-one") mutant = Mutant::wake_one;
        else throw std::runtime_error("unknown mutant " + mutant_name);
      } else throw std::runtime_error("unknown argument " + a);
    }
  } catch (const std::exception& e) {
    return usage(e.what());
  }
  if (case_path.empty()) return usage("--case is required");
  if (first > last) return usage("empty seed range");

  stealpool::sim::Case c;
  try {
    c = stealpool::sim::load_case(case_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  const std::string replay = "stealpool_sim --case " + case_path +
                             (mutant_name.empty() ? "" : " --mutant " + mutant_name);

  if (scaling) {
    if (!seeds_given) first = 1, last = 5;
    const auto study = stealpool::sim::run_scaling(c, workers, first, last);
    std::printf("%s: shared cache-line writes per task, median over seeds %llu..%llu\n", case_path.c_str(),
                static_cast<unsigned long long>(first), static_cast<unsigned long long>(last));
    std::printf("%s", stealpool::sim::format_scaling(study).c_str());
    std::printf("%s", stealpool::sim::format_growth(study, 5).c_str());
    if (study.violation.empty()) return 0;
    std::cout << "VIOLATION in " << case_path << ' ' << study.violation << '\n';
    return 1;
  }

  if (print_hash) {
    const auto r = stealpool::sim::run_case(c, kPinnedSeed, mutant, false);
    std::printf("expect trace_hash %s\n", hex(r.trace_hash).c_str());
    return r.ok ? 0 : 1;
  }

  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t steps = 0;
  stealpool::WorkerMetrics total;
  stealpool::sim::ForkJoinCounts fj;
  stealpool::sim::SharedWrites shared_writes;
  std::uint64_t executed = 0;
  std::map<std::string, std::uint64_t> outcomes;  // "executed/dropped/rejected" -> seeds
  for (std::uint64_t seed = first;; ++seed) {
    auto r = stealpool::sim::run_case(c, seed, mutant, trace);
    steps += r.steps;
    total += r.metrics;
    fj += r.forkjoin;
    shared_writes += r.shared_writes;
    executed += r.executed;
    ++outcomes[std::to_string(r.executed) + "/" + std::to_string(r.dropped) + "/" + std::to_string(r.rejected) +
               (r.error ? " error" : "")];
    // The pin is the real policy's interleaving: a mutant changes it by design.
    if (r.ok && seed == kPinnedSeed && mutant == Mutant::none && c.expect_trace_hash &&
        *c.expect_trace_hash != r.trace_hash) {
      r.ok = false;
      r.violation = "trace hash " + hex(r.trace_hash) + " != pinned " + hex(*c.expect_trace_hash) +
                    " (the interleaving of seed 1 changed; if the policy changed on purpose, "
                    "regenerate with: " + replay + " --print-hash)";
    }
    if (trace) {
      std::cout << stealpool::sim::format_trace(c, r.trace);
      std::cout << "seed " << seed << ": " << (r.ok ? "ok" : "FAILED") << ", " << r.steps << " steps, executed "
                << r.executed << ", dropped " << r.dropped << ", rejected " << r.rejected
                << (r.error ? ", error" : "") << ", trace_hash " << hex(r.trace_hash) << '\n';
    }
    if (!r.ok) {
      if (!trace) {
        // Replay the failing seed with its trace kept: the same seed, the same run.
        const auto again = stealpool::sim::run_case(c, seed, mutant, true);
        std::cout << stealpool::sim::format_trace(c, again.trace);
      }
      std::cout << "VIOLATION in " << case_path << " seed " << seed << ": " << r.violation << '\n'
                << "replay: " << replay << " --seed " << seed << " --trace\n";
      return 1;
    }
    if (seed == last) break;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: seeds %llu..%llu ok (%llu steps, %.2f s)\n", case_path.c_str(),
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(last),
              static_cast<unsigned long long>(steps), secs);
  std::printf("  exercised: %llu steals, %llu parks, %llu unparks, %llu spawn wakes, %llu hoard wakes\n",
              static_cast<unsigned long long>(total.steal_successes), static_cast<unsigned long long>(total.parks),
              static_cast<unsigned long long>(total.unparks), static_cast<unsigned long long>(total.spawn_wakes),
              static_cast<unsigned long long>(total.hoard_wakes));
  if (c.forkjoin)
    std::printf("  fork-join: %llu joins popped back, %llu stolen, %llu full; %llu other jobs taken back; "
                "%llu publishes on request; %llu waiter parks, %llu ended by the latch\n",
                static_cast<unsigned long long>(fj.popped_back), static_cast<unsigned long long>(fj.stolen),
                static_cast<unsigned long long>(fj.full), static_cast<unsigned long long>(fj.ran_other),
                static_cast<unsigned long long>(fj.publishes),
                static_cast<unsigned long long>(fj.latch_parks), static_cast<unsigned long long>(fj.latch_unparks));
  print_shared_writes(shared_writes, executed, lines);
  std::printf("  outcomes (executed/dropped/rejected: seeds), %zu distinct:", outcomes.size());
  int shown = 0;
  for (const auto& [k, n] : outcomes) {
    if (++shown > 8) {
      std::printf(" ...");
      break;
    }
    std::printf(" %s: %llu;", k.c_str(), static_cast<unsigned long long>(n));
  }
  std::printf("\n");
  return 0;
}

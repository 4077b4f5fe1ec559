// sim/main.cpp: stealpool_sim, the simulator's command line (sim/README.md).
//
//   stealpool_sim --case FILE [--seeds A..B] [--seed S] [--trace] [--mutant NAME]
//                 [--print-hash]
//
// Runs every seed of the range (default 1..1000). On the first failing seed it
// prints the violation, the seed, the command that replays it and the run's
// trace (replayed with the trace kept: a seed always gives the same run), and
// exits 1. Exit 2: bad arguments or case file.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <string>

#include "case_file.hpp"
#include "simulator.hpp"

namespace {

using stealpool::sim::Mutant;

// The seed whose trace hash a case pins (`expect trace_hash`).
constexpr std::uint64_t kPinnedSeed = 1;

int usage(const char* why) {
  std::fprintf(stderr,
               "stealpool_sim: %s\n"
               "usage: stealpool_sim --case FILE [--seeds A..B] [--seed S] [--trace] [--print-hash]\n"
               "                     [--mutant skip-settle|double-run|no-hoard|no-publish|join-no-wait|\n"
               "                               latch-no-unpark|wake-one]\n",
               why);
  return 2;
}

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  std::string case_path;
  std::uint64_t first = 1, last = 1000;
  bool trace = false, print_hash = false;
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
      } else if (a == "--seed") first = last = std::stoull(value());
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

  if (print_hash) {
    const auto r = stealpool::sim::run_case(c, kPinnedSeed, mutant, false);
    std::printf("expect trace_hash %s\n", hex(r.trace_hash).c_str());
    return r.ok ? 0 : 1;
  }

  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t steps = 0;
  stealpool::WorkerMetrics total;
  stealpool::sim::ForkJoinCounts fj;
  std::map<std::string, std::uint64_t> outcomes;  // "executed/dropped/rejected" -> seeds
  for (std::uint64_t seed = first;; ++seed) {
    auto r = stealpool::sim::run_case(c, seed, mutant, trace);
    steps += r.steps;
    total += r.metrics;
    fj += r.forkjoin;
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

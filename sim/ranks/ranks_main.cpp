// sim/ranks/ranks_main.cpp: `stealpool_sim ranks`, the rank simulator's command
// line (README.md in this folder).
//
//   stealpool_sim ranks --tree T1|T3|... [--ranks N] [--workers W] [--latency-us L]
//       [--bandwidth-gbps B] [--node-ns C] [--seed S | --seeds A..B] [--jitter J]
//       [--start-rank R] [--fail-rank R --fail-after K] [--random-steals N]
//       [--max-batch N] [--weigh] [--refill-ahead N] [--wave-arity K] [--mutant ignore-black|pass-token-when-busy|data-after-report]
//       [--emit-leaves]
//       [--progress polling|sleeping] [--worker-probe-us P]
//       [--per-rank] [--trace]
//   stealpool_sim ranks --ideal --tree T1|T3|... [--ranks N] [--workers W] [--latency-us L] [--node-ns C]
//
// Prints one line per seed (nodes, time, efficiency, messages, crossings), then
// any violation; with --ideal, one line for the ideal scheduler (ideal_sim.hpp).
// Exit 0: every invariant held on every seed; 1: a violation (the first failing
// seed's are printed); 2: bad arguments, named.
#include "ranks_main.hpp"

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "ideal_sim.hpp"
#include "rank_sim.hpp"

namespace stealpool::sim::ranks {

namespace {

[[noreturn]] void bad_value(const std::string& option, const std::string& text, const char* want) {
  std::string m = option;
  m.append(" must be ").append(want).append(", got '").append(text).append("'");
  throw std::invalid_argument(m);
}

// `text` whole as a number by `convert` (std::stod, std::stoll), or an error
// naming the option and the text.
template <class Convert>
auto parse_number(const std::string& option, const std::string& text, const char* want, Convert convert) {
  std::size_t used = 0;
  decltype(convert(text, &used)) v{};
  try {
    v = convert(text, &used);
  } catch (const std::exception&) {
    bad_value(option, text, want);
  }
  if (used != text.size()) bad_value(option, text, want);
  return v;
}

double parse_double(const std::string& option, const std::string& text) {
  return parse_number(option, text, "a number", [](const std::string& t, std::size_t* used) { return std::stod(t, used); });
}

long long parse_int(const std::string& option, const std::string& text) {
  return parse_number(option, text, "an integer", [](const std::string& t, std::size_t* used) { return std::stoll(t, used); });
}

mpi::detail::SafraMutant mutant_by_name(const std::string& name) {
  if (name == "none") return mpi::detail::SafraMutant::kNone;
  if (name == "ignore-black") return mpi::detail::SafraMutant::kIgnoreBlack;
  if (name == "data-after-report") return mpi::detail::SafraMutant::kDataAfterReport;
  if (name == "pass-token-when-busy") return mpi::detail::SafraMutant::kPassTokenWhenBusy;
  bad_value("--mutant", name, "none, ignore-black, pass-token-when-busy or data-after-report");
}

void print_result(const RankSimConfig& c, const RankSimResult& r, bool per_rank) {
  std::printf("tree=%s ranks=%d workers=%d progress=%s weighed=%s refill_ahead=%zu worker_probe_us=%g latency_us=%g bandwidth_gbps=%g seed=%llu nodes=%llu "
              "leaves=%llu depth=%d "
              "time_s=%.6f detect_s=%.6f serial_s=%.6f efficiency=%.3f messages=%llu bytes=%llu waves=%llu crossings=%llu dropped=%llu "
              "data_frames=%llu max_busy_request_wait_us=%.1f max_dry_refill_wait_us=%.1f spin_refills=%llu max_spin_refill_wait_us=%.1f spread_s=%.6f startup_share=%.3f queued_per_worker=%.1f busy_by_tenth=",
              c.tree.name, c.ranks, c.workers, c.sleeping_progress ? "sleeping" : "polling", c.weigh_tasks ? "yes" : "no",
              c.refill_ahead,
              c.sleeping_progress ? c.worker_probe_s * 1e6 : 0.0, c.latency_s * 1e6, c.bandwidth_Bps * 8 / 1e9,
              static_cast<unsigned long long>(c.seed), static_cast<unsigned long long>(r.nodes),
              static_cast<unsigned long long>(r.leaves), r.depth, r.time_s, r.time_s - r.last_node_s, r.serial_s, r.efficiency,
              static_cast<unsigned long long>(r.messages), static_cast<unsigned long long>(r.bytes),
              static_cast<unsigned long long>(r.token_waves), static_cast<unsigned long long>(r.total_crossings()),
              static_cast<unsigned long long>(r.dropped), static_cast<unsigned long long>(r.data_frames),
              r.max_busy_request_wait_s * 1e6, r.max_dry_refill_wait_s * 1e6,
              static_cast<unsigned long long>(r.spin_refills), r.max_spin_refill_wait_s * 1e6, r.spread_s, r.startup_share, r.queued_per_worker);
  for (int i = 0; i < 10; ++i) std::printf(i == 0 ? "%.2f" : ",%.2f", r.busy_by_tenth[i]);
  std::printf("\n");
  if (!per_rank) return;
  for (std::size_t i = 0; i < r.per_rank.size(); ++i) {
    const mpi::RankMetrics& m = r.per_rank[i];
    std::printf("  rank=%zu tasks_run=%llu steal_requests_sent=%llu batches_stolen=%llu tasks_stolen=%llu "
                "batches_given=%llu lifeline_pushes_given=%llu hunts_ahead=%llu messages_sent=%llu\n",
                i, static_cast<unsigned long long>(m.tasks_run), static_cast<unsigned long long>(m.steal_requests_sent),
                static_cast<unsigned long long>(m.batches_stolen), static_cast<unsigned long long>(m.tasks_stolen),
                static_cast<unsigned long long>(m.batches_given), static_cast<unsigned long long>(m.lifeline_pushes_given),
                static_cast<unsigned long long>(m.hunts_ahead),
                static_cast<unsigned long long>(m.messages_sent));
  }
}

// The ideal scheduler's line: its settings, counts, time and efficiency.
int run_ideal(const RankSimConfig& c) {
  const IdealSimResult r = run_ideal_sim(IdealSimConfig{c.tree, c.ranks, c.workers, c.latency_s, c.node_cost_s});
  std::printf("tree=%s ranks=%d workers=%d scheduler=ideal latency_us=%g nodes=%llu leaves=%llu depth=%d time_s=%.6f "
              "serial_s=%.6f efficiency=%.3f moves=%llu\n",
              c.tree.name, c.ranks, c.workers, c.latency_s * 1e6, static_cast<unsigned long long>(r.nodes),
              static_cast<unsigned long long>(r.leaves), r.depth, r.time_s, r.serial_s, r.efficiency,
              static_cast<unsigned long long>(r.moves));
  for (const std::string& v : r.violations) std::printf("%s\n", v.c_str());
  return r.violations.empty() ? 0 : 1;
}

}  // namespace

int ranks_main(int argc, char** argv) {
  RankSimConfig c;
  bool per_rank = false, tree_given = false, cost_given = false, ideal = false;
  std::string protocol_option;  // the first option the ideal scheduler has no use for
  long long first = 1, last = 1;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (protocol_option.empty() && a != "--ideal" && a != "--tree" && a != "--ranks" && a != "--workers" &&
          a != "--latency-us" && a != "--node-ns")
        protocol_option = a;
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) {
          std::string m = a;
          throw std::invalid_argument(m.append(" needs a value"));
        }
        return argv[++i];
      };
      auto count = [&](long long lo, long long hi) {
        const std::string v = value();
        const long long n = parse_int(a, v);
        if (n < lo || n > hi) {
          std::string want = "an integer in ";
          want.append(std::to_string(lo)).append("..").append(std::to_string(hi));
          bad_value(a, v, want.c_str());
        }
        return n;
      };
      if (a == "--tree") {
        c.tree = tree_by_name(value());
        tree_given = true;
      } else if (a == "--ranks") c.ranks = static_cast<int>(count(1, 1 << 20));
      else if (a == "--workers") c.workers = static_cast<int>(count(1, 4096));
      else if (a == "--latency-us") {
        const std::string v = value();
        c.latency_s = parse_double(a, v) * 1e-6;
        if (!(c.latency_s >= 0)) bad_value(a, v, ">= 0");
      } else if (a == "--bandwidth-gbps") {
        const std::string v = value();
        c.bandwidth_Bps = parse_double(a, v) * 1e9 / 8;
        if (!(c.bandwidth_Bps > 0)) bad_value(a, v, "> 0");
      } else if (a == "--node-ns") {
        const std::string v = value();
        c.node_cost_s = parse_double(a, v) * 1e-9;
        if (!(c.node_cost_s > 0)) bad_value(a, v, "> 0");
        cost_given = true;
      } else if (a == "--seed") first = last = count(0, 1LL << 62);
      else if (a == "--seeds") {
        const std::string r = value();
        const auto dots = r.find("..");
        if (dots == std::string::npos) bad_value(a, r, "A..B");
        first = parse_int(a, r.substr(0, dots));
        last = parse_int(a, r.substr(dots + 2));
        if (first < 0 || last < first) bad_value(a, r, "A..B with 0 <= A <= B");
      } else if (a == "--jitter") {
        const std::string v = value();
        c.jitter = parse_double(a, v);
        if (!(c.jitter >= 0)) bad_value(a, v, ">= 0");
      } else if (a == "--start-rank") c.start_rank = static_cast<int>(count(0, (1 << 20) - 1));
      else if (a == "--fail-rank") c.fail_rank = static_cast<int>(count(0, (1 << 20) - 1));
      else if (a == "--fail-after") c.fail_after = static_cast<std::uint64_t>(count(1, 1LL << 62));
      else if (a == "--random-steals") c.protocol.random_steals = static_cast<std::size_t>(count(0, 1 << 20));
      else if (a == "--max-batch") c.protocol.max_batch = static_cast<std::size_t>(count(1, 1 << 30));
      else if (a == "--weigh") c.weigh_tasks = true;
      else if (a == "--refill-ahead") c.refill_ahead = static_cast<std::size_t>(count(0, 1 << 20));
      else if (a == "--mutant") c.protocol.mutant = mutant_by_name(value());
      else if (a == "--wave-arity") c.protocol.wave_arity = static_cast<int>(count(1, 1 << 20));
      else if (a == "--progress") {
        const std::string v = value();
        if (v == "polling") c.sleeping_progress = false;
        else if (v == "sleeping") c.sleeping_progress = true;
        else bad_value(a, v, "polling or sleeping");
      } else if (a == "--worker-probe-us") {
        const std::string v = value();
        c.worker_probe_s = parse_double(a, v) * 1e-6;
        if (!(c.worker_probe_s >= 0) || !(c.worker_probe_s <= 1)) bad_value(a, v, "0..1000000 (0: no probes)");
      } else if (a == "--per-rank") per_rank = true;
      else if (a == "--emit-leaves") c.emit_leaves = true;
      else if (a == "--trace") c.trace = true;
      else if (a == "--ideal") ideal = true;
      else {
        std::string m = "unknown option '";
        throw std::invalid_argument(m.append(a).append("'"));
      }
    }
    if (!tree_given) throw std::invalid_argument("--tree is required (T1, T3, ...)");
    if (ideal && !protocol_option.empty()) {
      std::string m = "--ideal takes only --tree, --ranks, --workers, --latency-us and --node-ns, got '";
      throw std::invalid_argument(m.append(protocol_option).append("'"));
    }
    if (!cost_given) c.node_cost_s = calibrated_node_cost_s(c.tree);
    c.seed = static_cast<std::uint64_t>(first);
    c.validate();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stealpool_sim ranks: %s\n", e.what());
    return 2;
  }
  if (ideal) return run_ideal(c);
  for (long long s = first; s <= last; ++s) {
    c.seed = static_cast<std::uint64_t>(s);
    const RankSimResult r = run_rank_sim(c);
    print_result(c, r, per_rank);
    if (!r.violations.empty()) {
      for (const std::string& v : r.violations) std::printf("%s\n", v.c_str());
      std::string replay = "stealpool_sim ranks";
      for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--seed" || a == "--seeds") {
          ++i;  // replaced by the failing seed
          continue;
        }
        if (a != "--trace") replay.append(" ").append(a);
      }
      std::printf("seed %lld failed; replay: %s --seed %lld --trace\n", s, replay.c_str(), s);
      return 1;
    }
  }
  return 0;
}

}  // namespace stealpool::sim::ranks

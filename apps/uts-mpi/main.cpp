// stealpool-uts-mpi: counts a UTS sample tree with stealpool::mpi::DistExecutor
// (one process per rank, --workers threads in each) and checks the counts
// against the published ones.
//
//   mpiexec -np 2 stealpool-uts-mpi --tree T1 --workers 1 [--metrics] [--trace FILE]
//   -> nodes=4130071 leaves=3305118 depth=10 time_s=1.23 ranks=2 workers=1
//   --trace FILE: the run's timeline, a process per rank (Perfetto UI opens it)
//   --worker-probe-us P: DistConfig::worker_probe_us (100; 0: the workers never probe)
//   --random-steals N: DistConfig::random_steals (random victims tried before the lifelines)
//   --refill-ahead N: DistConfig::refill_ahead (4; 0: a rank asks for work only once dry)
//   --unweighted: steals take half of a victim's spare nodes, not half of its
//   expected work (DistExecutor::weigh_tasks with UtsExpectedNodes, the default)
//   stealpool-uts-mpi --tree T1 --serial      the serial walk, no executor
//   (the benchmark's baseline, timed the same way)
//
// Exit status: 0 counts match the UTS reference; 1 they do not (or the run
// failed); 2 bad arguments (the message names the value).
#include <mpi.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "stealpool/mpi/dist_executor.hpp"
#include "stealpool/mpi/trace.hpp"
#include "stealpool/workloads/uts.hpp"

namespace {

using stealpool::workloads::UtsNode;
using stealpool::workloads::UtsTree;

struct Options {
  const UtsTree* tree = nullptr;
  std::size_t workers = 1;
  bool metrics = false;
  bool serial = false;  // the serial walk on rank 0, for the benchmark's baseline
  std::string trace;    // --trace FILE: written by rank 0
  std::uint32_t worker_probe_us = stealpool::mpi::DistConfig{}.worker_probe_us;
  std::size_t random_steals = stealpool::mpi::DistConfig{}.random_steals;
  std::size_t refill_ahead = stealpool::mpi::DistConfig{}.refill_ahead;
  bool weighted = true;  // DistExecutor::weigh_tasks by each node's expected subtree
};

struct Counts {
  std::uint64_t nodes = 0;
  std::uint64_t leaves = 0;
  std::int32_t depth = 0;
};

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "stealpool-uts-mpi: %s\nusage: stealpool-uts-mpi --tree T1|T2|T3|T5 [--workers N] [--metrics] [--serial] "
               "[--trace FILE] [--worker-probe-us P] [--random-steals N] [--refill-ahead N] [--unweighted]\n",
               what.c_str());
  std::exit(2);
}

// `text`, the value of option `name`, as a whole number in [lo, hi]; else a
// usage error naming the option, the range and the text.
std::size_t whole_number(std::string_view name, std::string_view text, std::size_t lo, std::size_t hi) {
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < lo || n > hi)
    usage_error(std::string(name) + " must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                " (got '" + std::string(text) + "')");
  return n;
}

// Parsed before MPI starts, so a bad argument costs no MPI start-up and every
// rank reports the same error.
Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string_view {
      if (i + 1 >= argc) usage_error(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "--tree") {
      const std::string_view name = value();
      for (const UtsTree* t : {&stealpool::workloads::kUtsT1, &stealpool::workloads::kUtsT2, &stealpool::workloads::kUtsT3,
                               &stealpool::workloads::kUtsT5})
        if (name == t->name) o.tree = t;
      if (o.tree == nullptr) usage_error("unknown --tree '" + std::string(name) + "' (T1, T2, T3 or T5)");
    } else if (arg == "--workers") {
      o.workers = whole_number(arg, value(), 1, 1024);
    } else if (arg == "--worker-probe-us") {
      o.worker_probe_us = static_cast<std::uint32_t>(whole_number(arg, value(), 0, 1'000'000));
    } else if (arg == "--random-steals") {
      o.random_steals = whole_number(arg, value(), 0, 1024);
    } else if (arg == "--refill-ahead") {
      o.refill_ahead = whole_number(arg, value(), 0, 1'000'000);
    } else if (arg == "--unweighted") {
      o.weighted = false;
    } else if (arg == "--metrics") {
      o.metrics = true;
    } else if (arg == "--serial") {
      o.serial = true;
    } else if (arg == "--trace") {
      o.trace = std::string(value());
      if (o.trace.empty()) usage_error("--trace needs a file name (got '')");
    } else {
      usage_error("unknown argument '" + std::string(arg) + "'");
    }
  }
  if (o.tree == nullptr) usage_error("--tree is required");
  return o;
}

// Prints the counts line and checks it against the published counts.
int report(const UtsTree& tree, const Counts& total, double time_s, int ranks, std::size_t workers) {
  std::printf("nodes=%llu leaves=%llu depth=%d time_s=%.3f ranks=%d workers=%zu\n",
              static_cast<unsigned long long>(total.nodes), static_cast<unsigned long long>(total.leaves), total.depth,
              time_s, ranks, workers);
  if (total.nodes != tree.nodes || total.leaves != tree.leaves || total.depth != tree.depth) {
    std::fprintf(stderr, "stealpool-uts-mpi: %s counts differ from the UTS reference (nodes=%llu leaves=%llu depth=%d)\n",
                 tree.name, static_cast<unsigned long long>(tree.nodes), static_cast<unsigned long long>(tree.leaves),
                 tree.depth);
    return 1;
  }
  return 0;
}

int run_serial(const UtsTree& tree) {
  const auto t0 = std::chrono::steady_clock::now();
  const stealpool::workloads::UtsStats s = stealpool::workloads::uts_serial(tree);
  const double time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report(tree, Counts{s.nodes, s.leaves, s.depth}, time_s, 0, 0);
}

int run(const Options& o, const stealpool::mpi::Environment& env) {
  const UtsTree& tree = *o.tree;
  if (o.serial) return env.rank() == 0 ? run_serial(tree) : 0;
  stealpool::mpi::DistConfig config;
  config.workers = o.workers;
  config.worker_probe_us = o.worker_probe_us;
  config.random_steals = o.random_steals;
  config.refill_ahead = o.refill_ahead;
  std::optional<stealpool::TraceRecorder> recorder;
  std::ofstream trace_file;
  if (!o.trace.empty()) {
    int writable = 1;
    if (env.rank() == 0) {
      trace_file.open(o.trace);
      writable = trace_file ? 1 : 0;
    }
    MPI_Bcast(&writable, 1, MPI_INT, 0, MPI_COMM_WORLD);  // every rank stops, not only rank 0
    if (writable == 0) throw std::runtime_error("cannot write the trace to '" + o.trace + "'");
    recorder.emplace(o.workers);
    config.trace = &*recorder;
  }
  using Ctx = stealpool::mpi::Context<UtsNode, Counts>;
  stealpool::mpi::DistExecutor<UtsNode, Counts> ex(
      config, [](std::size_t) { return Counts{}; },
      [&tree](const UtsNode& node, Ctx& ctx) {
        Counts& c = ctx.scratch();
        const int n = stealpool::workloads::uts_num_children(tree, node);
        ++c.nodes;
        if (n == 0) ++c.leaves;
        c.depth = std::max(c.depth, node.height);
        for (int i = 0; i < n; ++i) ctx.spawn(stealpool::workloads::uts_child(node, i));
      });
  if (o.weighted) ex.weigh_tasks(stealpool::workloads::UtsExpectedNodes(tree));
  if (env.rank() == 0) ex.seed(stealpool::workloads::uts_root(tree));  // all the work starts on rank 0, as in UTS
  MPI_Barrier(MPI_COMM_WORLD);
  ex.run();
  Counts mine;
  for (std::size_t w = 0; w < o.workers; ++w) {
    const Counts& c = *ex.scratch(w);
    mine.nodes += c.nodes;
    mine.leaves += c.leaves;
    mine.depth = std::max(mine.depth, c.depth);
  }
  const Counts total = ex.reduce(mine, [](Counts a, const Counts& b) {
    a.nodes += b.nodes;
    a.leaves += b.leaves;
    a.depth = std::max(a.depth, b.depth);
    return a;
  });
  const double time_s = ex.reduce(ex.metrics().run_s, [](double a, double b) { return std::max(a, b); });
  const auto per_rank = ex.gather_metrics();
  if (recorder) {
    stealpool::mpi::write_rank_traces(*recorder, MPI_COMM_WORLD, trace_file);
    if (env.rank() == 0 && !trace_file.flush())
      throw std::runtime_error("could not finish writing the trace to '" + o.trace + "'");
  }
  if (env.rank() != 0) return 0;
  const int status = report(tree, total, time_s, env.size(), o.workers);
  if (o.metrics) {
    for (std::size_t r = 0; r < per_rank.size(); ++r) {
      const auto& m = per_rank[r];
      std::printf("rank=%zu tasks_run=%llu batches_stolen=%llu tasks_stolen=%llu batches_given=%llu "
                  "steal_requests=%llu empty_replies=%llu lifeline_requests=%llu messages_sent=%llu "
                  "messages_received=%llu worker_parks=%llu progress_naps=%llu progress_cpu_s=%.3f "
                  "worker_probe_rings=%llu hunts_ahead=%llu\n",
                  r, static_cast<unsigned long long>(m.tasks_run), static_cast<unsigned long long>(m.batches_stolen),
                  static_cast<unsigned long long>(m.tasks_stolen), static_cast<unsigned long long>(m.batches_given),
                  static_cast<unsigned long long>(m.steal_requests_sent),
                  static_cast<unsigned long long>(m.empty_replies),
                  static_cast<unsigned long long>(m.lifeline_requests_sent),
                  static_cast<unsigned long long>(m.messages_sent),
                  static_cast<unsigned long long>(m.messages_received), static_cast<unsigned long long>(m.worker_parks),
                  static_cast<unsigned long long>(m.progress_naps), m.progress_cpu_s,
                  static_cast<unsigned long long>(m.worker_probe_rings), static_cast<unsigned long long>(m.hunts_ahead));
    }
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  try {
    stealpool::mpi::Environment env(argc, argv);
    return run(options, env);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stealpool-uts-mpi: %s\n", e.what());
    return 1;
  }
}

// sim/ranks/ideal_sim_test.cpp: the ideal scheduler (ideal_sim.hpp): every node
// once, the serial walk's time at one worker, no move sooner than a latency,
// and never a worker idle while a node may run on its rank (checked through
// the bound that only such a greedy schedule meets). Behaviour only: every time
// compared is simulated, exact for a configuration.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "ideal_sim.hpp"
#include "rank_sim.hpp"

namespace stealpool::sim::ranks {
namespace {

IdealSimConfig ideal_config(const workloads::UtsTree& tree, int ranks, int workers, double latency_s) {
  return IdealSimConfig{tree, ranks, workers, latency_s, calibrated_node_cost_s(tree)};
}

std::string ideal_violations(const IdealSimResult& r) {
  std::string all;
  for (const std::string& v : r.violations) all.append(v).append("\n");
  return all;
}

TEST(IdealScheduler, RunsEveryNodeOnceAndAtOneWorkerTakesTheSerialWalksTime) {
  for (const auto* tree : {&kSmallGeometric, &kSmallBinomial}) {
    const workloads::UtsStats serial = workloads::uts_serial(*tree);
    for (const auto& [ranks, workers] : {std::pair{1, 1}, {2, 1}, {16, 1}, {4, 4}, {1024, 1}}) {
      const IdealSimResult r = run_ideal_sim(ideal_config(*tree, ranks, workers, 1.5e-6));
      SCOPED_TRACE(std::string(tree->name) + " " + std::to_string(ranks) + " x " + std::to_string(workers));
      ASSERT_TRUE(r.violations.empty()) << ideal_violations(r);
      EXPECT_EQ(r.nodes, serial.nodes);
      EXPECT_EQ(r.leaves, serial.leaves);
      EXPECT_EQ(r.depth, serial.depth);
      if (ranks * workers == 1) {
        EXPECT_DOUBLE_EQ(r.time_s, r.serial_s);
        EXPECT_EQ(r.moves, 0u);
      } else {
        EXPECT_LT(r.time_s, r.serial_s);
        EXPECT_GT(r.moves, 0u);
      }
    }
  }
}

// Rank 0 holds the root; with a latency longer than the whole walk no node is
// ever ripe elsewhere before rank 0 has run it, so rank 0 walks the tree alone.
TEST(IdealScheduler, NoNodeRunsOnAnotherRankSoonerThanALatencyAfterItWasMade) {
  for (const auto* tree : {&kSmallGeometric, &kSmallBinomial}) {
    const double serial_s = static_cast<double>(workloads::uts_serial(*tree).nodes) * calibrated_node_cost_s(*tree);
    const IdealSimResult r = run_ideal_sim(ideal_config(*tree, 16, 1, 2 * serial_s));
    SCOPED_TRACE(tree->name);
    ASSERT_TRUE(r.violations.empty()) << ideal_violations(r);
    EXPECT_EQ(r.moves, 0u);
    EXPECT_DOUBLE_EQ(r.time_s, r.serial_s);
  }
}

// Whenever a worker is idle, the node on the path to the last one finished is
// running or was made less than a latency ago (else the worker would run it):
// so time <= serial / workers + (depth + 1) x (node cost + latency). A
// scheduler that let a ripe node wait beside an idle worker breaks it on these
// trees. And no schedule beats serial / workers or the deepest path's nodes.
TEST(IdealScheduler, IdlesNoWorkerWhileANodeMayRunOnItsRank) {
  for (const auto* tree : {&kSmallGeometric, &kSmallBinomial}) {
    const double cost_s = calibrated_node_cost_s(*tree);
    for (int ranks : {2, 16, 64}) {
      for (int workers : {1, 3}) {
        for (double latency_s : {0.0, 1.5e-6, 20e-6}) {
          const IdealSimResult r = run_ideal_sim(ideal_config(*tree, ranks, workers, latency_s));
          SCOPED_TRACE(std::string(tree->name) + " " + std::to_string(ranks) + " x " + std::to_string(workers) +
                       " latency " + std::to_string(latency_s));
          ASSERT_TRUE(r.violations.empty()) << ideal_violations(r);
          const double per_worker_s = r.serial_s / (ranks * workers);
          const double path = r.depth + 1.0;
          EXPECT_LE(r.time_s, per_worker_s + path * (cost_s + latency_s) + 1e-12);
          EXPECT_GE(r.time_s, std::max(per_worker_s, path * cost_s) - 1e-12);
        }
      }
    }
  }
}

TEST(IdealScheduler, BadSettingsAreRefusedNamingTheValue) {
  auto refused = [](IdealSimConfig c, const std::string& what) {
    try {
      c.validate();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "accepted: " << what;
  };
  const IdealSimConfig ok = ideal_config(kSmallGeometric, 4, 1, 1.5e-6);
  IdealSimConfig c = ok;
  c.ranks = 0;
  refused(c, "ranks must be 1..1048576, got 0");
  c = ok;
  c.workers = 5000;
  refused(c, "workers must be 1..4096, got 5000");
  c = ok;
  c.ranks = 1 << 20;
  c.workers = 4096;
  refused(c, "ranks x workers must be at most 16777216, got 4294967296");
  c = ok;
  c.latency_s = -1;
  refused(c, "latency must be >= 0 s, got -1");
  c = ok;
  c.node_cost_s = 0;
  refused(c, "node cost must be > 0 s, got 0");
}

}  // namespace
}  // namespace stealpool::sim::ranks

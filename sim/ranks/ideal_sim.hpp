// sim/ranks/ideal_sim.hpp: the ideal scheduler, a ceiling for the rank
// simulator's table (README.md in this folder, "The ideal scheduler").
//
// N ranks of W workers walk a UTS tree at a fixed cost per node. Nothing is
// asked for and nothing is decided: every node is seen by every worker the
// moment it may run there. A node made on rank A may run on A at once and on
// any other rank one latency later (a move costs one message, not a request
// and a reply). A worker that finishes a node starts, at the same instant, its
// own rank's newest node, else the oldest node anywhere that may run on its
// rank by then, else it idles until one may. No protocol of messages can be
// told about work sooner, so what this greedy scheduler reaches on a tree says
// how much of a protocol's loss is the tree's and the latency's; it is not a
// proof that no schedule does better (a greedy one is within 2x of the best).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stealpool/workloads/uts.hpp"

namespace stealpool::sim::ranks {

struct IdealSimConfig {
  workloads::UtsTree tree = workloads::kUtsT1;
  int ranks = 1;              // >= 1
  int workers = 1;            // per rank, >= 1
  double latency_s = 1.5e-6;  // a node made on one rank may run on another this much later; >= 0
  double node_cost_s = 0;     // one node's run; > 0

  // std::invalid_argument naming the field and its bad value.
  void validate() const;
};

struct IdealSimResult {
  double time_s = 0;      // when the last node finished
  double serial_s = 0;    // nodes * node_cost_s
  double efficiency = 0;  // serial_s / (ranks * workers * time_s)
  std::uint64_t nodes = 0;
  std::uint64_t leaves = 0;
  std::int32_t depth = 0;
  std::uint64_t moves = 0;  // nodes run on a rank other than the one that made them
  // Counts unlike the UTS reference, a node moved sooner than a latency; empty: none.
  std::vector<std::string> violations;
};

IdealSimResult run_ideal_sim(const IdealSimConfig& config);

}  // namespace stealpool::sim::ranks

// sim/ranks/rank_sim.hpp: the rank simulator (README.md in this folder). A
// discrete-event simulation of N ranks, each running the real
// stealpool::mpi::detail::RankProtocol (the decisions of the MPI progress
// thread) over a simulated network (a message takes latency + bytes /
// bandwidth; each rank's outgoing link sends one message at a time), with each
// rank's pool modelled abstractly: W workers that run UTS tree nodes at a fixed
// cost per node from one queue, LIFO for the workers, FIFO for batches taken by
// other ranks. Deterministic for a seed. Checks the invariants of README.md and
// reports every violation it finds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stealpool/mpi/detail/rank_protocol.hpp"
#include "stealpool/mpi/rank_metrics.hpp"
#include "stealpool/workloads/uts.hpp"

namespace stealpool::sim::ranks {

struct RankSimConfig {
  workloads::UtsTree tree = workloads::kUtsT1;
  int ranks = 1;                  // >= 1
  int workers = 1;                // per rank, >= 1
  double latency_s = 1.5e-6;      // per message, >= 0
  double bandwidth_Bps = 12.5e9;  // bytes per second of a rank's outgoing link, > 0
  double node_cost_s = 0;         // one node's run (expanding it included); > 0
  double jitter = 0;              // each message waits latency * jitter * U[0,1) more; >= 0
  std::uint64_t seed = 1;         // the protocol's victim choice and the jitter
  int start_rank = 0;             // the rank that holds the root (all the work) at the start
  // A failing task: rank `fail_rank` fails at its `fail_after`-th node (1-based)
  // and cancels the run. -1: nothing fails.
  int fail_rank = -1;
  std::uint64_t fail_after = 0;
  mpi::detail::ProtocolConfig protocol{};  // random_steals, max_batch, mutant (its seed is `seed`)
  // A take for another rank weighs the nodes it took by their expected
  // subtrees (workloads::UtsExpectedNodes) and sends about half of the spare
  // work ([MPI-take-by-weight]), as stealpool-uts-mpi does; false: half of the
  // spare nodes, as a DistExecutor without weigh_tasks.
  bool weigh_tasks = false;
  // [MPI-refill-ahead]: a rank whose queue holds at most this many nodes a
  // worker, while it has work, asks its lifelines (DistConfig::refill_ahead,
  // the same default); 0: only once it runs dry.
  std::size_t refill_ahead = 4;
  // false: the progress thread handles each message when it arrives and decides
  // after every event of its rank (a thread that polls without pause). true: it
  // runs the real Progress::run() rounds: receive up to 64 arrived messages, one
  // step(), then if the round did nothing nap progress_sleep_us() (5 us
  // doubling to 50 us / 400 us / 1.28 ms / 1 ms), cut to 5 us when the rank's
  // pool runs dry during it ([MPI-dry-bell]), else go round again after
  // kBusyRound.
  bool sleeping_progress = false;
  // With sleeping_progress: [MPI-worker-probe]. A message that reaches a rank
  // while one of its workers runs a node rings its napping progress thread at
  // that rank's next probe (every worker_probe_s, each rank at its own phase),
  // and a rank with work naps up to kProgressProbedUs while it holds no
  // lifeline thief. 0: the workers do not probe (MPI_THREAD_FUNNELED).
  double worker_probe_s = 100e-6;
  // Each leaf emits an 8-byte frame (Context::emit) for rank 0's data sink: the
  // checker wants every one delivered exactly once, before rank 0 terminates
  // ([MPI-data-before-passive]).
  bool emit_leaves = false;
  // A livelock guard: more events is a violation. 0: 200 million or 4 a node
  // of the tree, whichever is more (T3L at 1,024 ranks, lifelines first, takes
  // 201 million: 111 million nodes and 90 million messages).
  std::uint64_t max_events = 0;
  bool trace = false;                      // print every message as it is delivered

  // std::invalid_argument naming the field and its bad value.
  void validate() const;
};

// The per-node cost calibrated on the project machine (serial walk time / nodes:
// T1 0.618 s for 4,130,071 nodes, T3 0.390 s for 4,112,897; docs/distributed.md).
double calibrated_node_cost_s(const workloads::UtsTree& tree);
// "T1", "T3", ... (the trees of uts.hpp, and the small test trees below);
// std::invalid_argument naming an unknown one.
workloads::UtsTree tree_by_name(const std::string& name);
// The settings both simulators take, checked by the same rules: ranks
// 1..2^20, workers 1..4096, latency >= 0 s, node cost > 0 s, all finite. Throws
// std::invalid_argument "<who>: <field> must be <want>, got <value>" for the
// first bad one (refuse_setting).
void validate_shared_settings(const char* who, int ranks, int workers, double latency_s, double node_cost_s);
[[noreturn]] void refuse_setting(const char* who, const char* field, const std::string& value, const char* want);
// The tree with its counts filled in by a serial walk where none are published
// (the small test trees); a tree with published counts comes back unchanged.
workloads::UtsTree with_reference_counts(workloads::UtsTree tree);
// The ~100-million-node sample trees of the UTS distribution (its
// sample_workloads file; not in uts.hpp because no test walks them): every
// simulator run checks its counts against these.
//   T1L: -t 1 -a 3 -d 13 -b 4 -r 29              102,181,082 nodes, 81,746,377 leaves, depth 13
//   T3L: -t 0 -b 2000 -q 0.200014 -m 5 -r 7      111,345,631 nodes, 89,076,904 leaves, depth 17,844
inline constexpr workloads::UtsTree kUtsT1L{"T1L", workloads::UtsType::kGeometric, 4.0, 29, 0, 0.0,
                                            workloads::UtsShape::kFixed, 13, 102'181'082, 81'746'377, 13};
inline constexpr workloads::UtsTree kUtsT3L{"T3L", workloads::UtsType::kBinomial, 2000.0, 7, 5, 0.200014,
                                            workloads::UtsShape::kLinear, 0, 111'345'631, 89'076'904, 17844};
// Small trees for tests (counted by a serial walk, not published): the T1 and T3
// generators cut to a few thousand nodes.
inline constexpr workloads::UtsTree kSmallGeometric{
    "small-geo", workloads::UtsType::kGeometric, 4.0, 19, 0, 0.0, workloads::UtsShape::kFixed, 6, 0, 0, 0};
inline constexpr workloads::UtsTree kSmallBinomial{
    "small-bin", workloads::UtsType::kBinomial, 200.0, 42, 8, 0.12, workloads::UtsShape::kLinear, 0, 0, 0, 0};

struct RankSimResult {
  double time_s = 0;              // simulated time at which the last rank terminated
  double last_node_s = 0;         // when the last node finished: time_s - last_node_s is termination detection
  double serial_s = 0;            // nodes * node_cost_s: one worker, no messages
  double efficiency = 0;          // serial_s / (ranks * workers * time_s)
  // How the work spread: when the last rank started its first node, and the
  // ranks' waits for their first node as a share of ranks * time_s (the part
  // of 1 - efficiency lost before each rank first had work; 1 worker a rank).
  double spread_s = 0;
  double startup_share = 0;
  // The workers' busy share in each tenth of time_s (nodes finished in it x
  // node cost over ranks x workers x a tenth): where in the run the loss is.
  double busy_by_tenth[10] = {};
  // Nodes queued (not running, not in flight) over ranks x workers, averaged
  // over time_s: the spare work a worker has to hand on. At 1 rank it is what
  // the tree offers a shared-memory scheduler with no latency at all.
  double queued_per_worker = 0;
  std::uint64_t nodes = 0;        // nodes run (each checked to be distinct)
  std::uint64_t leaves = 0;
  std::int32_t depth = 0;
  std::uint64_t dropped = 0;      // nodes dropped unrun after a cancel
  std::uint64_t messages = 0;     // every message delivered, token and notices included
  std::uint64_t bytes = 0;        // their bytes, headers included
  std::uint64_t token_waves = 0;
  std::uint64_t data_frames = 0;  // emit_leaves: frames rank 0's sink received
  // With sleeping_progress: the longest a steal request waited between reaching a
  // rank whose workers were running nodes and that rank's protocol receiving it.
  double max_busy_request_wait_s = 0;
  // With sleeping_progress: the longest a batch of tasks (a steal reply or a
  // lifeline push) waited between reaching a dry rank and that rank's protocol
  // receiving it: the nap of a progress thread whose workers are idle.
  double max_dry_refill_wait_s = 0;
  // Of those batches, the ones that reached a passive rank within
  // kProgressSpinUs of its last busy round (the round that asked its
  // lifelines; its progress thread spins then): how many, and the longest wait.
  std::uint64_t spin_refills = 0;
  double max_spin_refill_wait_s = 0;
  // Counted messages that reached a rank after it had reported to the current
  // wave (the case Safra's colour is for), by tag (index = Tag).
  std::uint64_t crossings[mpi::detail::kTagCount] = {};
  std::uint64_t events = 0;
  std::vector<mpi::RankMetrics> per_rank;
  std::vector<std::string> violations;  // empty: every invariant held

  std::uint64_t total_crossings() const noexcept;
};

RankSimResult run_rank_sim(const RankSimConfig& config);

}  // namespace stealpool::sim::ranks

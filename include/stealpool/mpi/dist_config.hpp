// stealpool/mpi/dist_config.hpp: DistConfig, the settings of a DistExecutor, and
// RankMetrics, what one rank did in a run.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "stealpool/trace.hpp"

namespace stealpool::mpi {

struct DistConfig {
  std::size_t workers = 1;        // worker threads on this rank, >= 1
  std::size_t random_steals = 2;  // random victims tried when the rank runs dry, before its lifelines
  std::size_t max_batch = 4096;   // most tasks one steal reply or lifeline push carries, >= 1
  std::uint64_t seed = 0x5EEDu;   // victim choice; mixed with the rank and the worker id
  MPI_Comm comm = MPI_COMM_WORLD; // the ranks taking part; duplicated, so our messages never meet the caller's
  TraceSink* trace = nullptr;     // this rank's workers report to it (trace.hpp); must outlive the executor.
                                  // A TraceRecorder here, then write_rank_traces(): one file, a process per rank

  // std::invalid_argument naming the field and its value.
  void validate() const;
};

// Counted by one rank during run(); trivially copyable, so gather_metrics() can
// ship it as bytes. Workers count privately and the figures are summed at the end.
struct RankMetrics {
  std::uint64_t tasks_run = 0;          // tasks whose runner returned or threw
  std::uint64_t tasks_dropped = 0;      // tasks not run because the run was cancelled
  std::uint64_t local_steals = 0;       // tasks one worker took from a sibling's deque
  std::uint64_t steal_requests_sent = 0;
  std::uint64_t steal_requests_answered = 0;  // requests from other ranks this rank replied to
  std::uint64_t batches_stolen = 0;     // non-empty batches received (replies and lifeline pushes)
  std::uint64_t tasks_stolen = 0;       // tasks in them
  std::uint64_t batches_given = 0;      // non-empty batches sent
  std::uint64_t tasks_given = 0;
  std::uint64_t empty_replies = 0;      // steal requests of ours answered with nothing
  std::uint64_t lifeline_requests_sent = 0;
  std::uint64_t lifeline_pushes_given = 0;  // of batches_given: sent along a lifeline
  std::uint64_t messages_sent = 0;      // every message, the token and the termination notice included
  std::uint64_t messages_received = 0;
  std::uint64_t token_waves = 0;        // termination waves started (rank 0 only)
  double idle_s = 0;                    // summed over workers: time spent without a task
  double run_s = 0;                     // wall time of run() on this rank
};

}  // namespace stealpool::mpi

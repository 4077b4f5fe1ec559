// stealpool/mpi/rank_metrics.hpp: RankMetrics, what one rank did in a run. No
// MPI here: the rank protocol (detail/rank_protocol.hpp) counts into it, and the
// rank simulator (sim/ranks/) runs that protocol without MPI.
#pragma once

#include <cstdint>

namespace stealpool::mpi {

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
  std::uint64_t hunts_ahead = 0;        // lifelines asked while the rank still had work ([MPI-refill-ahead])
  std::uint64_t messages_sent = 0;      // every message, the waves' and the termination notice included
  std::uint64_t messages_received = 0;
  std::uint64_t token_waves = 0;        // termination waves started (rank 0 only)
  std::uint64_t worker_parks = 0;       // times a worker slept for want of a task (summed over workers)
  std::uint64_t worker_probe_rings = 0; // times a worker's probe found a message and woke the progress thread
  double run_s = 0;                     // wall time of run() on this rank
  std::uint64_t progress_naps = 0;      // times the progress thread napped after a quiet round
  double progress_cpu_s = 0;            // CPU time of the progress thread during run() (user + system)
};

}  // namespace stealpool::mpi

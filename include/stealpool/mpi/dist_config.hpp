// stealpool/mpi/dist_config.hpp: DistConfig, the settings of a DistExecutor
// (RankMetrics, what one rank did in a run, is in rank_metrics.hpp).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "stealpool/mpi/rank_metrics.hpp"
#include "stealpool/trace.hpp"

namespace stealpool::mpi {

struct DistConfig {
  std::size_t workers = 1;        // worker threads on this rank, >= 1
  std::size_t random_steals = 0;  // random victims tried when the rank runs dry, before its lifelines
                                  // (0: straight to the lifelines, which measured best: README.md)
  std::size_t max_batch = 4096;   // most tasks one steal reply or lifeline push carries, >= 1
  std::size_t refill_ahead = 4;   // a rank whose queues hold at most this many tasks a worker asks its
                                  // lifelines for more while it still has work ([MPI-refill-ahead]);
                                  // 0: only once it runs dry
  std::uint64_t seed = 0x5EEDu;   // victim choice; mixed with the rank and the worker id
  std::uint32_t worker_probe_us = 100;  // between tasks, a worker looks for a waiting message at most this
                                        // often on the rank and wakes the progress thread ([MPI-worker-probe]);
                                        // needs MPI_THREAD_SERIALIZED or above; 0: only the progress thread looks
  MPI_Comm comm = MPI_COMM_WORLD; // the ranks taking part; duplicated, so our messages never meet the caller's
  TraceSink* trace = nullptr;     // this rank's workers report to it (trace.hpp); must outlive the executor.
                                  // A TraceRecorder here, then write_rank_traces(): one file, a process per rank

  // std::invalid_argument naming the field and its value.
  void validate() const;
};

}  // namespace stealpool::mpi

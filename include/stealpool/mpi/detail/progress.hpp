// stealpool/mpi/detail/progress.hpp: Progress, the MPI transport of one rank's
// side of the distributed protocol. The decisions (steals, lifelines, the
// Dijkstra-Safra waves, the cancel) are RankProtocol's (rank_protocol.hpp,
// ../README.md); Progress receives MPI messages and hands them to it, sends what
// it asks with MPI_Isend, completes the sends, and sleeps when a round did
// nothing. Runs on the thread that called DistExecutor::run(); that thread makes
// every MPI call of the run. Compiled in src/mpi/progress.cpp.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "stealpool/mpi/detail/local_pool.hpp"
#include "stealpool/mpi/detail/rank_protocol.hpp"
#include "stealpool/mpi/detail/worker_probe.hpp"
#include "stealpool/mpi/dist_config.hpp"

namespace stealpool::mpi::detail {

class Progress final : private Transport {
 public:
  // `comm`: the executor's own duplicate (its rank and size are read here).
  // `probe`: the rank's [MPI-worker-probe]; run() holds its lock for every MPI
  // call and closes it before returning.
  Progress(MPI_Comm comm, const DistConfig& config, LocalPool& pool, WorkerProbe& probe);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Until a Safra wave says every rank is passive and no message is in
  // flight; every message of the run has been received when it returns, and every
  // send has completed.
  void run();

  RankMetrics& metrics() noexcept { return protocol_.metrics(); }
  // A cancel from another rank arrived: which, and the text of its exception.
  bool remote_failure() const noexcept { return protocol_.remote_failure(); }
  int failed_rank() const noexcept { return protocol_.failed_rank(); }
  const std::string& failure_text() const noexcept { return protocol_.failure_text(); }

 private:
  struct PendingSend {
    MPI_Request request;
    std::vector<std::byte> bytes;  // alive until the send completes
    bool alerting;                 // alerting_tag(): its completion makes the round busy
  };

  static int rank_of(MPI_Comm comm);
  static int size_of(MPI_Comm comm);
  bool poll_messages();
  void send(int dest, int tag, std::vector<std::byte> bytes, bool counted) override;
  bool complete_sends();  // true if an alerting send completed

  const MPI_Comm comm_;
  LocalPool& pool_;                 // naps on it ([MPI-dry-bell]); the protocol holds it too
  WorkerProbe& probe_;              // [MPI-worker-probe]
  std::vector<PendingSend> sends_;  // sends not yet completed, in no order
  RankProtocol protocol_;          // last: its constructor needs the members above
};

}  // namespace stealpool::mpi::detail

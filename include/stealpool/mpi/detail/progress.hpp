// stealpool/mpi/detail/progress.hpp: Progress, one rank's side of the
// distributed protocol: steal requests and replies, lifelines, the Dijkstra-Safra
// termination token and the cancel broadcast (../README.md says how and why).
// Runs on the thread that called DistExecutor::run(); that thread makes every
// MPI call of the run. Compiled in src/mpi/progress.cpp.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stealpool/mpi/detail/local_pool.hpp"
#include "stealpool/mpi/dist_config.hpp"
#include "stealpool/rng.hpp"

namespace stealpool::mpi::detail {

class Progress {
 public:
  // `comm`: the executor's own duplicate (its rank and size are read here).
  Progress(MPI_Comm comm, const DistConfig& config, LocalPool& pool);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Until the Safra token says every rank is passive and no message is in
  // flight; every message of the run has been received when it returns, and every
  // send has completed.
  void run();

  RankMetrics& metrics() noexcept { return metrics_; }
  // A cancel from another rank arrived: which, and the text of its exception.
  bool remote_failure() const noexcept { return failed_rank_ >= 0; }
  int failed_rank() const noexcept { return failed_rank_; }
  const std::string& failure_text() const noexcept { return failure_text_; }

 private:
  enum Tag : int { kStealRequest = 1, kStealReply, kLifelineRequest, kLifelinePush, kCancel, kToken, kTerminate };
  struct Token {
    std::int64_t q;      // messages sent minus received, summed over the ranks it passed
    std::int64_t black;  // 1: some rank it passed received a message since the last wave
  };
  struct PendingSend {
    MPI_Request request;
    std::vector<std::byte> bytes;  // alive until the send completes
  };

  bool poll_messages();
  void handle(int source, int tag, std::vector<std::byte>& bytes);
  void send(int dest, int tag, std::vector<std::byte> bytes, bool counted);
  bool complete_sends();
  bool serve_lifelines();
  bool hunt();
  void request_random_steal();
  void send_lifeline_requests();
  bool pass_token();
  void broadcast_cancel();
  bool passive() const noexcept;

  // Immutable after construction.
  const MPI_Comm comm_;
  const DistConfig config_;
  LocalPool& pool_;
  int rank_ = 0;
  int size_ = 1;
  std::vector<int> lifeline_buddies_;  // hypercube neighbours: rank ^ 2^k below size

  // Progress-thread state (no other thread reads it).
  XorShift64 rng_;
  std::int64_t count_ = 0;          // Safra: counted messages sent minus received
  bool black_ = false;              // Safra: received a counted message since it last passed the token
  bool has_token_ = false;
  bool token_returned_ = false;     // rank 0: the token came back from a wave
  Token token_{0, 0};
  bool terminated_ = false;
  bool hunting_ = false;            // a steal request of ours awaits its reply
  bool hunt_done_ = false;          // random steals failed and lifeline requests are out: passive
  std::size_t attempts_left_ = 0;
  std::vector<bool> lifeline_registered_;  // [buddy index]: our lifeline request is pending there
  std::vector<int> lifeline_thieves_;      // ranks whose lifeline request we hold
  bool cancelled_ = false;
  bool cancel_sent_ = false;
  int failed_rank_ = -1;
  std::string failure_text_;
  std::vector<PendingSend> sends_;  // sends not yet completed, in no order
  std::vector<std::byte> scratch_;  // batch being built by take_half
  RankMetrics metrics_;
};

}  // namespace stealpool::mpi::detail

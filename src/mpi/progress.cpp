// src/mpi/progress.cpp: the MPI transport of the distributed protocol: receives,
// sends, completes and sleeps; the decisions are RankProtocol's
// (src/mpi/rank_protocol.cpp, include/stealpool/mpi/README.md).
#include "stealpool/mpi/detail/progress.hpp"

#include <chrono>
#include <thread>

#include "stealpool/mpi/detail/progress_sleep.hpp"

namespace stealpool::mpi::detail {

namespace {

ProtocolConfig protocol_config(const DistConfig& config) {
  ProtocolConfig p;
  p.random_steals = config.random_steals;
  p.max_batch = config.max_batch;
  p.seed = config.seed;
  return p;
}

}  // namespace

int Progress::rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int Progress::size_of(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

Progress::Progress(MPI_Comm comm, const DistConfig& config, LocalPool& pool)
    : comm_(comm), protocol_(rank_of(comm), size_of(comm), protocol_config(config), pool, *this) {}

void Progress::run() {
  unsigned quiet_rounds = 0;
  while (!protocol_.terminated()) {
    bool busy = poll_messages();
    if (protocol_.terminated()) break;
    busy |= complete_sends();
    busy |= protocol_.step();
    if (busy) {
      quiet_rounds = 0;
      continue;
    }
    // Nothing happened: sleep a little, longer the longer it stays quiet. A passive
    // rank ends up probing once a millisecond; one with work or a steal in flight
    // at least every 400 or 50 us, the latency a thief waits for its reply.
    const unsigned us = progress_sleep_us(protocol_.passive(), protocol_.hunting(), quiet_rounds);
    ++quiet_rounds;
    std::this_thread::sleep_for(std::chrono::microseconds(us));
  }
  // Every counted message has been received (the token said so) and each rank got
  // its termination notice, so every send of ours completes.
  for (PendingSend& s : sends_) MPI_Wait(&s.request, MPI_STATUS_IGNORE);
  sends_.clear();
}

bool Progress::poll_messages() {
  bool any = false;
  for (int i = 0; i < kProgressMessagesPerRound && !protocol_.terminated(); ++i) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &status);
    if (!flag) break;
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    std::vector<std::byte> buffer(static_cast<std::size_t>(bytes));
    MPI_Recv(buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm_, MPI_STATUS_IGNORE);
    protocol_.receive(status.MPI_SOURCE, status.MPI_TAG, buffer);
    any = true;
  }
  return any;
}

void Progress::send(int dest, int tag, std::vector<std::byte> bytes, bool /*counted*/) {
  PendingSend& s = sends_.emplace_back();
  s.bytes = std::move(bytes);
  MPI_Isend(s.bytes.data(), static_cast<int>(s.bytes.size()), MPI_BYTE, dest, tag, comm_, &s.request);
}

bool Progress::complete_sends() {
  const std::size_t before = sends_.size();
  std::erase_if(sends_, [](PendingSend& s) {
    int done = 0;
    MPI_Test(&s.request, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
  return sends_.size() != before;
}

}  // namespace stealpool::mpi::detail

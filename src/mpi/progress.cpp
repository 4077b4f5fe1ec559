// src/mpi/progress.cpp: one rank's side of the distributed protocol: steals
// between ranks, lifelines, Dijkstra-Safra termination, cancellation
// (include/stealpool/mpi/README.md).
#include "stealpool/mpi/detail/progress.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

namespace stealpool::mpi::detail {

Progress::Progress(MPI_Comm comm, const DistConfig& config, LocalPool& pool)
    : comm_(comm), config_(config), pool_(pool), rng_(1) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  rng_ = XorShift64(derive_worker_seed(config_.seed ^ 0x4D5049ull, static_cast<std::size_t>(rank_)));
  // The lifeline graph: a hypercube cut to `size` ranks. It stays connected (the
  // neighbour with rank's highest bit cleared is always below size) and every rank
  // has at most log2(size) lifelines (README.md, "Lifelines").
  for (int bit = 1; bit < size_; bit <<= 1)
    if ((rank_ ^ bit) < size_) lifeline_buddies_.push_back(rank_ ^ bit);
  lifeline_registered_.assign(lifeline_buddies_.size(), false);
  has_token_ = rank_ == 0;  // rank 0 starts the waves
}

void Progress::run() {
  unsigned quiet_rounds = 0;
  while (!terminated_) {
    bool busy = poll_messages();
    if (terminated_) break;
    busy |= complete_sends();
    // [MPI-failed-before-dry] dry first, failed second: a worker sets its failure
    // before it gives up its token, so a rank seen dry here has its failure seen
    // below and broadcasts the cancel before it can pass the token as passive.
    const bool dry = pool_.dry();
    if (!cancel_sent_ && pool_.failed()) {
      broadcast_cancel();
      busy = true;
    }
    if (!dry && !cancelled_) busy |= serve_lifelines();
    if (dry && !hunting_ && !hunt_done_) busy |= hunt();
    if (has_token_ && dry && passive()) busy |= pass_token();
    if (busy) {
      quiet_rounds = 0;
      continue;
    }
    // Nothing happened: sleep a little, longer the longer it stays quiet. A passive
    // rank ends up probing once a millisecond; one with work or a steal in flight
    // at least every 50 or 100 us, the latency a thief waits for its reply.
    const unsigned cap_us = passive() ? 1000 : hunting_ ? 50 : 400;
    const unsigned us = std::min(cap_us, 5u << std::min(quiet_rounds, 8u));
    ++quiet_rounds;
    std::this_thread::sleep_for(std::chrono::microseconds(us));
  }
  // Every counted message has been received (the token said so) and each rank got
  // its termination notice, so every send of ours completes.
  for (PendingSend& s : sends_) MPI_Wait(&s.request, MPI_STATUS_IGNORE);
  sends_.clear();
}

bool Progress::passive() const noexcept {
  // Passive (Safra's sense): no task here, no reply awaited, lifelines out. Only a
  // received message makes such a rank active again (README.md, "Termination").
  return !hunting_ && hunt_done_ && pool_.dry();
}

bool Progress::poll_messages() {
  bool any = false;
  for (int i = 0; i < 64 && !terminated_; ++i) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &status);
    if (!flag) break;
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    std::vector<std::byte> buffer(static_cast<std::size_t>(bytes));
    MPI_Recv(buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm_, MPI_STATUS_IGNORE);
    ++metrics_.messages_received;
    handle(status.MPI_SOURCE, status.MPI_TAG, buffer);
    any = true;
  }
  return any;
}

void Progress::handle(int source, int tag, std::vector<std::byte>& bytes) {
  if (tag != kToken && tag != kTerminate) {
    --count_;  // Safra: a counted message received
    black_ = true;
  }
  const std::size_t tasks = bytes.size() / pool_.task_bytes();
  auto accept = [&] {
    if (tasks == 0) return;
    ++metrics_.batches_stolen;
    metrics_.tasks_stolen += tasks;
    if (cancelled_) {
      metrics_.tasks_dropped += tasks;
      return;
    }
    pool_.give(bytes.data(), tasks);
    hunt_done_ = false;  // active again: the next time the rank runs dry it hunts anew
  };
  switch (tag) {
    case kStealRequest: {
      ++metrics_.steal_requests_answered;
      scratch_.clear();
      const std::size_t n = cancelled_ ? 0 : pool_.take_half(config_.max_batch, scratch_);
      if (n != 0) {
        ++metrics_.batches_given;
        metrics_.tasks_given += n;
      }
      send(source, kStealReply, std::move(scratch_), true);
      scratch_ = {};
      break;
    }
    case kStealReply:
      hunting_ = false;
      if (tasks != 0) {
        accept();
      } else {
        ++metrics_.empty_replies;
        if (!pool_.dry()) break;  // a lifeline push came meanwhile: stop hunting
        if (!cancelled_ && attempts_left_ > 1) {
          --attempts_left_;
          request_random_steal();
        } else {
          send_lifeline_requests();
        }
      }
      break;
    case kLifelineRequest:
      if (std::find(lifeline_thieves_.begin(), lifeline_thieves_.end(), source) == lifeline_thieves_.end())
        lifeline_thieves_.push_back(source);
      break;
    case kLifelinePush: {
      const auto it = std::find(lifeline_buddies_.begin(), lifeline_buddies_.end(), source);
      if (it != lifeline_buddies_.end()) lifeline_registered_[static_cast<std::size_t>(it - lifeline_buddies_.begin())] = false;
      accept();
      break;
    }
    case kCancel:
      if (!cancelled_) pool_.cancel();
      cancelled_ = true;
      if (failed_rank_ < 0) {
        failed_rank_ = source;
        failure_text_.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      }
      break;
    case kToken:
      std::memcpy(&token_, bytes.data(), std::min(bytes.size(), sizeof token_));
      has_token_ = true;
      token_returned_ = rank_ == 0;
      break;
    case kTerminate:
      terminated_ = true;
      break;
    default:
      break;  // not ours: the communicator is our own duplicate, so this cannot happen
  }
}

void Progress::send(int dest, int tag, std::vector<std::byte> bytes, bool counted) {
  if (counted) ++count_;  // Safra: a counted message sent
  ++metrics_.messages_sent;
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

bool Progress::serve_lifelines() {
  bool any = false;
  while (!lifeline_thieves_.empty()) {
    scratch_.clear();
    const std::size_t n = pool_.take_half(config_.max_batch, scratch_);
    if (n == 0) break;
    ++metrics_.batches_given;
    ++metrics_.lifeline_pushes_given;
    metrics_.tasks_given += n;
    send(lifeline_thieves_.back(), kLifelinePush, std::move(scratch_), true);
    scratch_ = {};
    lifeline_thieves_.pop_back();
    any = true;
  }
  return any;
}

bool Progress::hunt() {
  if (cancelled_ || size_ == 1) {
    hunt_done_ = true;  // nobody to steal from, or nothing worth stealing for
    return true;
  }
  attempts_left_ = config_.random_steals;
  if (attempts_left_ == 0) send_lifeline_requests();
  else request_random_steal();
  return true;
}

void Progress::request_random_steal() {
  int victim = static_cast<int>(rng_.next_below(static_cast<std::size_t>(size_ - 1)));
  if (victim >= rank_) ++victim;  // uniform over the other ranks
  hunting_ = true;
  ++metrics_.steal_requests_sent;
  send(victim, kStealRequest, {}, true);
}

void Progress::send_lifeline_requests() {
  for (std::size_t i = 0; i < lifeline_buddies_.size(); ++i) {
    if (lifeline_registered_[i]) continue;  // still pending there from an earlier hunt
    lifeline_registered_[i] = true;
    ++metrics_.lifeline_requests_sent;
    send(lifeline_buddies_[i], kLifelineRequest, {}, true);
  }
  hunt_done_ = true;  // passive from here until work arrives
}

bool Progress::pass_token() {
  if (size_ == 1) {
    terminated_ = true;  // passive, and with one rank there are no messages
    return true;
  }
  if (rank_ == 0) {
    if (token_returned_ && token_.black == 0 && !black_ && token_.q + count_ == 0) {
      for (int r = 1; r < size_; ++r) send(r, kTerminate, {}, false);
      terminated_ = true;
      return true;
    }
    token_ = Token{0, 0};  // a new wave
    ++metrics_.token_waves;
  } else {
    token_.q += count_;
    token_.black |= black_ ? 1 : 0;
  }
  black_ = false;
  has_token_ = false;
  token_returned_ = false;
  std::vector<std::byte> bytes(sizeof token_);
  std::memcpy(bytes.data(), &token_, sizeof token_);
  send((rank_ + 1) % size_, kToken, std::move(bytes), false);
  return true;
}

void Progress::broadcast_cancel() {
  cancel_sent_ = true;
  cancelled_ = true;
  const std::string text = pool_.failure_text();
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    std::vector<std::byte> bytes(text.size());
    std::memcpy(bytes.data(), text.data(), text.size());
    send(r, kCancel, std::move(bytes), true);
  }
}

}  // namespace stealpool::mpi::detail

// src/mpi/rank_protocol.cpp: RankProtocol, one rank's decisions in the
// distributed protocol: steals between ranks, lifelines, Dijkstra-Safra
// termination by waves along a tree, cancellation (include/stealpool/mpi/README.md). No MPI here: the
// transports are src/mpi/progress.cpp and sim/ranks/.
#include "stealpool/mpi/detail/rank_protocol.hpp"

#include "stealpool/mpi/detail/frames.hpp"

#include <algorithm>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>

namespace stealpool::mpi::detail {

const char* tag_name(int tag) noexcept {
  switch (tag) {
    case kStealRequest: return "steal-request";
    case kStealReply: return "steal-reply";
    case kLifelineRequest: return "lifeline-request";
    case kLifelinePush: return "lifeline-push";
    case kCancel: return "cancel";
    case kWaveDown: return "wave-down";
    case kWaveUp: return "wave-up";
    case kTerminate: return "terminate";
    case kData: return "data";
    default: return "unknown";
  }
}

RankProtocol::RankProtocol(int rank, int size, const ProtocolConfig& config, LocalPool& pool, Transport& transport)
    : rank_(rank),
      size_(size),
      config_(config),
      pool_(pool),
      transport_(transport),
      rng_(derive_worker_seed(config.seed ^ 0x4D5049ull, static_cast<std::size_t>(rank))) {
  // The lifeline graph: a hypercube cut to `size` ranks. It stays connected (the
  // neighbour with rank's highest bit cleared is always below size) and every rank
  // has at most log2(size) lifelines (README.md, "Lifelines").
  for (int bit = 1; bit < size_; bit <<= 1)
    if ((rank_ ^ bit) < size_) lifeline_buddies_.push_back(rank_ ^ bit);
  lifeline_registered_.assign(lifeline_buddies_.size(), false);
  // The wave tree (README.md, "Termination"): rank 0 at the root, `arity`
  // children a rank, so a wave is 2 * ceil(log_arity(size)) hops deep.
  if (config_.wave_arity < 1)
    throw std::invalid_argument("RankProtocol: wave_arity must be >= 1 (got " + std::to_string(config_.wave_arity) + ")");
  const long long k = config_.wave_arity;
  if (rank_ > 0) parent_ = static_cast<int>((rank_ - 1) / k);
  for (long long c = k * rank_ + 1; c <= k * rank_ + k && c < size_; ++c) children_.push_back(static_cast<int>(c));
}

bool RankProtocol::passive() const noexcept {
  // Passive (Safra's sense): no task here, no reply awaited, lifelines out. Only a
  // received message makes such a rank active again (README.md, "Termination").
  return !hunting_ && hunt_done_ && pool_.dry();
}

bool RankProtocol::step() {
  bool busy = false;
  // [MPI-failed-before-dry] dry first, failed second: a worker sets its failure
  // before it settles the task's unit, so a rank seen dry here has its failure seen
  // below and broadcasts the cancel before it can report to a wave as passive.
  const bool dry = pool_.dry();
  // [MPI-data-before-passive] the frames emitted before the rank ran dry are all
  // queued once dry() is seen (the worker queued them before it settled the
  // task): sent before this step can report the rank passive to a wave, so the
  // wave's sum counts them until rank 0 has them.
  if (config_.mutant != SafraMutant::kDataAfterReport) flush_data();
  if (!cancel_sent_ && pool_.failed()) {
    broadcast_cancel();
    busy = true;
  }
  if (!dry && !cancelled_) busy |= serve_lifelines();
  if (dry && !hunting_ && !hunt_done_) {
    busy |= hunt();
  } else if (!dry && !asked_ahead_ && !hunting_ && !cancelled_ && size_ > 1 && pool_.running_low()) {
    // [MPI-refill-ahead] a rank about to run dry asks its lifelines now, so the
    // pushes are on their way while its last tasks run; once per refill (a push
    // received allows the next). Lifelines only: a random victim answering
    // empty would leave the rank as low as before, to ask again at once.
    ++metrics_.hunts_ahead;
    asked_ahead_ = true;
    ask_lifelines();
    busy = true;
  }
  const bool may_report = config_.mutant == SafraMutant::kPassTokenWhenBusy || (dry && passive());
  if (may_report) busy |= advance_wave();
  if (config_.mutant == SafraMutant::kDataAfterReport) flush_data();
  return busy;
}

// Emitted frames: rank 0's go to its own sink, the others' to rank 0 as
// counted messages of whole frames, about kDataMessageBytes each (a larger frame
// travels alone).
void RankProtocol::flush_data() {
  constexpr std::size_t kDataMessageBytes = std::size_t{1} << 20;
  if (!pool_.take_data(data_)) return;
  if (rank_ == 0) {
    pool_.deliver(0, data_);
    return;
  }
  for (std::size_t from = 0; from < data_.size();) {
    std::size_t to = from;
    while (to < data_.size() && (to == from || to - from < kDataMessageBytes)) to = frame_end(data_, to);
    send(0, kData, std::vector<std::byte>(data_.begin() + static_cast<std::ptrdiff_t>(from),
                                          data_.begin() + static_cast<std::ptrdiff_t>(to)));
    from = to;
  }
}

void RankProtocol::receive(int source, int tag, std::vector<std::byte>& bytes) {
  ++metrics_.messages_received;
  if (counted_tag(tag)) {
    --count_;  // Safra: a counted message received
    // [MPI-late-stamp] its sender's waves reported, at the send (send() put it
    // last): black only if the sender had reported to a wave we have not.
    std::uint64_t stamp = ~std::uint64_t{0};  // none (cannot happen): black
    if (bytes.size() >= sizeof stamp) {
      std::memcpy(&stamp, bytes.data() + bytes.size() - sizeof stamp, sizeof stamp);
      bytes.resize(bytes.size() - sizeof stamp);
    }
    if (stamp > waves_reported_) black_ = true;
  }
  switch (tag) {
    case kStealRequest:
      answer_steal(source);
      break;
    case kStealReply:
      on_steal_reply(bytes);
      break;
    case kLifelineRequest:
      if (std::find(lifeline_thieves_.begin(), lifeline_thieves_.end(), source) == lifeline_thieves_.end())
        lifeline_thieves_.push_back(source);
      break;
    case kLifelinePush: {
      const auto it = std::find(lifeline_buddies_.begin(), lifeline_buddies_.end(), source);
      if (it != lifeline_buddies_.end()) lifeline_registered_[static_cast<std::size_t>(it - lifeline_buddies_.begin())] = false;
      accept(bytes);
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
    case kWaveDown:
      open_wave();  // passed on at once: the subtree's reports then gather while we work
      break;
    case kWaveUp: {
      Report r{0, 0};
      std::memcpy(&r, bytes.data(), std::min(bytes.size(), sizeof r));
      subtree_.q += r.q;
      subtree_.black |= r.black;
      if (replies_due_ > 0) --replies_due_;
      break;
    }
    case kData:
      pool_.deliver(source, bytes);  // only rank 0 is sent data
      break;
    case kTerminate:
      terminated_ = true;
      for (int c : children_) send(c, kTerminate, {});
      break;
    default:
      break;  // not ours: the transport's channel is the protocol's own, so this cannot happen
  }
}

void RankProtocol::send(int dest, int tag, std::vector<std::byte> bytes) {
  const bool counted = counted_tag(tag);
  if (counted) {
    ++count_;  // Safra: a counted message sent
    const std::uint64_t stamp = waves_reported_;  // [MPI-late-stamp]
    const auto* p = reinterpret_cast<const std::byte*>(&stamp);
    bytes.insert(bytes.end(), p, p + sizeof stamp);
  }
  ++metrics_.messages_sent;
  transport_.send(dest, tag, std::move(bytes), counted);
}

// A batch message is the task count (8 bytes, native order) followed by the
// pool's bytes for those tasks, opaque here (README.md, "Task types and the batch
// format"); a reply with no task is empty. Builds one into scratch_ from
// take_half; returns the count.
std::size_t RankProtocol::take_batch() {
  scratch_.assign(sizeof(std::uint64_t), std::byte{0});
  const std::uint64_t n = pool_.take_half(config_.max_batch, scratch_);
  if (n == 0) {
    scratch_.clear();
    return 0;
  }
  std::memcpy(scratch_.data(), &n, sizeof n);
  return static_cast<std::size_t>(n);
}

// A batch arrived (a steal reply or a lifeline push): queue it, or drop it when
// the run is cancelled.
void RankProtocol::accept(const std::vector<std::byte>& bytes) {
  std::uint64_t count = 0;
  if (bytes.size() < sizeof count) return;  // an empty reply
  std::memcpy(&count, bytes.data(), sizeof count);
  const auto tasks = static_cast<std::size_t>(count);
  if (tasks == 0) return;
  ++metrics_.batches_stolen;
  metrics_.tasks_stolen += tasks;
  if (cancelled_) {
    metrics_.tasks_dropped += tasks;
    return;
  }
  pool_.give(std::span<const std::byte>(bytes).subspan(sizeof count), tasks);
  hunt_done_ = false;  // active again: the next time the rank runs dry it hunts anew
  asked_ahead_ = false;  // and the next time it runs low it asks ahead anew
}

void RankProtocol::answer_steal(int thief) {
  // Answered in the step that received the request, even when passive: in
  // Safra's model the receipt activated us and we sent while active.
  ++metrics_.steal_requests_answered;
  scratch_.clear();
  const std::size_t n = cancelled_ ? 0 : take_batch();
  if (n != 0) {
    ++metrics_.batches_given;
    metrics_.tasks_given += n;
  }
  send(thief, kStealReply, std::move(scratch_));  // empty when there is nothing to spare
  scratch_ = {};
}

void RankProtocol::on_steal_reply(const std::vector<std::byte>& bytes) {
  hunting_ = false;
  if (!bytes.empty()) {
    accept(bytes);
    return;
  }
  ++metrics_.empty_replies;
  if (!pool_.dry()) return;  // a lifeline push came meanwhile: stop hunting
  if (!cancelled_ && attempts_left_ > 1) {
    --attempts_left_;
    request_random_steal();
  } else {
    send_lifeline_requests();
  }
}

bool RankProtocol::serve_lifelines() {
  bool any = false;
  while (!lifeline_thieves_.empty()) {
    // No empty pushes: the thief stays registered until there is work for it.
    const std::size_t n = take_batch();
    if (n == 0) break;
    ++metrics_.batches_given;
    ++metrics_.lifeline_pushes_given;
    metrics_.tasks_given += n;
    send(lifeline_thieves_.back(), kLifelinePush, std::move(scratch_));
    scratch_ = {};
    lifeline_thieves_.pop_back();
    any = true;
  }
  return any;
}

bool RankProtocol::hunt() {
  if (cancelled_ || size_ == 1) {
    hunt_done_ = true;  // nobody to steal from, or nothing worth stealing for
    return true;
  }
  attempts_left_ = config_.random_steals;
  if (attempts_left_ == 0) send_lifeline_requests();
  else request_random_steal();
  return true;
}

void RankProtocol::request_random_steal() {
  int victim = static_cast<int>(rng_.next_below(static_cast<std::size_t>(size_ - 1)));
  if (victim >= rank_) ++victim;  // uniform over the other ranks
  hunting_ = true;
  ++metrics_.steal_requests_sent;
  send(victim, kStealRequest, {});
}

void RankProtocol::send_lifeline_requests() {
  ask_lifelines();
  hunt_done_ = true;  // passive from here until work arrives
}

// Registers on every lifeline where no request of ours is pending.
void RankProtocol::ask_lifelines() {
  for (std::size_t i = 0; i < lifeline_buddies_.size(); ++i) {
    if (lifeline_registered_[i]) continue;  // still pending there from an earlier hunt
    lifeline_registered_[i] = true;
    ++metrics_.lifeline_requests_sent;
    send(lifeline_buddies_[i], kLifelineRequest, {});
  }
}

// Called when the rank is passive. Rank 0 starts a wave, or decides one whose
// reports are all in; any other rank reports once its children have.
bool RankProtocol::advance_wave() {
  if (size_ == 1) {
    terminated_ = true;  // passive, and with one rank there are no messages
    return true;
  }
  if (rank_ == 0 && !in_wave_) {
    start_wave();
    return true;
  }
  if (!in_wave_ || replies_due_ > 0) return false;
  if (rank_ == 0) {
    const bool white = config_.mutant == SafraMutant::kIgnoreBlack || (subtree_.black == 0 && !black_);
    ++waves_reported_;  // rank 0's report is its decision
    if (white && subtree_.q + count_ == 0) {
      terminated_ = true;
      for (int c : children_) send(c, kTerminate, {});
      return true;
    }
    start_wave();
    return true;
  }
  const Report r{subtree_.q + count_, subtree_.black | (black_ ? 1 : 0)};
  black_ = false;  // white from this report on
  in_wave_ = false;
  ++waves_reported_;
  std::vector<std::byte> bytes(sizeof r);
  std::memcpy(bytes.data(), &r, sizeof r);
  send(parent_, kWaveUp, std::move(bytes));
  return true;
}

// Rank 0, passive: a new wave down the tree. Rank 0 whitens itself: its colour
// at the decision says what it received since this start.
void RankProtocol::start_wave() {
  ++metrics_.token_waves;
  black_ = false;
  open_wave();
}

// A wave reached this rank (rank 0: it started one): await the children's
// reports, and send it on to them.
void RankProtocol::open_wave() {
  in_wave_ = true;
  replies_due_ = children_.size();
  subtree_ = Report{0, 0};
  for (int c : children_) send(c, kWaveDown, {});
}

void RankProtocol::broadcast_cancel() {
  cancel_sent_ = true;
  cancelled_ = true;
  const std::string text = pool_.failure_text();
  for (int r = 0; r < size_; ++r) {
    if (r == rank_) continue;
    std::vector<std::byte> bytes(text.size());
    std::memcpy(bytes.data(), text.data(), text.size());
    send(r, kCancel, std::move(bytes));
  }
}

}  // namespace stealpool::mpi::detail

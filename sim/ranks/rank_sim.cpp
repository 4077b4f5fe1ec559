// sim/ranks/rank_sim.cpp: the rank simulator's event loop, its model of a
// rank's pool and network, and its checker (README.md in this folder).
#include "rank_sim.hpp"

#include "stealpool/mpi/detail/frames.hpp"
#include "stealpool/mpi/detail/take_by_weight.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <queue>
#include <span>
#include <stdexcept>
#include <type_traits>

#include "stealpool/mpi/detail/progress_sleep.hpp"
#include "stealpool/rng.hpp"

namespace stealpool::sim::ranks {

namespace {

using mpi::detail::RankProtocol;
using workloads::UtsNode;
using workloads::UtsTree;

static_assert(std::is_trivially_copyable_v<UtsNode>, "nodes travel as their bytes");

// What a message costs on the wire besides its payload: MPI's envelope and the
// transport's headers, roughly.
constexpr std::uint64_t kHeaderBytes = 64;
constexpr double kPicosecond = 1e-12;
// With sleeping_progress: what a round of the progress thread that did something
// costs before the next one probes (MPI_Iprobe, MPI_Test, the decisions).
constexpr std::int64_t kBusyRoundPs = 1'000'000;  // 1 us
// With sleeping_progress: from a worker ringing [MPI-dry-bell] (its rank just ran
// dry) to its napping progress thread running: a futex wake-up, roughly.
constexpr std::int64_t kBellPs = 5'000'000;  // 5 us
// A passive rank's progress thread spins (no nap) this long after a busy round.
constexpr std::int64_t kSpinPs = static_cast<std::int64_t>(mpi::detail::kProgressSpinUs) * 1'000'000;

std::string fmt(const char* format, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

// A node's identity for the exactly-once check: the first 8 bytes of its SHA-1
// state (distinct nodes collide with probability ~n^2 / 2^65).
std::uint64_t fingerprint(const UtsNode& n) {
  std::uint64_t f;
  std::memcpy(&f, n.state.data(), sizeof f);
  return f;
}

// One rank's pool: W workers and one queue. Workers pop the newest node (the
// Chase-Lev owner's LIFO); take_half gives the oldest, as the real rank's
// Executor::take_half takes the injector's tasks and deque tops. Running nodes
// are not spare, nor are those a real worker keeps private: of the queued
// nodes, a steal sees at least 16 a worker and a third of the rest
// ([MPI-private-tail]: a worker's deque holds at least 16 and half as many as
// its private tail; the queue here is the rank's, so the split is the rank's).
class SimPool final : public mpi::detail::LocalPool {
 public:
  // `weigh`: nullptr, or [MPI-take-by-weight]'s weights (outlives the pool).
  SimPool(int rank, int workers, std::size_t refill_ahead, std::int64_t& queued_total,
          const workloads::UtsExpectedNodes* weigh)
      : idle_(static_cast<std::size_t>(workers)), visible_floor_(16 * static_cast<std::size_t>(workers)),
        low_mark_(refill_ahead * static_cast<std::size_t>(workers)), queued_total_(queued_total), weigh_(weigh),
        rank_(rank) {
    for (int w = workers - 1; w >= 0; --w) idle_[static_cast<std::size_t>(workers - 1 - w)] = w;
  }
  bool dry() const noexcept override { return queue_.empty() && running_ == 0; }
  // [MPI-refill-ahead], as RankWorkers: at most refill_ahead queued a worker.
  bool running_low() const noexcept override { return low_mark_ > 0 && queue_.size() <= low_mark_; }
  // The simulator models the nap itself (RankSim::progress_round and the bell in
  // finish_node); the protocol never naps.
  void nap(std::chrono::microseconds) noexcept override {}
  std::size_t take_half(std::size_t max, std::vector<std::byte>& out) override {
    const std::size_t queued = queue_.size();
    const std::size_t visible = std::min(queued, std::max(visible_floor_, (queued + 2) / 3));
    std::size_t n = std::min(max, visible / 2);
    if (weigh_ != nullptr && n > 1) {
      // [MPI-take-by-weight]: the oldest tasks_to_send() of the n go; the rest
      // stay where they are, at the old end, as the real rank's go back to its
      // injector, which the next take reads first.
      weights_.clear();
      for (std::size_t i = 0; i < n; ++i) weights_.push_back((*weigh_)(queue_[i]));
      n = mpi::detail::tasks_to_send(weights_);
    }
    const std::size_t at = out.size();
    out.resize(at + n * sizeof(UtsNode));
    for (std::size_t i = 0; i < n; ++i) {
      std::memcpy(out.data() + at + i * sizeof(UtsNode), &queue_.front(), sizeof(UtsNode));
      queue_.pop_front();
    }
    queued_total_ -= static_cast<std::int64_t>(n);
    return n;
  }
  void give(std::span<const std::byte> batch, std::size_t n) override {
    for (std::size_t i = 0; i < n; ++i) {
      UtsNode node;
      std::memcpy(&node, batch.data() + i * sizeof(UtsNode), sizeof(UtsNode));
      push(node);
    }
  }
  void cancel() noexcept override { cancelled_ = true; }
  bool failed() const noexcept override { return failed_; }
  bool take_data(std::vector<std::byte>& out) override {
    out.clear();
    out.swap(data_);
    return !out.empty();
  }
  // Rank 0: each frame's 8 bytes, kept for the checker.
  void deliver(int /*source*/, std::span<const std::byte> frames) noexcept override {
    mpi::detail::for_each_frame(frames, [this](std::span<const std::byte> frame) {
      std::uint64_t v = 0;  // a frame of another size is kept as 0: the checker's count still sees it
      if (frame.size() == sizeof v) std::memcpy(&v, frame.data(), sizeof v);
      delivered_.push_back(v);
    });
  }
  // A frame for rank 0: the value's 8 bytes.
  void emit(std::uint64_t v) { mpi::detail::append_frame(data_, std::as_bytes(std::span<const std::uint64_t>(&v, 1))); }
  std::string failure_text() const override { return fmt("node %llu failed on rank %d", (unsigned long long)ran_, rank_); }

  // Every change to queue_ goes through give, take_half and these three, which
  // keep queued_total_ (the sum over the ranks) in step.
  void push(const UtsNode& node) {
    queue_.push_back(node);
    ++queued_total_;
  }
  UtsNode pop_newest() {
    const UtsNode node = queue_.back();
    queue_.pop_back();
    --queued_total_;
    return node;
  }
  std::size_t drop_queued() {
    const std::size_t n = queue_.size();
    queue_.clear();
    queued_total_ -= static_cast<std::int64_t>(n);
    return n;
  }

  std::deque<UtsNode> queue_;
  std::vector<int> idle_;  // idle worker ids, the next to start last
  std::size_t visible_floor_;  // 16 a worker: what a take sees of a short queue
  std::size_t low_mark_;       // refill_ahead a worker; 0: never low
  std::int64_t& queued_total_;  // RankSim's: the nodes queued on every rank (for queued_per_worker)
  const workloads::UtsExpectedNodes* weigh_;  // nullptr: a take sends half of the visible nodes
  std::vector<double> weights_;               // of a take's nodes
  int running_ = 0;
  std::uint64_t ran_ = 0;   // nodes run here
  bool cancelled_ = false;  // dropping nodes: a cancel came, or a node here failed
  bool failed_ = false;
  std::vector<std::byte> data_;           // frames emitted, not yet taken
  std::vector<std::uint64_t> delivered_;  // rank 0: the frames its sink received

 private:
  const int rank_;
};

struct Message {
  int source = 0;
  int dest = 0;
  int tag = 0;
  bool counted = false;
  std::vector<std::byte> bytes;
  std::int64_t arrived_ps = -1;  // sleeping_progress: when it reached a rank whose workers ran nodes; else -1
  std::int64_t arrived_dry_ps = -1;  // sleeping_progress: when a batch of tasks reached a dry rank; else -1
  bool arrived_in_spin = false;      // ... that was passive, within kProgressSpinUs of its last busy round
};

// An event: a worker finishes its node, a message arrives, or (sleeping_progress)
// a rank's progress thread wakes for a round. Ordered by time, then by the order
// they were scheduled in (so a seed gives one run).
struct Event {
  std::int64_t time_ps;
  std::uint64_t seq;
  int rank;
  int worker;          // >= 0: worker `worker` of `rank` finished; kArrival: message `message` arrives; kWake
  std::size_t message;  // kArrival: the message slot; kWake: the wake-up's number (a stale one is skipped)
  bool operator>(const Event& o) const noexcept { return time_ps != o.time_ps ? time_ps > o.time_ps : seq > o.seq; }
};

constexpr int kArrival = -1;
constexpr int kWake = -2;

class RankSim;

// The transport of one rank: hands the message to the simulated network.
class SimTransport final : public mpi::detail::Transport {
 public:
  SimTransport(RankSim& sim, int rank) : sim_(sim), rank_(rank) {}
  void send(int dest, int tag, std::vector<std::byte> bytes, bool counted) override;

 private:
  RankSim& sim_;
  int rank_;
};

struct SimRank {
  SimRank(RankSim& sim, int rank, int size, int workers, std::size_t refill_ahead, const mpi::detail::ProtocolConfig& pc,
          std::int64_t& queued_total, const workloads::UtsExpectedNodes* weigh)
      : pool(rank, workers, refill_ahead, queued_total, weigh), transport(sim, rank), protocol(rank, size, pc, pool, transport) {}
  SimPool pool;
  SimTransport transport;
  RankProtocol protocol;
  std::vector<UtsNode> running;  // [worker]: the node it runs
  std::int64_t first_node_ps = -1;    // when a worker of this rank started its first node; -1: none yet
  std::int64_t link_free_ps = 0;      // the outgoing link sends nothing before this
  std::int64_t last_arrival_ps = 0;   // messages of one sender arrive in order (MPI's non-overtaking)
  std::uint64_t passed_wave = 0;      // the wave this rank last reported to (rank 0: started)
  std::deque<std::size_t> inbox;      // sleeping_progress: arrived, not yet received (message slots)
  unsigned quiet_rounds = 0;          // sleeping_progress: rounds in a row that did nothing
  std::int64_t last_busy_ps = 0;      // sleeping_progress: when a round last did something
  std::size_t wake_number = 0;        // sleeping_progress: the pending wake-up's; others are stale
  std::int64_t wake_ps = 0;           // sleeping_progress: when the pending wake-up is due
  bool napping = false;               // sleeping_progress: the pending wake-up ends a nap (a bell can cut it short)
  bool spinning = false;              // sleeping_progress: no nap, the thread goes round until the wake-up
};

class RankSim {
 public:
  explicit RankSim(const RankSimConfig& c)
      : c_(c), rng_(derive_worker_seed(c.seed ^ 0x52414E4Bull, 0)),
        cost_ps_(std::max<std::int64_t>(1, std::llround(c.node_cost_s / kPicosecond))),
        probe_ps_(std::llround(c.worker_probe_s / kPicosecond)) {
    mpi::detail::ProtocolConfig pc = c.protocol;
    pc.seed = c.seed;
    ranks_.reserve(static_cast<std::size_t>(c.ranks));
    for (int r = 0; r < c.ranks; ++r) {
      ranks_.emplace_back(std::make_unique<SimRank>(*this, r, c.ranks, c.workers, c.refill_ahead, pc, queued_total_,
                                                    c.weigh_tasks ? &expected_nodes_ : nullptr));
      ranks_.back()->running.resize(static_cast<std::size_t>(c.workers));
    }
    fingerprints_.reserve(c.tree.nodes != 0 ? c.tree.nodes : 1u << 16);
  }

  RankSimResult run();
  void send(int source, int dest, int tag, std::vector<std::byte> bytes, bool counted);

 private:
  void schedule(std::int64_t at, int rank, int worker, std::size_t message) {
    events_.push(Event{at, seq_++, rank, worker, message});
  }
  void violation(std::string text) {
    if (result_.violations.size() < 20) result_.violations.push_back(std::move(text));
  }
  void arrive(std::size_t slot);
  void hand_over(std::size_t slot);
  void progress_round(int rank);
  void wake_at(int rank, std::int64_t at, bool nap, bool spin = false);
  void after_step(int rank) {
    if (rank == 0 && ranks_[0]->protocol.terminated() && !declared_) check_termination_declared();
  }
  // [MPI-worker-probe]: the first probe of `rank`'s workers at or after now.
  std::int64_t next_probe_ps(int rank) const {
    const std::int64_t phase = probe_ps_ > 0 ? (static_cast<std::int64_t>(rank) * 7919 * 1'000'000) % probe_ps_ : 0;
    if (now_ps_ <= phase) return phase;
    return phase + (now_ps_ - phase + probe_ps_ - 1) / probe_ps_ * probe_ps_;
  }
  void finish_node(int rank, int worker);
  void dispatch(int rank);
  void decide(int rank);
  void check_termination_declared();
  void check_end();

  const RankSimConfig& c_;
  const workloads::UtsExpectedNodes expected_nodes_{c_.tree};  // c.weigh_tasks: the ranks' weights
  XorShift64 rng_;  // jitter
  const std::int64_t cost_ps_;
  const std::int64_t probe_ps_;  // [MPI-worker-probe]: the interval; 0: the workers do not probe
  std::vector<std::unique_ptr<SimRank>> ranks_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  std::int64_t now_ps_ = 0;
  std::vector<Message> messages_;  // slots; free ones listed in free_
  std::vector<std::size_t> free_;
  std::uint64_t counted_in_flight_ = 0;
  std::uint64_t wave_ = 0;        // waves started by rank 0
  bool token_out_ = false;        // a wave is under way: started by rank 0, not every report back
  std::size_t root_reports_ = 0;  // reports of rank 0's children to the wave under way
  bool declared_ = false;
  std::vector<std::uint64_t> fingerprints_;
  std::vector<std::uint32_t> finished_by_bin_;  // [t / node cost]: nodes that finished then, for busy_by_tenth
  std::int64_t queued_total_ = 0;          // nodes queued on every rank (not running, not in flight)
  double queued_area_ = 0;                 // queued_total_ integrated over time (node-picoseconds)
  std::vector<UtsNode> children_;
  RankSimResult result_;
};

void SimTransport::send(int dest, int tag, std::vector<std::byte> bytes, bool counted) {
  sim_.send(rank_, dest, tag, std::move(bytes), counted);
}

void RankSim::send(int source, int dest, int tag, std::vector<std::byte> bytes, bool counted) {
  SimRank& s = *ranks_[static_cast<std::size_t>(source)];
  if (dest < 0 || dest >= c_.ranks || dest == source)
    violation(fmt("VIOLATION: rank %d sent %s to rank %d", source, mpi::detail::tag_name(tag), dest));
  const std::uint64_t size = kHeaderBytes + bytes.size();
  result_.bytes += size;
  // The link: one message at a time, bytes / bandwidth each; then the latency.
  const std::int64_t wire = std::llround(static_cast<double>(size) / c_.bandwidth_Bps / kPicosecond);
  const std::int64_t depart = std::max(now_ps_, s.link_free_ps);
  s.link_free_ps = depart + wire;
  double latency = c_.latency_s;
  if (c_.jitter > 0) latency += c_.latency_s * c_.jitter * static_cast<double>(rng_.next_u64() >> 11) * 0x1.0p-53;
  const std::int64_t arrive = std::max<std::int64_t>(s.link_free_ps + std::llround(latency / kPicosecond), s.last_arrival_ps);
  s.last_arrival_ps = arrive;
  if (tag == mpi::detail::kWaveDown && source == 0 && !token_out_) {  // the first of rank 0's
    ++wave_;
    token_out_ = true;
    root_reports_ = 0;
  }
  if (tag == mpi::detail::kWaveUp || (tag == mpi::detail::kWaveDown && source == 0)) s.passed_wave = wave_;
  if (counted) ++counted_in_flight_;
  std::size_t slot;
  if (free_.empty()) {
    slot = messages_.size();
    messages_.emplace_back();
  } else {
    slot = free_.back();
    free_.pop_back();
  }
  messages_[slot] = Message{source, dest, tag, counted, std::move(bytes)};
  schedule(arrive, dest, kArrival, slot);
}

// A message reaches its rank: received at once, or (sleeping_progress) left in
// the inbox for the progress thread's next round.
void RankSim::arrive(std::size_t slot) {
  const Message& m = messages_[slot];
  SimRank& d = *ranks_[static_cast<std::size_t>(m.dest)];
  if (d.protocol.terminated()) {
    // The real loop has stopped receiving: this message would be left unreceived
    // at MPI_Finalize.
    violation(fmt("VIOLATION: %s from rank %d reached rank %d after it terminated (left unreceived at MPI_Finalize)",
                  mpi::detail::tag_name(m.tag), m.source, m.dest));
    free_.push_back(slot);
    return;
  }
  if (c_.sleeping_progress) {
    d.inbox.push_back(slot);
    if ((m.tag == mpi::detail::kStealReply || m.tag == mpi::detail::kLifelinePush) && d.pool.dry()) {
      messages_[slot].arrived_dry_ps = now_ps_;
      messages_[slot].arrived_in_spin = d.protocol.passive() && now_ps_ - d.last_busy_ps < kSpinPs;
    }
    // A spinning progress thread takes the message at its next round.
    if (d.spinning && d.wake_ps > now_ps_ + kBusyRoundPs) wake_at(m.dest, now_ps_ + kBusyRoundPs, false);
    if (d.pool.running_ > 0) {
      messages_[slot].arrived_ps = now_ps_;
      // [MPI-worker-probe]: a worker's next probe finds it and rings the bell.
      const std::int64_t rung = next_probe_ps(m.dest) + kBellPs;
      if (probe_ps_ > 0 && d.napping && d.wake_ps > rung) wake_at(m.dest, rung, false);
    }
    return;
  }
  const int dest = m.dest;
  hand_over(slot);
  dispatch(dest);
  decide(dest);
}

// The protocol receives the message: from here it is no longer in flight.
void RankSim::hand_over(std::size_t slot) {
  Message m = std::move(messages_[slot]);
  free_.push_back(slot);
  SimRank& d = *ranks_[static_cast<std::size_t>(m.dest)];
  ++result_.messages;
  if (m.counted) --counted_in_flight_;
  if (c_.trace)
    std::printf("  t=%.9f %d -> %d %s (%zu bytes)\n", static_cast<double>(now_ps_) * kPicosecond, m.source, m.dest,
                mpi::detail::tag_name(m.tag), m.bytes.size());
  if (m.counted && token_out_ && d.passed_wave == wave_) ++result_.crossings[m.tag];  // 1 ... kTagCount - 1
  if (m.tag == mpi::detail::kStealRequest && m.arrived_ps >= 0)
    result_.max_busy_request_wait_s =
        std::max(result_.max_busy_request_wait_s, static_cast<double>(now_ps_ - m.arrived_ps) * kPicosecond);
  if (m.arrived_dry_ps >= 0) {
    const double waited_s = static_cast<double>(now_ps_ - m.arrived_dry_ps) * kPicosecond;
    result_.max_dry_refill_wait_s = std::max(result_.max_dry_refill_wait_s, waited_s);
    if (m.arrived_in_spin) {
      ++result_.spin_refills;
      result_.max_spin_refill_wait_s = std::max(result_.max_spin_refill_wait_s, waited_s);
    }
  }
  if (m.tag == mpi::detail::kWaveUp && m.dest == 0 &&
      ++root_reports_ == std::min<std::size_t>(static_cast<std::size_t>(c_.protocol.wave_arity),
                                               static_cast<std::size_t>(c_.ranks - 1)))
    token_out_ = false;
  d.protocol.receive(m.source, m.tag, m.bytes);
}

// sleeping_progress: one round of Progress::run() on `rank`, then its next wake-up.
void RankSim::progress_round(int rank) {
  SimRank& r = *ranks_[static_cast<std::size_t>(rank)];
  bool busy = false;
  for (int i = 0; i < mpi::detail::kProgressMessagesPerRound && !r.inbox.empty() && !r.protocol.terminated(); ++i) {
    const std::size_t slot = r.inbox.front();
    r.inbox.pop_front();
    busy |= mpi::detail::alerting_tag(messages_[slot].tag);
    hand_over(slot);
  }
  dispatch(rank);
  if (r.protocol.terminated()) return;  // the loop ends; what is left in the inbox is reported at the end
  busy |= r.protocol.step();
  after_step(rank);
  if (r.protocol.terminated()) return;
  std::int64_t next = now_ps_ + kBusyRoundPs;
  if (busy) {
    r.quiet_rounds = 0;
    r.last_busy_ps = now_ps_;
  } else {
    const auto since_busy_us = static_cast<std::uint64_t>((now_ps_ - r.last_busy_ps) / 1'000'000);
    const bool probed = probe_ps_ > 0 && !r.protocol.holds_lifeline_thieves() && !r.pool.dry();
    const unsigned nap_us = mpi::detail::progress_sleep_us(r.protocol.passive(), r.protocol.hunting(), r.quiet_rounds,
                                                           since_busy_us, probed);
    ++r.quiet_rounds;
    if (nap_us == 0) {
      // Spinning: the real thread goes round every microsecond or so; here it
      // runs a round when a message arrives (arrive()) and when the spin ends.
      wake_at(rank, std::max(r.last_busy_ps + kSpinPs, now_ps_ + kBusyRoundPs), false, true);
      return;
    }
    next = now_ps_ + static_cast<std::int64_t>(nap_us) * 1'000'000;
  }
  wake_at(rank, next, !busy);
}

// sleeping_progress: the progress thread of `rank` runs its next round at `at`
// (a nap if `nap`), instead of at the wake-up pending so far.
void RankSim::wake_at(int rank, std::int64_t at, bool nap, bool spin) {
  SimRank& r = *ranks_[static_cast<std::size_t>(rank)];
  r.wake_ps = at;
  r.napping = nap;
  r.spinning = spin;
  schedule(at, rank, kWake, ++r.wake_number);
}

void RankSim::finish_node(int rank, int worker) {
  SimRank& r = *ranks_[static_cast<std::size_t>(rank)];
  const UtsNode node = r.running[static_cast<std::size_t>(worker)];
  --r.pool.running_;
  r.pool.idle_.push_back(worker);
  ++r.pool.ran_;
  ++result_.nodes;
  result_.last_node_s = static_cast<double>(now_ps_) * kPicosecond;
  const auto bin = static_cast<std::size_t>(now_ps_ / cost_ps_);
  if (bin >= finished_by_bin_.size()) finished_by_bin_.resize(bin + 1 + bin / 2, 0);
  ++finished_by_bin_[bin];
  fingerprints_.push_back(fingerprint(node));
  result_.depth = std::max(result_.depth, node.height);
  if (rank == c_.fail_rank && r.pool.ran_ == c_.fail_after) {
    r.pool.failed_ = true;  // the node "threw": its children are never made
    r.pool.cancelled_ = true;
  } else if (workloads::uts_children(c_.tree, node, children_) == 0) {
    ++result_.leaves;
    if (c_.emit_leaves) r.pool.emit(fingerprint(node));
  } else {
    for (const UtsNode& child : children_) r.pool.push(child);
  }
  dispatch(rank);
  if (!c_.sleeping_progress) {
    decide(rank);
  } else if (r.pool.dry() && r.napping && r.wake_ps > now_ps_ + kBellPs) {
    wake_at(rank, now_ps_ + kBellPs, false);  // [MPI-dry-bell]: the last worker to go idle rings
  }
}

// Idle workers take the newest queued nodes; after a cancel they drop them.
void RankSim::dispatch(int rank) {
  SimRank& r = *ranks_[static_cast<std::size_t>(rank)];
  SimPool& p = r.pool;
  if (p.cancelled_) {
    result_.dropped += p.drop_queued();
    return;
  }
  while (!p.idle_.empty() && !p.queue_.empty()) {
    const int w = p.idle_.back();
    p.idle_.pop_back();
    r.running[static_cast<std::size_t>(w)] = p.pop_newest();
    ++p.running_;
    if (r.first_node_ps < 0) r.first_node_ps = now_ps_;
    schedule(now_ps_ + cost_ps_, rank, w, 0);
  }
}

// The progress thread's round: step until it has nothing more to do, as the real
// loop goes round again at once after a busy round.
void RankSim::decide(int rank) {
  SimRank& r = *ranks_[static_cast<std::size_t>(rank)];
  for (int round = 0; round < 16 && !r.protocol.terminated(); ++round)
    if (!r.protocol.step()) break;
  after_step(rank);
}

// Rank 0 has just declared termination (its notices are in flight, uncounted).
void RankSim::check_termination_declared() {
  declared_ = true;
  const double t = static_cast<double>(now_ps_) * kPicosecond;
  for (const auto& r : ranks_) {
    if (!r->pool.dry())
      violation(fmt("VIOLATION: termination declared at t=%.9f s while rank %d holds work (%zu queued, %d running)", t,
                    r->protocol.rank(), r->pool.queue_.size(), r->pool.running_));
    else if (!r->protocol.passive())
      violation(fmt("VIOLATION: termination declared at t=%.9f s while rank %d is not passive", t, r->protocol.rank()));
  }
  if (counted_in_flight_ != 0)
    violation(fmt("VIOLATION: termination declared at t=%.9f s with %llu counted messages in flight", t,
                  static_cast<unsigned long long>(counted_in_flight_)));
}

void RankSim::check_end() {
  for (const auto& r : ranks_)
    if (!r->inbox.empty())
      violation(fmt("VIOLATION: rank %d terminated with %zu messages not received (left at MPI_Finalize)",
                    r->protocol.rank(), r->inbox.size()));
  for (const auto& r : ranks_)
    if (!r->protocol.terminated())
      violation(fmt("VIOLATION: no event left but rank %d has not terminated (%s)", r->protocol.rank(),
                    r->pool.dry() ? "dry: the protocol is stuck" : "it still holds work"));
  std::sort(fingerprints_.begin(), fingerprints_.end());
  const auto dup = std::adjacent_find(fingerprints_.begin(), fingerprints_.end());
  if (dup != fingerprints_.end()) violation(fmt("VIOLATION: exactly-once: node %016llx ran twice", (unsigned long long)*dup));
  // A failure is configured but may not happen (the rank never ran that many
  // nodes): then the run must be complete, like any other.
  const bool failing = c_.fail_rank >= 0 && ranks_[static_cast<std::size_t>(c_.fail_rank)]->pool.failed_;
  if (!failing && c_.tree.nodes != 0 &&
      (result_.nodes != c_.tree.nodes || result_.leaves != c_.tree.leaves || result_.depth != c_.tree.depth))
    violation(fmt("VIOLATION: counts: nodes=%llu leaves=%llu depth=%d, the UTS reference has %llu %llu %d",
                  (unsigned long long)result_.nodes, (unsigned long long)result_.leaves, result_.depth,
                  (unsigned long long)c_.tree.nodes, (unsigned long long)c_.tree.leaves, c_.tree.depth));
  if (c_.emit_leaves) {
    std::vector<std::uint64_t> got = ranks_.front()->pool.delivered_;
    result_.data_frames = got.size();
    std::sort(got.begin(), got.end());
    if (std::adjacent_find(got.begin(), got.end()) != got.end())
      violation("VIOLATION: data: a frame reached rank 0 twice");
    if (!failing && got.size() != result_.leaves)
      violation(fmt("VIOLATION: data: rank 0's sink has %zu frames, %llu leaves emitted one each", got.size(),
                    (unsigned long long)result_.leaves));
  }
  if (failing) {
    for (const auto& r : ranks_) {
      const bool knows = r->protocol.rank() == c_.fail_rank ? r->pool.failed_ : r->protocol.failed_rank() == c_.fail_rank;
      if (!knows) violation(fmt("VIOLATION: cancel: rank %d never learned that rank %d failed", r->protocol.rank(), c_.fail_rank));
    }
  }
}

RankSimResult RankSim::run() {
  SimRank& start = *ranks_[static_cast<std::size_t>(c_.start_rank)];
  start.pool.push(workloads::uts_root(c_.tree));
  for (int r = 0; r < c_.ranks; ++r) {
    dispatch(r);
    if (c_.sleeping_progress) wake_at(r, 0, false);
    else decide(r);
  }
  while (!events_.empty()) {
    if (++result_.events > c_.max_events) {
      violation(fmt("VIOLATION: liveness: no termination after %llu events (t=%.9f s)",
                    (unsigned long long)c_.max_events, static_cast<double>(now_ps_) * kPicosecond));
      return std::move(result_);
    }
    const Event e = events_.top();
    events_.pop();
    // A wake-up that a later one replaced (a nap cut short) is skipped before
    // the clock moves: otherwise the last such left after termination would
    // set time_s.
    if (e.worker == kWake && e.message != ranks_[static_cast<std::size_t>(e.rank)]->wake_number) continue;
    queued_area_ += static_cast<double>(queued_total_) * static_cast<double>(e.time_ps - now_ps_);
    now_ps_ = e.time_ps;
    if (e.worker >= 0) finish_node(e.rank, e.worker);
    else if (e.worker == kWake) progress_round(e.rank);
    else arrive(e.message);
  }
  check_end();
  result_.time_s = static_cast<double>(now_ps_) * kPicosecond;
  result_.serial_s = static_cast<double>(result_.nodes) * static_cast<double>(cost_ps_) * kPicosecond;
  const double cores = static_cast<double>(c_.ranks) * static_cast<double>(c_.workers);
  result_.efficiency = result_.time_s > 0 ? result_.serial_s / (cores * result_.time_s) : 0;
  double first_nodes_s = 0;
  for (const auto& r : ranks_) {
    const double first_s = static_cast<double>(std::max<std::int64_t>(r->first_node_ps, 0)) * kPicosecond;
    result_.spread_s = std::max(result_.spread_s, first_s);
    first_nodes_s += first_s;
    result_.per_rank.push_back(r->protocol.metrics());
    result_.per_rank.back().tasks_run = r->pool.ran_;
    result_.token_waves += r->protocol.metrics().token_waves;
    result_.dropped += r->protocol.metrics().tasks_dropped;  // batches that arrived after the cancel
  }
  if (result_.time_s > 0) result_.startup_share = first_nodes_s / (static_cast<double>(c_.ranks) * result_.time_s);
  if (now_ps_ > 0) {
    result_.queued_per_worker = queued_area_ / (cores * static_cast<double>(now_ps_));
    for (std::size_t bin = 0; bin < finished_by_bin_.size(); ++bin) {
      const std::int64_t at = static_cast<std::int64_t>(bin) * cost_ps_;  // counted where its bin starts
      result_.busy_by_tenth[std::min<std::int64_t>(9, at * 10 / now_ps_)] +=
          static_cast<double>(finished_by_bin_[bin]) * static_cast<double>(cost_ps_);
    }
    for (double& b : result_.busy_by_tenth) b /= cores * static_cast<double>(now_ps_) / 10;
  }
  return std::move(result_);
}

}  // namespace

void refuse_setting(const char* who, const char* field, const std::string& value, const char* want) {
  std::string m = who;
  m.append(": ").append(field).append(" must be ").append(want).append(", got ").append(value);
  throw std::invalid_argument(m);
}

void validate_shared_settings(const char* who, int ranks, int workers, double latency_s, double node_cost_s) {
  if (ranks < 1 || ranks > (1 << 20)) refuse_setting(who, "ranks", std::to_string(ranks), "1..1048576");
  if (workers < 1 || workers > 4096) refuse_setting(who, "workers", std::to_string(workers), "1..4096");
  if (!(latency_s >= 0) || !std::isfinite(latency_s)) refuse_setting(who, "latency", std::to_string(latency_s), ">= 0 s");
  if (!(node_cost_s > 0) || !std::isfinite(node_cost_s))
    refuse_setting(who, "node cost", std::to_string(node_cost_s), "> 0 s");
}

void RankSimConfig::validate() const {
  auto bad = [](const char* field, const std::string& value, const char* want) {
    refuse_setting("rank simulator", field, value, want);
  };
  validate_shared_settings("rank simulator", ranks, workers, latency_s, node_cost_s);
  if (!(bandwidth_Bps > 0) || !std::isfinite(bandwidth_Bps)) bad("bandwidth", std::to_string(bandwidth_Bps), "> 0 bytes/s");
  if (!(jitter >= 0) || !std::isfinite(jitter)) bad("jitter", std::to_string(jitter), ">= 0");
  if (!(worker_probe_s >= 0) || !(worker_probe_s <= 1)) bad("worker probe interval", std::to_string(worker_probe_s), "0..1 s");
  if (start_rank < 0 || start_rank >= ranks) bad("start rank", std::to_string(start_rank), "0..ranks-1");
  if (fail_rank >= ranks) bad("fail rank", std::to_string(fail_rank), "below ranks");
  if (fail_rank >= 0 && fail_after == 0) bad("fail after", "0", ">= 1 (1-based node count)");
  if (protocol.max_batch == 0) bad("max batch", "0", ">= 1");
}

std::uint64_t RankSimResult::total_crossings() const noexcept {
  std::uint64_t n = 0;
  for (std::uint64_t c : crossings) n += c;
  return n;
}

double calibrated_node_cost_s(const UtsTree& tree) {
  // Serial walks on the project machine, quiet (docs/distributed.md, 2026-11-26);
  // the large trees (T1L, T3L) are assumed to cost what T1 and T3 cost per node.
  if (tree.type == workloads::UtsType::kBinomial) return 0.390 / 4'112'897.0;
  return 0.618 / 4'130'071.0;
}

UtsTree tree_by_name(const std::string& name) {
  for (const UtsTree* t : {&workloads::kUtsT1, &workloads::kUtsT2, &workloads::kUtsT3,
                           &workloads::kUtsT5, &kUtsT1L, &kUtsT3L, &kSmallGeometric, &kSmallBinomial})
    if (name == t->name) return *t;
  std::string m = "unknown tree '";
  m.append(name).append("' (T1, T2, T3, T5, T1L, T3L, small-geo, small-bin)");
  throw std::invalid_argument(m);
}

UtsTree with_reference_counts(UtsTree tree) {
  if (tree.nodes != 0) return tree;
  const workloads::UtsStats s = workloads::uts_serial(tree);
  tree.nodes = s.nodes;
  tree.leaves = s.leaves;
  tree.depth = s.depth;
  return tree;
}

RankSimResult run_rank_sim(const RankSimConfig& config) {
  config.validate();
  RankSimConfig c = config;
  c.tree = with_reference_counts(c.tree);
  if (c.max_events == 0) c.max_events = std::max<std::uint64_t>(200'000'000, 4 * c.tree.nodes);
  RankSim sim(c);
  return sim.run();
}

}  // namespace stealpool::sim::ranks

// sim/ranks/ideal_sim.cpp: the ideal scheduler (ideal_sim.hpp; README.md in
// this folder, "The ideal scheduler").
//
// An event is a worker finishing its node, or the instant the nodes a rank made
// one latency ago may run elsewhere ("ripe"). Each rank keeps its nodes in
// order of making: its workers pop the newest; other ranks take the oldest,
// which is the oldest of the rank and, in a depth-first walk, the shallowest.
// A heap orders the ranks by their oldest node, so the oldest node anywhere is
// its top, and it is ripe for every other rank or for none. Idle workers wait
// in a list in the order they went idle.
#include "ideal_sim.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <queue>
#include <string>
#include <utility>

#include "rank_sim.hpp"

namespace stealpool::sim::ranks {

namespace {

using workloads::UtsNode;
using workloads::UtsTree;

constexpr double kPicosecond = 1e-12;

struct Made {
  UtsNode node;
  std::int64_t made_ps;
};

struct Event {
  std::int64_t time_ps;
  std::uint64_t seq;
  int worker;  // the worker that finishes its node; -1: nodes ripen
  bool operator>(const Event& o) const noexcept { return time_ps != o.time_ps ? time_ps > o.time_ps : seq > o.seq; }
};

class IdealSim {
 public:
  explicit IdealSim(const IdealSimConfig& c)
      : c_(c),
        workers_(c.ranks * c.workers),
        cost_ps_(std::max<std::int64_t>(1, std::llround(c.node_cost_s / kPicosecond))),
        latency_ps_(std::llround(c.latency_s / kPicosecond)),
        made_(static_cast<std::size_t>(c.ranks)),
        heap_key_(static_cast<std::size_t>(c.ranks), -1),
        idle_in_rank_(static_cast<std::size_t>(c.ranks), 0),
        running_(static_cast<std::size_t>(workers_)),
        prev_(static_cast<std::size_t>(workers_), -1),
        next_(static_cast<std::size_t>(workers_), -1),
        idle_(static_cast<std::size_t>(workers_), false) {}

  IdealSimResult run() {
    for (int w = 0; w < workers_; ++w) go_idle(w);
    start(take_idle(0), workloads::uts_root(c_.tree), 0);
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      now_ps_ = e.time_ps;
      if (e.worker < 0) ripen();
      else finish(e.worker);
    }
    result_.time_s = static_cast<double>(last_finish_ps_) * kPicosecond;  // a ripening after it is no work
    result_.serial_s = static_cast<double>(result_.nodes) * static_cast<double>(cost_ps_) * kPicosecond;
    result_.efficiency = result_.serial_s / (static_cast<double>(workers_) * result_.time_s);
    const UtsTree& t = c_.tree;
    if (result_.nodes != t.nodes || result_.leaves != t.leaves || result_.depth != t.depth) {
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "VIOLATION: counts: nodes=%llu leaves=%llu depth=%d, the UTS reference has %llu %llu %d",
                    (unsigned long long)result_.nodes, (unsigned long long)result_.leaves, result_.depth,
                    (unsigned long long)t.nodes, (unsigned long long)t.leaves, t.depth);
      result_.violations.emplace_back(buf);
    }
    return std::move(result_);
  }

 private:
  int rank_of(int worker) const { return worker / c_.workers; }

  void start(int worker, const UtsNode& node, int from_rank) {
    if (from_rank != rank_of(worker)) ++result_.moves;
    running_[static_cast<std::size_t>(worker)] = node;
    events_.push(Event{now_ps_ + cost_ps_, seq_++, worker});
  }

  // The worker's node is done: its children join the rank's nodes (its idle
  // workers take them at once), then the worker takes its next node.
  void finish(int worker) {
    const int rank = rank_of(worker);
    const UtsNode node = running_[static_cast<std::size_t>(worker)];
    ++result_.nodes;
    last_finish_ps_ = now_ps_;
    result_.depth = std::max(result_.depth, node.height);
    if (workloads::uts_children(c_.tree, node, children_) == 0) ++result_.leaves;
    std::deque<Made>& mine = made_[static_cast<std::size_t>(rank)];
    for (const UtsNode& child : children_) mine.push_back(Made{child, now_ps_});
    if (!children_.empty() && latency_ps_ > 0 && c_.ranks > 1 && last_ripe_ps_ != now_ps_ + latency_ps_) {
      last_ripe_ps_ = now_ps_ + latency_ps_;
      events_.push(Event{last_ripe_ps_, seq_++, -1});
    }
    if (!take_local(worker) && !take_ripe(worker)) go_idle(worker);
    const int end = (rank + 1) * c_.workers;
    for (int w = rank * c_.workers; w < end && idle_in_rank_[static_cast<std::size_t>(rank)] > 0 && !mine.empty(); ++w)
      if (idle_[static_cast<std::size_t>(w)]) take_local(take_idle(w));
    refresh_heap(rank);
    if (latency_ps_ == 0) ripen();
  }

  // The nodes made one latency ago may run anywhere now: idle workers, longest
  // idle first, take the oldest ripe nodes.
  void ripen() {
    while (idle_head_ >= 0) {
      const int worker = idle_head_;
      if (!ripe_top(rank_of(worker))) return;
      take_ripe(take_idle(worker));
    }
  }

  bool take_local(int worker) {
    const int rank = rank_of(worker);
    std::deque<Made>& mine = made_[static_cast<std::size_t>(rank)];
    if (mine.empty()) return false;
    const UtsNode node = mine.back().node;
    mine.pop_back();
    start(worker, node, rank);
    return true;
  }

  // The oldest node anywhere, if it may run on `rank` now.
  bool ripe_top(int rank) {
    while (!heap_.empty()) {
      const auto [key, r] = heap_.top();
      const std::deque<Made>& theirs = made_[static_cast<std::size_t>(r)];
      if (theirs.empty() || heap_key_[static_cast<std::size_t>(r)] != key || theirs.front().made_ps != key) {
        heap_.pop();  // stale: that rank's oldest node has gone since
        continue;
      }
      return r == rank || key + latency_ps_ <= now_ps_;
    }
    return false;
  }

  bool take_ripe(int worker) {
    if (!ripe_top(rank_of(worker))) return false;
    const int from = heap_.top().second;
    heap_.pop();
    heap_key_[static_cast<std::size_t>(from)] = -1;
    std::deque<Made>& theirs = made_[static_cast<std::size_t>(from)];
    const UtsNode node = theirs.front().node;
    if (from != rank_of(worker) && theirs.front().made_ps + latency_ps_ > now_ps_ && result_.violations.empty())
      result_.violations.emplace_back("VIOLATION: a node ran on another rank sooner than a latency after it was made");
    theirs.pop_front();
    refresh_heap(from);
    start(worker, node, from);
    return true;
  }

  // Keeps one heap entry per rank with nodes, keyed by its oldest node's making.
  void refresh_heap(int rank) {
    const std::deque<Made>& mine = made_[static_cast<std::size_t>(rank)];
    std::int64_t& key = heap_key_[static_cast<std::size_t>(rank)];
    if (mine.empty()) {
      key = -1;
    } else if (mine.front().made_ps != key) {
      key = mine.front().made_ps;
      heap_.emplace(key, rank);
    }
  }

  void go_idle(int worker) {
    const auto w = static_cast<std::size_t>(worker);
    idle_[w] = true;
    ++idle_in_rank_[static_cast<std::size_t>(rank_of(worker))];
    prev_[w] = idle_tail_;
    next_[w] = -1;
    if (idle_tail_ >= 0) next_[static_cast<std::size_t>(idle_tail_)] = worker;
    else idle_head_ = worker;
    idle_tail_ = worker;
  }

  int take_idle(int worker) {
    const auto w = static_cast<std::size_t>(worker);
    idle_[w] = false;
    --idle_in_rank_[static_cast<std::size_t>(rank_of(worker))];
    if (prev_[w] >= 0) next_[static_cast<std::size_t>(prev_[w])] = next_[w];
    else idle_head_ = next_[w];
    if (next_[w] >= 0) prev_[static_cast<std::size_t>(next_[w])] = prev_[w];
    else idle_tail_ = prev_[w];
    return worker;
  }

  const IdealSimConfig& c_;
  const int workers_;
  const std::int64_t cost_ps_;
  const std::int64_t latency_ps_;
  std::vector<std::deque<Made>> made_;  // per rank, oldest first
  // (oldest node's making, rank), earliest first; entries whose key is no
  // longer heap_key_[rank] are stale and dropped when they surface.
  std::priority_queue<std::pair<std::int64_t, int>, std::vector<std::pair<std::int64_t, int>>, std::greater<>> heap_;
  std::vector<std::int64_t> heap_key_;  // -1: the rank has no entry
  std::vector<int> idle_in_rank_;
  std::vector<UtsNode> running_;
  // The idle workers, a list in the order they went idle.
  std::vector<int> prev_, next_;
  std::vector<bool> idle_;
  int idle_head_ = -1, idle_tail_ = -1;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::vector<UtsNode> children_;
  std::int64_t now_ps_ = 0;
  std::int64_t last_finish_ps_ = 0;
  std::int64_t last_ripe_ps_ = -1;
  std::uint64_t seq_ = 0;
  IdealSimResult result_;
};

}  // namespace

void IdealSimConfig::validate() const {
  validate_shared_settings("ideal scheduler", ranks, workers, latency_s, node_cost_s);
  const long long all = static_cast<long long>(ranks) * workers;
  if (all > (1 << 24)) refuse_setting("ideal scheduler", "ranks x workers", std::to_string(all), "at most 16777216");
}

IdealSimResult run_ideal_sim(const IdealSimConfig& config) {
  config.validate();
  IdealSimConfig c = config;
  c.tree = with_reference_counts(c.tree);
  IdealSim sim(c);
  return sim.run();
}

}  // namespace stealpool::sim::ranks

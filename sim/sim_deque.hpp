// sim/sim_deque.hpp: a worker's deque in the simulator, in one of two shapes:
//
//   chase_lev  the typed executor's ChaseLevDeque: every item is public; the
//              owner pops the back (LIFO), thieves take the front (FIFO).
//   split      the fork-join pool's SplitDeque (queue/split_deque.hpp and
//              queue/README.md, "Split deque"): the newest items are private to
//              the owner; a thief that finds nothing public raises `request`,
//              and the owner publishes the older half of its private items at
//              its next push or pop. A push into an empty deque publishes at
//              once. The owner takes back public items only when nothing
//              private is left (the reclaim of pop_public).
//
//      front (top)                                         back (head)
//      [ public ... public | private ... private ]
//                          ^ split = front + public_
//
// Each operation is one atomic step of the simulator, so the races the real
// deque resolves with its fences and CASes (a reclaim against a steal, the last
// item) are decided by the scheduler's order of steps; the Relacy models in
// tests/model/ check those races under weak memory. Capacity is enforced for the
// split shape (push reports `full`, as SplitDeque's fixed buffer does).
//
// Each operation also reports the shared-line writes the real deque makes for
// it (shared_lines.hpp): which branch of the real push, pop or steal it takes
// is decided by the same sizes the simulated operation sees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

#include "shared_lines.hpp"
#include "stealpool/queue/split_deque.hpp"

namespace stealpool::sim {

template <class Item>
class SimDeque {
 public:
  // split: fork-join's deque; publish_on_request false is the no-publish mutant.
  void configure(bool split, std::size_t capacity, bool publish_on_request, SharedWrites& lines) {
    lines_ = &lines;
    split_ = split;
    capacity_ = capacity;
    publish_on_request_ = publish_on_request;
  }

  // --- owner ---------------------------------------------------------------
  PushResult push(Item it) {
    if (!split_) {
      items_.push_back(it);
      ++public_;
      lines_->add(LineOp::cl_push);
      return PushResult::kept_private;  // the typed spawn paths decide whom to wake
    }
    if (items_.size() >= capacity_) return PushResult::full;
    const bool was_empty = items_.empty();
    items_.push_back(it);
    // SplitDeque::push: nothing private before it and nothing public left.
    if (was_empty) return publish_to(items_.size());
    if (request_ && publish_on_request_) return publish_half();
    return PushResult::kept_private;
  }

  std::optional<Item> pop() {
    if (items_.empty()) return std::nullopt;
    const Item it = items_.back();
    if (items_.size() == public_) {  // nothing private: a reclaim (or Chase-Lev's pop)
      // The last public item is raced for with a CAS on top.
      if (public_ == 1) lines_->add(split_ ? LineOp::sd_reclaim_last : LineOp::cl_pop_last);
      else lines_->add(split_ ? LineOp::sd_reclaim : LineOp::cl_pop);
      --public_;
    }
    items_.pop_back();
    return it;
  }

  // SplitDeque::publish_requested: after a pop, if a thief asked and private
  // items are left.
  PushResult publish_requested() {
    if (split_ && request_ && publish_on_request_ && private_count() != 0) return publish_half();
    return PushResult::kept_private;
  }

  // --- thieves -------------------------------------------------------------
  bool has_public() const { return public_ != 0; }
  // A thief found nothing public: ask the owner to publish (split only).
  void ask() {
    if (split_ && !request_) lines_->add(LineOp::sd_ask);  // a thief that finds it up only loads
    if (split_) request_ = true;
  }
  Item front() const { return items_.front(); }
  void take_front() {
    lines_->add(LineOp::deque_claim);
    items_.pop_front();
    --public_;
  }
  // A thief lost the race for top (Steal::retry): its CAS failed.
  void lost_race() { lines_->add(LineOp::deque_claim); }

  // --- observers -----------------------------------------------------------
  bool empty_hint() const { return public_ == 0; }  // no public item (what work_visible() reads)
  std::size_t public_count() const { return public_; }
  std::size_t size() const { return items_.size(); }
  std::size_t private_count() const { return items_.size() - public_; }
  bool requested() const { return request_; }
  // Private items a thief asked for: the owner must publish them at its next
  // push or pop (the liveness check counts them as work a sleeper could get).
  bool publishable() const { return request_ && private_count() != 0; }
  std::uint64_t request_publishes() const { return request_publishes_; }

 private:
  PushResult publish_half() {  // only ever on a thief's request
    ++request_publishes_;
    const std::size_t priv = private_count();
    return publish_to(public_ + (priv + 1) / 2);
  }
  PushResult publish_to(std::size_t new_public) {
    lines_->add(LineOp::sd_publish);
    if (request_) lines_->add(LineOp::sd_clear_request);
    public_ = new_public;
    request_ = false;
    return PushResult::published;
  }

  SharedWrites* lines_ = nullptr;
  std::deque<Item> items_;  // front: oldest (top); back: newest (head)
  std::size_t public_ = 0;  // items_[0, public_) are public
  bool request_ = false;
  bool split_ = false;
  bool publish_on_request_ = true;
  std::size_t capacity_ = 0;
  std::uint64_t request_publishes_ = 0;
};

}  // namespace stealpool::sim

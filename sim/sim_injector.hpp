// sim/sim_injector.hpp: the injector in the simulator: a FIFO of items that
// also keeps the positions of the real Injector's two ends (queue/injector.hpp:
// blocks of 255 slots), so that every push and take reports the shared-line
// writes the real one makes (shared_lines.hpp).
//
// What is taken is the simulator's rule, unchanged (the executor's batch takes
// up to 32 items, across a block's end if there is one; the real take stops at
// the block's end and the next take goes on). The block change is counted at
// the take whose range reaches the end; a take across it counts one head CAS
// and one slots_read add where the real code makes two: at most two writes too
// few per 255 items.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>

#include "shared_lines.hpp"

namespace stealpool::sim {

template <class Item>
class SimInjector {
 public:
  // The real Injector's kBlockSlots.
  static constexpr std::uint64_t kBlockSlots = 255;

  explicit SimInjector(SharedWrites& lines) : lines_(&lines) {}

  // Injector::push / push_batch: one CAS on tail per block's worth; taking a
  // block's last slot installs the next block.
  void push(Item it) { push_batch(std::span<const Item>(&it, 1)); }
  void push_batch(std::span<const Item> batch) {
    for (std::uint64_t left = batch.size(); left != 0;) {
      const std::uint64_t room = kBlockSlots - tail_ % kBlockSlots;
      const std::uint64_t n = left < room ? left : room;
      lines_->add(LineOp::inj_claim_tail);
      if (n == room) lines_->add(LineOp::inj_install_block);
      tail_ += n;
      left -= n;
    }
    items_.insert(items_.end(), batch.begin(), batch.end());
  }

  // A consumer's claim of the oldest `n` items (1 <= n <= size()): one CAS on
  // head and one slots_read add. Returns the first; the rest go to `rest`.
  template <class Rest>
  Item take(std::size_t n, Rest&& rest) {
    const std::uint64_t to_block_end = kBlockSlots - head_ % kBlockSlots;
    lines_->add(LineOp::inj_claim_head);
    lines_->add(LineOp::inj_slots_read);
    if (n >= to_block_end) lines_->add(LineOp::inj_leave_block);
    head_ += n;
    const Item first = items_.front();
    items_.pop_front();
    for (std::size_t i = 1; i < n; ++i) {
      rest(items_.front());
      items_.pop_front();
    }
    return first;
  }

  // A consumer lost the race for head (Steal::retry): its CAS failed.
  void lost_race() { lines_->add(LineOp::inj_claim_head); }

  bool empty() const { return items_.empty(); }
  std::size_t size() const { return items_.size(); }

 private:
  SharedWrites* lines_;
  std::deque<Item> items_;
  std::uint64_t head_ = 0, tail_ = 0;  // slot positions, markers not counted
};

}  // namespace stealpool::sim

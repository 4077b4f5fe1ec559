// stealpool/mpi/detail/private_tail.hpp: PrivateTail<Item>, the tasks a rank's
// worker spawned while its deque already held enough for thieves. Owner-private:
// only the worker's thread touches it, so a push or a pop is a plain vector
// operation, with none of the deque's fences. The protocol that keeps it safe,
// [MPI-private-tail], is in ../README.md, "Inside a rank".
//
// A stack at the back (push, pop_newest: the worker's LIFO order) that also
// gives up its oldest item at the front (take_oldest: what the worker moves to
// its deque when the deque runs low, the largest subtrees of a tree search).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace stealpool::mpi::detail {

template <class Item>
class PrivateTail {
 public:
  bool empty() const noexcept { return head_ == items_.size(); }
  std::size_t size() const noexcept { return items_.size() - head_; }

  // Throws std::bad_alloc if the buffer cannot grow; then nothing changed.
  void push(const Item& item) { items_.push_back(item); }

  // Precondition: !empty().
  Item pop_newest() noexcept {
    Item item = items_.back();
    items_.pop_back();
    if (items_.size() == head_) reset();
    return item;
  }
  const Item& oldest() const noexcept { return items_[head_]; }
  // Precondition: !empty(). The front is compacted away once it is more than
  // half of the buffer, so the buffer stays within twice the items it holds
  // (amortised O(1) a take).
  void drop_oldest() noexcept {
    ++head_;
    if (head_ == items_.size()) {
      reset();
    } else if (head_ >= kCompactAt && head_ * 2 > items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));  // no allocation
      head_ = 0;
    }
  }

 private:
  static constexpr std::size_t kCompactAt = 64;
  void reset() noexcept {
    items_.clear();
    head_ = 0;
  }
  std::vector<Item> items_;  // [head_, size()): the tail, oldest first
  std::size_t head_ = 0;
};

}  // namespace stealpool::mpi::detail

// stealpool/engine/private_batch.hpp: a worker-private FIFO of up to N items,
// filled by one Injector::steal_batch_and_pop and emptied by the same worker.
//
// Why: a worker alone in its executor has no thieves, so the items of an
// injector batch need not pass through its Chase-Lev deque, whose pop pays a
// seq_cst fence per item against thieves that do not exist (ExecutorWorker,
// "A lone worker's batches"). Plain stores and loads, no atomics: only the
// owner touches it.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <optional>
#include <type_traits>

#include "stealpool/platform/fatal.hpp"

namespace stealpool::detail {

template <class T, std::size_t N>
class PrivateBatch {
  // What executors store: a small trivially copyable task or a pointer to a
  // boxed one. Kept as bytes, so T need not be default-constructible.
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  static constexpr std::size_t kCapacity = N;

  // The injector's side: at most N items between two times the batch is empty
  // (steal_batch_and_pop is given a limit of N + 1, the first item being
  // returned rather than pushed).
  void push(const T& item) noexcept {
    if (next_ == size_) next_ = size_ = 0;
    // A broken contract would lose a task: stop loudly instead.
    if (size_ == N) [[unlikely]]
      fatal("stealpool: PrivateBatch overflow (a batch larger than its capacity)");
    items_[size_++] = std::bit_cast<Bytes>(item);
  }

  // Items pushed and not yet popped.
  std::size_t size() const noexcept { return size_ - next_; }

  std::optional<T> pop() noexcept {
    if (next_ == size_) return std::nullopt;
    return std::bit_cast<T>(items_[next_++]);
  }

 private:
  using Bytes = std::array<unsigned char, sizeof(T)>;
  std::array<Bytes, N> items_;
  std::size_t next_ = 0;  // next item to pop
  std::size_t size_ = 0;  // items pushed since the batch was last empty
};

}  // namespace stealpool::detail

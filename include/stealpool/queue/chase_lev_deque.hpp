// stealpool/queue/chase_lev_deque.hpp: ChaseLevDeque<T>, a lock-free,
// growable work-stealing deque (Chase & Lev, SPAA 2005) with the C11 orderings
// of Lê, Pop, Cohen and Zappa Nardelli (PPoPP 2013).
//
// Who may call what:
//   push, pop                      the owner thread only (one thread, ever at a time)
//   steal, steal_batch_and_pop     any thread
//   size_hint, empty_hint          any thread; a racy snapshot
// The owner works LIFO at the bottom; thieves take FIFO from the top, where the
// oldest and, in divide-and-conquer code, largest items are.
//
// Cost: push is two plain stores and a release store (no fence, no RMW); pop is
// one full fence (the store->load barrier the protocol needs), plus a CAS only
// when racing for the last item; steal is a fence and a CAS.
//
// Items are trivially copyable and at most 64 bytes (the Executor boxes larger
// task types). The buffer doubles when full; it never shrinks. Retired buffers are
// kept until the deque is destroyed, since a thief may still be reading one. Their
// total size is below the current buffer's, so memory stays within 2x the peak.
//
// The protocol, its orderings and why the bad interleavings cannot happen:
// queue/README.md, section "Chase-Lev deque". Tags such as [CL-pop-fence] name the
// two ends of each synchronising pair there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "stealpool/platform/cache_line.hpp"
#include "stealpool/platform/sync.hpp"
#include "stealpool/queue/atomic_slot.hpp"
#include "stealpool/queue/steal.hpp"

namespace stealpool {

template <class T, class Sync = detail::StdSync>
class ChaseLevDeque {
  using Index = std::int64_t;
  template <class U>
  using Atomic = typename Sync::template atomic<U>;

  struct Buffer {
    explicit Buffer(Index capacity_)
        : capacity(capacity_), mask(capacity_ - 1), slots(new detail::AtomicSlot<T, Sync>[static_cast<std::size_t>(capacity_)]) {}
    const Index capacity;  // a power of two
    const Index mask;
    std::unique_ptr<detail::AtomicSlot<T, Sync>[]> slots;

    void put(Index i, const T& item) noexcept { slots[static_cast<std::size_t>(i & mask)].store(item); }
    T get(Index i) const noexcept { return slots[static_cast<std::size_t>(i & mask)].load(); }
  };

 public:
  static constexpr std::size_t kDefaultCapacity = 64;

  // capacity: the initial size, rounded up to a power of two (>= 2).
  explicit ChaseLevDeque(std::size_t capacity = kDefaultCapacity) {
    if (capacity == 0 || capacity > (std::size_t{1} << 40))
      throw std::invalid_argument("stealpool::ChaseLevDeque: capacity must be in [1, 2^40] (got " +
                                  std::to_string(capacity) + ")");
    Index cap = 2;
    while (cap < static_cast<Index>(capacity)) cap <<= 1;
    owned_.push_back(std::make_unique<Buffer>(cap));
    buffer_.store(owned_.back().get(), std::memory_order::relaxed);  // not shared yet
  }

  ChaseLevDeque(const ChaseLevDeque&) = delete;
  ChaseLevDeque& operator=(const ChaseLevDeque&) = delete;

  // Owner only. Never fails (grows instead); throws std::bad_alloc if growth does.
  void push(const T& item) {
    const Index b = bottom_.value.load(std::memory_order::relaxed);  // owner's own index
    // [CL-reuse] acquire: a thief's read of the slot we may overwrite happened
    // before its CAS on top, which this load may read from.
    const Index t = top_.value.load(std::memory_order::acquire);
    Buffer* buf = buffer_.load(std::memory_order::relaxed);  // only the owner writes buffer_
    if (b - t > buf->capacity - 1) buf = grow(buf, t, b);
    buf->put(b, item);
    // [CL-push] release: the slot written above is visible to a thief that reads
    // this bottom with acquire in steal().
    bottom_.value.store(b + 1, std::memory_order::release);
  }

  // Owner only. Returns the most recently pushed item still present, or nothing.
  [[nodiscard]] std::optional<T> pop() noexcept {
    const Index b0 = bottom_.value.load(std::memory_order::relaxed);
    // Cheap empty test without the fence. Deliberately weak: top only grows, so a
    // stale top can only make the deque look non-empty, never empty by mistake;
    // only the owner adds items, so "empty" here is the truth.
    if (b0 <= top_.value.load(std::memory_order::relaxed)) return std::nullopt;

    const Index b = b0 - 1;
    Buffer* buf = buffer_.load(std::memory_order::relaxed);
    // release: a thief that reads this value must still synchronise with the
    // push before it (C++20 ended release sequences at relaxed stores).
    bottom_.value.store(b, std::memory_order::release);  // reserve slot b...
    // [CL-pop-fence] seq_cst: ...and make the reservation visible before reading
    // top. Pairs with [CL-steal-fence]: of a racing pop and steal, at least one
    // sees the other's index update, so both cannot take the same item.
    Sync::fence(std::memory_order::seq_cst);
    Index t = top_.value.load(std::memory_order::relaxed);

    if (t > b) {  // a thief took the last item(s) first: empty, restore bottom
      bottom_.value.store(b + 1, std::memory_order::release);  // [CL-push] as in push()
      return std::nullopt;
    }
    T item = buf->get(b);
    if (t < b) return item;  // more than one item left: no thief can reach slot b

    // t == b: the last item. Race the thieves for it on top, like a thief would.
    // [CL-last] seq_cst CAS: totally ordered with the thieves' CAS on top.
    const bool won = top_.value.compare_exchange_strong(t, t + 1, std::memory_order::seq_cst,
                                                        std::memory_order::relaxed);
    bottom_.value.store(b + 1, std::memory_order::release);  // [CL-push] deque is empty again
    if (!won) return std::nullopt;
    return item;
  }

  // Any thread. Takes the oldest item.
  Steal<T> steal() noexcept {
    Index t = top_.value.load(std::memory_order::acquire);  // [CL-reuse] top order
    // [CL-steal-fence] seq_cst: pairs with [CL-pop-fence]; see pop().
    Sync::fence(std::memory_order::seq_cst);
    const Index b = bottom_.value.load(std::memory_order::acquire);  // [CL-push] pairs with push()
    if (t >= b) return Steal<T>::empty();

    // [CL-grow] acquire: pairs with the release store of a new buffer in grow(). We
    // read bottom first, so a buffer installed before the push of item t is seen.
    Buffer* buf = buffer_.load(std::memory_order::acquire);
    T item = buf->get(t);  // may be torn if we lost the race; then the CAS fails
    // [CL-last] seq_cst CAS: claims item t against other thieves and the owner.
    if (!top_.value.compare_exchange_strong(t, t + 1, std::memory_order::seq_cst,
                                            std::memory_order::relaxed))
      return Steal<T>::retry();
    return Steal<T>::success(item);
  }

  // Any thread that owns `dest` (and is not this deque's owner). Steals up to half
  // of the items seen (at most `limit`), returns the first and pushes the rest
  // onto `dest`.
  //
  // Each item is claimed by its own steal(): one CAS covering several items could
  // overlap the owner's fence-free pops from the bottom (pop() takes item b without
  // a CAS whenever it sees top < b). So "at most half" is of the size observed at
  // the start; the items are taken one by one, each exactly once.
  Steal<T> steal_batch_and_pop(ChaseLevDeque& dest, std::size_t limit = 32) {
    const std::size_t seen = size_hint();
    Steal<T> first = steal();
    if (!first.is_success()) return first;
    std::size_t want = (seen + 1) / 2;
    if (want > limit) want = limit;
    for (std::size_t taken = 1; taken < want; ++taken) {
      Steal<T> next = steal();
      if (!next.is_success()) break;
      dest.push(next.value());
    }
    return first;
  }

  // Any thread; a snapshot that may be stale by the time it returns.
  std::size_t size_hint() const noexcept {
    const Index t = top_.value.load(std::memory_order::relaxed);     // a hint: no ordering
    const Index b = bottom_.value.load(std::memory_order::relaxed);  // a hint: no ordering
    return b > t ? static_cast<std::size_t>(b - t) : 0;
  }
  bool empty_hint() const noexcept { return size_hint() == 0; }

  // Current buffer capacity (owner only: exact; others: a hint).
  std::size_t capacity() const noexcept {
    return static_cast<std::size_t>(buffer_.load(std::memory_order::relaxed)->capacity);
  }

 private:
  // Owner only, called from push() when the buffer is full. Out of line and
  // cold, so that push() stays a few instructions the compiler inlines into the
  // caller's spawn (inlined, the copy loop kept push() a call of its own: 2% of
  // the MPI executor's UTS T3 at 1 worker, perf).
  [[gnu::noinline, gnu::cold]] Buffer* grow(Buffer* old, Index t, Index b) {
    owned_.push_back(std::make_unique<Buffer>(old->capacity * 2));
    Buffer* bigger = owned_.back().get();
    for (Index i = t; i < b; ++i) bigger->put(i, old->get(i));
    // [CL-grow] release: the copied items are visible to a thief that loads this
    // pointer with acquire. The old buffer stays alive (owned_) for thieves that
    // loaded it earlier: its items t..b-1 are unchanged, so what they read is valid.
    buffer_.store(bigger, std::memory_order::release);
    return bigger;
  }

  // Shared: written by thieves (CAS) and by the owner (CAS on the last item).
  detail::Padded<Atomic<Index>> top_{};
  // Shared: written by the owner only, read by thieves.
  detail::Padded<Atomic<Index>> bottom_{};
  // Shared: written by the owner only (on growth), read by thieves.
  alignas(detail::kCacheLine) Atomic<Buffer*> buffer_{nullptr};
  // Owner-private: every buffer ever used, freed with the deque.
  std::vector<std::unique_ptr<Buffer>> owned_;
};

}  // namespace stealpool

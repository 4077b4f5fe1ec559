// stealpool/queue/split_deque.hpp: SplitDeque<T>, a work-stealing deque whose
// newest items are private to the owner (after Lace's split deque, van Dijk and
// van de Pol 2014), so that the owner's push and pop of an item no thief has asked
// for cost no fence and no read-modify-write at all.
//
//      top           split                head
//       |  public     |  private            |
//       v             v                     v
//   ... [ t ][   ][   ][   ][   ][   ][   ] ...
//       thieves take    owner pushes and pops here,
//       from here       as on a plain array
//
// Who may call what:
//   push, pop, publish_requested, publish_all,
//   requested, capacity, size_hint,
//   public_size_hint              the owner thread only
//   steal                         any thread
//   empty_hint                    any thread; "no public item", a racy snapshot
//
// Items in [top, split) are public: thieves claim them one by one with a CAS on
// `top`, exactly as in a Chase-Lev deque whose bottom is `split`. Items in
// [split, head) are private: no thief reads them. The owner moves the split:
//   - publish: when a thief found nothing public it raises `request`; the owner,
//     at its next push or pop, moves split up over the older half of its private
//     items (the oldest are the largest in divide-and-conquer code). A push into
//     a deque with nothing private and nothing public publishes at once, so a
//     lone first item (the other half of a top-level join) is stealable while
//     the owner runs the first half, however long that takes.
//   - reclaim: a pop that finds nothing private takes the newest public item
//     back with Chase-Lev's pop (a fence, and a CAS only for the last item).
// So the fence is paid once per publish, not once per item: with one worker, or
// while no thief is idle, push and pop are a few plain loads and stores.
//
// The price: an item stays private, unstealable, until the owner next pushes or
// pops after a thief asked. Code that pushes and then computes for a long time
// without touching the deque delays thieves by that long (it never loses work;
// the owner runs the item itself). Code that knows it is about to do so (a
// loop's part, after the joins that handed out the other parts) calls
// publish_all() first. push() and the publishes report when they published, so
// that the caller can wake sleeping workers (the sleep protocol's producer side).
//
// Capacity is fixed (no growth: growing under thieves needs retired buffers, and
// fork-join depth is small); push() returns PushResult::full instead, and the
// caller runs the item itself or sends it elsewhere.
//
// The protocol, its orderings and why a private item is never taken by a thief
// nor a public one taken twice: queue/README.md, section "Split deque". Tags
// such as [SD-pop-fence] name the two ends of each synchronising pair there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "stealpool/platform/cache_line.hpp"
#include "stealpool/platform/sync.hpp"
#include "stealpool/queue/atomic_slot.hpp"
#include "stealpool/queue/steal.hpp"

namespace stealpool {

enum class PushResult : std::uint8_t {
  kept_private,  // stored; only the owner can take it for now
  published,     // stored, and this push made items public: wake a sleeper
  full,          // not stored: the deque holds capacity() items
};

template <class T, class Sync = detail::StdSync>
class SplitDeque {
  using Index = std::int64_t;
  template <class U>
  using Atomic = typename Sync::template atomic<U>;

 public:
  static constexpr std::size_t kDefaultCapacity = std::size_t{1} << 13;

  // capacity: rounded up to a power of two (>= 2).
  explicit SplitDeque(std::size_t capacity = kDefaultCapacity) {
    if (capacity == 0 || capacity > (std::size_t{1} << 30))
      throw std::invalid_argument("stealpool::SplitDeque: capacity must be in [1, 2^30] (got " +
                                  std::to_string(capacity) + ")");
    Index cap = 2;
    while (cap < static_cast<Index>(capacity)) cap <<= 1;
    mask_ = cap - 1;
    slots_.reset(new detail::AtomicSlot<T, Sync>[static_cast<std::size_t>(cap)]);
  }

  SplitDeque(const SplitDeque&) = delete;
  SplitDeque& operator=(const SplitDeque&) = delete;

  // Owner only.
  [[nodiscard]] PushResult push(const T& item) noexcept {
    const Index h = head_;
    if (h - top_seen_ > mask_) {
      // [SD-reuse] acquire: a thief's read of the slot we are about to overwrite
      // happened before its CAS on top, which this load may read from.
      top_seen_ = thief_.top.load(std::memory_order::acquire);
      if (h - top_seen_ > mask_) return PushResult::full;
    }
    slots_[static_cast<std::size_t>(h & mask_)].store(item);
    head_ = h + 1;
    if (h == split_) {
      // Nothing private before this item. If nothing public is left either (all
      // stolen or taken back), publish it. top_seen_ is a lower bound of top, so
      // only re-read top when the bound does not already settle it.
      if (top_seen_ < split_) top_seen_ = thief_.top.load(std::memory_order::acquire);  // [SD-reuse]
      if (top_seen_ >= split_) return publish_to(h + 1);
    }
    if (requested()) return publish_half();
    return PushResult::kept_private;
  }

  // Owner only. The most recently pushed item still here, or nothing.
  // (The private path is small enough to inline into a join; the public one is
  // kept out of line.)
  [[nodiscard]] std::optional<T> pop() noexcept {
    if (head_ > split_) {  // private: no thief can read slot head-1
      --head_;
      return slots_[static_cast<std::size_t>(head_ & mask_)].load();
    }
    return pop_public();
  }

  // Owner only: if a thief asked for work and private items are left, publishes
  // the older half of them. pop() does not do this itself, so that the caller,
  // which alone can wake sleepers, decides when (the worker calls it after each
  // pop; it is one relaxed load when nobody asked).
  PushResult publish_requested() noexcept {
    return head_ > split_ && requested() ? publish_half() : PushResult::kept_private;
  }

  // Owner only: makes every private item public, asked for or not. For an owner
  // about to run for long without touching the deque, whose private items would
  // otherwise wait for it. The same step as a publish on request, to the head.
  PushResult publish_all() noexcept { return head_ > split_ ? publish_to(head_) : PushResult::kept_private; }

  // Any thread. Takes the oldest public item. `empty` also when the owner holds
  // private items; the thief then asks the owner to publish some.
  Steal<T> steal() noexcept {
    Index t = thief_.top.load(std::memory_order::acquire);  // [SD-reuse] top order
    // [SD-steal-fence] seq_cst: pairs with [SD-pop-fence] (Chase-Lev's pair).
    Sync::fence(std::memory_order::seq_cst);
    const Index s = split_pub_.value.load(std::memory_order::acquire);  // [SD-publish]
    if (t >= s) {
      // Ask the owner for work. Load first: a thief that finds the flag up does
      // not write the line again, so idle thieves do not bounce it.
      // relaxed: a hint; the owner reads it at its next push or pop.
      if (!thief_.request.load(std::memory_order::relaxed)) thief_.request.store(true, std::memory_order::relaxed);
      return Steal<T>::empty();
    }
    T item = slots_[static_cast<std::size_t>(t & mask_)].load();  // torn if we lose; then the CAS fails
    // [SD-claim] seq_cst CAS: claims item t against other thieves and the owner.
    if (!thief_.top.compare_exchange_strong(t, t + 1, std::memory_order::seq_cst,
                                            std::memory_order::relaxed))
      return Steal<T>::retry();
    return Steal<T>::success(item);
  }

  // Any thread: true if no item is public. Private items do not count: no other
  // thread can take them, and their owner is awake (it is running or pushing).
  bool empty_hint() const noexcept {
    // relaxed: a snapshot; the sleep protocol orders these loads with its own fences.
    return thief_.top.load(std::memory_order::relaxed) >= split_pub_.value.load(std::memory_order::relaxed);
  }

  // Owner only: how many items are public (a snapshot: thieves may be taking
  // them). After a publish the owner wakes that many sleepers, as a batch spawn
  // does (ExecutorWorker::wake_for_published).
  std::size_t public_size_hint() const noexcept {
    const Index t = thief_.top.load(std::memory_order::relaxed);  // a hint, like size_hint's
    return split_ > t ? static_cast<std::size_t>(split_ - t) : 0;
  }

  // Owner only: items held, public and private (public ones may be being stolen).
  std::size_t size_hint() const noexcept {
    const Index t = thief_.top.load(std::memory_order::relaxed);  // a hint
    return head_ > t ? static_cast<std::size_t>(head_ - t) : 0;
  }

  // Owner only: a thief found nothing public since the last publish (a hint).
  bool requested() const noexcept {
    return thief_.request.load(std::memory_order::relaxed);  // a hint; see steal()
  }

  std::size_t capacity() const noexcept { return static_cast<std::size_t>(mask_ + 1); }

 private:
  [[gnu::noinline]] PushResult publish_half() noexcept {
    const Index priv = head_ - split_;
    return publish_to(split_ + (priv + 1) / 2);
  }

  // Makes [split, to) public.
  PushResult publish_to(Index to) noexcept {
    split_ = to;
    // relaxed: clearing a hint. A request raised again between our decision and
    // this store is lost, which only delays the next publish until that thief
    // asks again (it keeps asking while it finds nothing). Loaded first: most
    // publishes (a push into an empty deque) find it down already, and a store
    // would still pull the thieves' line, where they CAS top, to this core
    // (the simulator's count of shared-line writes, sim/README.md).
    if (thief_.request.load(std::memory_order::relaxed)) thief_.request.store(false, std::memory_order::relaxed);
    // [SD-publish] release: the slots written by push() are visible to a thief
    // that reads this split with acquire.
    split_pub_.value.store(to, std::memory_order::release);
    return PushResult::published;
  }

  // Chase-Lev's pop on the public part, whose bottom is split.
  [[gnu::noinline]] std::optional<T> pop_public() noexcept {
    const Index s0 = split_;
    // A stale top only makes the public part look non-empty, never empty by
    // mistake (top only grows; only the owner publishes).
    if (s0 <= top_seen_) return std::nullopt;
    // [SD-reuse] acquire, here and below: top_seen_ later decides which slots
    // push() may overwrite without reloading top.
    const Index t0 = thief_.top.load(std::memory_order::acquire);
    if (s0 <= t0) {
      top_seen_ = t0;
      return std::nullopt;
    }
    const Index b = s0 - 1;
    // release: a thief that reads this value must still synchronise with the
    // publish before it (C++20 ended release sequences at relaxed stores).
    split_pub_.value.store(b, std::memory_order::release);  // reserve slot b...
    // [SD-pop-fence] seq_cst: ...and make the reservation visible before reading
    // top. Pairs with [SD-steal-fence]: of a racing pop and steal, at least one
    // sees the other's index update, so both cannot take item b.
    Sync::fence(std::memory_order::seq_cst);
    Index t = thief_.top.load(std::memory_order::acquire);

    if (t > b) {  // thieves took everything first: restore the split
      split_pub_.value.store(b + 1, std::memory_order::release);  // [SD-publish] as above
      top_seen_ = t;
      return std::nullopt;
    }
    T item = slots_[static_cast<std::size_t>(b & mask_)].load();
    if (t < b) {  // more than one public item: no thief can reach slot b
      split_ = b;
      head_ = b;
      top_seen_ = t;
      return item;
    }
    // t == b: the last public item. Race the thieves for it on top.
    // [SD-claim] seq_cst CAS: totally ordered with the thieves' CAS on top.
    // acquire on failure too: top_seen_ below feeds [SD-reuse].
    const bool won = thief_.top.compare_exchange_strong(t, t + 1, std::memory_order::seq_cst,
                                                        std::memory_order::acquire);
    split_pub_.value.store(b + 1, std::memory_order::release);  // [SD-publish]; empty: top == split == b + 1
    split_ = b + 1;
    head_ = b + 1;
    top_seen_ = b + 1;
    if (!won) return std::nullopt;
    return item;
  }

  // Shared, written by thieves: top by CAS on every steal, request when they find
  // nothing public. The owner reads request at every push and pop: one line,
  // written rarely, so the read is a cache hit while no thief is idle.
  struct alignas(detail::kCacheLine) ThiefLine {
    Atomic<Index> top{0};
    Atomic<bool> request{false};
  };
  ThiefLine thief_;
  // Shared, written by the owner only: the public end.
  alignas(detail::kCacheLine) detail::Padded<Atomic<Index>> split_pub_{};
  // Owner-private (never read by another thread).
  alignas(detail::kCacheLine) Index head_ = 0;
  Index split_ = 0;     // the owner's copy of split_pub_
  Index top_seen_ = 0;  // a lower bound of top
  Index mask_ = 0;      // capacity - 1
  std::unique_ptr<detail::AtomicSlot<T, Sync>[]> slots_;
};

}  // namespace stealpool

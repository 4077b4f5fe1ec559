// stealpool/queue/locked_wsq.hpp: LockedWsq<T>, the work-stealing queue of Joe
// Duffy's "a work stealing queue" (2008; the design of .NET's TPL): a lock-free
// owner end and a thief end under a lock. It is the baseline that ChaseLevDeque
// must beat, kept because it is simple enough to trust.
//
// Who may call what:
//   push, pop                    the owner thread only (one thread, ever at a time)
//   steal, try_steal             any thread; thieves serialise on one lock
//   size_hint, empty_hint        any thread; a racy snapshot
// The owner works LIFO at the tail; thieves take FIFO from the head.
//
// Cost: push is slot stores and a release store; it takes the lock only to grow.
// pop is one XCHG (a full barrier) and a load; it takes the lock only when it may
// be racing for the last item or the queue looks empty. steal/try_steal always
// take the lock, then do an XCHG. try_steal(0ns) never blocks: a held lock is
// reported as retry, so a thief can sweep all victims without waiting on any;
// try_steal(t) spins, then yields, for up to t before reporting retry.
// Throws: the constructor std::invalid_argument on a bad capacity; push
// std::bad_alloc if growth does; steal/try_steal std::system_error if the mutex
// does. Items are trivially copyable, at most 64 bytes. The buffer doubles when
// full and never shrinks; the old one is freed at once (see "Growth" below).
//
// The protocol, its invariants (I1, I2), the tagged pairs such as [WSQ-pop-xchg]
// and why "empty" is exact: queue/README.md, section "LockedWsq".
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

#include "stealpool/platform/cache_line.hpp"
#include "stealpool/platform/sync.hpp"
#include "stealpool/queue/atomic_slot.hpp"
#include "stealpool/queue/steal.hpp"

namespace stealpool {

template <class T, class Sync = detail::StdSync>
class LockedWsq {
  using Index = std::int64_t;
  template <class U>
  using Atomic = typename Sync::template atomic<U>;

  // The thieves' lock: Sync::mutex where the policy supplies one (a model
  // checker's, or a test's that can be held from outside), else std::mutex. Not
  // std::timed_mutex: see lock_within().
  template <class S>
  static auto pick_mutex() {
    if constexpr (requires { typename S::mutex; }) return std::type_identity<typename S::mutex>{};
    else return std::type_identity<std::mutex>{};
  }
  using Mutex = typename decltype(pick_mutex<Sync>())::type;

  struct Buffer {
    explicit Buffer(Index capacity_)
        : mask(capacity_ - 1), slots(new detail::AtomicSlot<T, Sync>[static_cast<std::size_t>(capacity_)]) {}
    const Index mask;  // capacity - 1; capacity is a power of two
    std::unique_ptr<detail::AtomicSlot<T, Sync>[]> slots;

    void put(Index i, const T& item) noexcept { slots[static_cast<std::size_t>(i & mask)].store(item); }
    T get(Index i) const noexcept { return slots[static_cast<std::size_t>(i & mask)].load(); }
  };

 public:
  static constexpr std::size_t kDefaultCapacity = 32;

  // capacity: the initial size, rounded up to a power of two (>= 2).
  explicit LockedWsq(std::size_t capacity = kDefaultCapacity) {
    if (capacity == 0 || capacity > (std::size_t{1} << 40))
      throw std::invalid_argument("stealpool::LockedWsq: capacity must be in [1, 2^40] (got " +
                                  std::to_string(capacity) + ")");
    Index cap = 2;
    while (cap < static_cast<Index>(capacity)) cap <<= 1;
    buffer_ = std::make_unique<Buffer>(cap);
  }

  LockedWsq(const LockedWsq&) = delete;
  LockedWsq& operator=(const LockedWsq&) = delete;

  // Owner only. Never fails (grows instead); throws std::bad_alloc if growth does.
  void push(const T& item) {
    const Index t = tail_.value.load(std::memory_order::relaxed);  // owner's own index
    // [WSQ-reuse] acquire: pairs with the thieves' release writes of head. May be
    // a transient (one too high): I2's one spare slot absorbs that.
    const Index h = head_.value.load(std::memory_order::acquire);
    if (t < h + buffer_->mask) {  // room with one slot to spare (I2): no lock
      buffer_->put(t, item);
      tail_.value.store(t + 1, std::memory_order::release);  // [WSQ-push] publishes slot t
      return;
    }
    std::lock_guard lock(mutex_);  // may be full: decide against the stable head
    // relaxed: only lock holders write head, and the lock orders their writes before us.
    const Index stable = head_.value.load(std::memory_order::relaxed);
    if (t - stable >= buffer_->mask) grow(stable, t);
    buffer_->put(t, item);
    // relaxed: thieves read tail only under the lock we hold, which publishes this.
    tail_.value.store(t + 1, std::memory_order::relaxed);
  }

  // Owner only. Returns the most recently pushed item still present, or nothing.
  [[nodiscard]] std::optional<T> pop() {
    const Index t = tail_.value.load(std::memory_order::relaxed);  // owner's own index
    // A hint only (relaxed): either answer leads to a path that decides correctly.
    if (head_.value.load(std::memory_order::relaxed) >= t) return pop_locked(t);
    const Index b = t - 1;
    tail_.value.exchange(b, std::memory_order::seq_cst);  // [WSQ-pop-xchg] reserve slot b...
    // [WSQ-pop-xchg] seq_cst: ...before reading head; pairs with [WSQ-steal-xchg].
    if (head_.value.load(std::memory_order::seq_cst) <= b) return buffer_->get(b);  // thieves stop below b
    // A thief holds or just took item b: let the lock decide.
    std::lock_guard lock(mutex_);
    const Index stable = head_.value.load(std::memory_order::relaxed);  // exact under the lock
    if (stable <= b) return buffer_->get(b);  // the thief put head back: b is ours
    // It took b: the queue is empty; restore tail == head. relaxed: thieves read
    // tail only under the lock we hold.
    tail_.value.store(t, std::memory_order::relaxed);
    return std::nullopt;
  }

  // Any thread. Takes the oldest item, waiting for the lock as long as it takes.
  Steal<T> steal() {
    std::lock_guard lock(mutex_);
    return steal_locked();
  }

  // Any thread. Takes the oldest item if the lock can be had within `timeout`
  // (0 or less: one try_lock); otherwise retry, since the queue may hold items.
  Steal<T> try_steal(std::chrono::nanoseconds timeout) {
    std::unique_lock lock(mutex_, std::try_to_lock);
    if (!lock.owns_lock() && !lock_within(lock, timeout)) return Steal<T>::retry();
    return steal_locked();
  }

  // Any thread; a snapshot that may be stale (or off by a transient) on return.
  std::size_t size_hint() const noexcept {
    const Index h = head_.value.load(std::memory_order::relaxed);  // a hint: no ordering
    const Index t = tail_.value.load(std::memory_order::relaxed);  // a hint: no ordering
    return t > h ? static_cast<std::size_t>(t - h) : 0;
  }
  bool empty_hint() const noexcept { return size_hint() == 0; }

  // Current buffer capacity. Owner only (the owner is the only writer of buffer_).
  std::size_t capacity() const noexcept { return static_cast<std::size_t>(buffer_->mask + 1); }

 private:
  // Owner, when the unlocked head said empty: it may be a transient (I1), so
  // decide under the lock, where head is exact and no thief is mid-claim.
  std::optional<T> pop_locked(Index t) {
    std::lock_guard lock(mutex_);
    const Index h = head_.value.load(std::memory_order::relaxed);  // exact under the lock
    if (h >= t) return std::nullopt;
    // relaxed: thieves read tail only under the lock we hold.
    tail_.value.store(t - 1, std::memory_order::relaxed);
    return buffer_->get(t - 1);
  }

  // Spins, then yields, until the lock is ours or `timeout` has passed. Lock
  // holders keep it for a few dozen instructions (longer only while the owner
  // grows the buffer), so sleeping in the kernel would cost more than it saves.
  // Rejected: std::timed_mutex::try_lock_for. libstdc++ 12 implements it with
  // pthread_mutex_clocklock, which TSan (gcc 12, clang 14) does not intercept:
  // it misses the acquisition and reports false races on everything the lock guards.
  static bool lock_within(std::unique_lock<Mutex>& lock, std::chrono::nanoseconds timeout) {
    if (timeout <= std::chrono::nanoseconds::zero()) return false;
    constexpr int kSpins = 64;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (int tries = 0;; ++tries) {
      if (tries < kSpins) Sync::spin_pause();
      else std::this_thread::yield();
      if (lock.try_lock()) return true;
      if (std::chrono::steady_clock::now() >= deadline) return false;
    }
  }

  // Caller holds the lock.
  Steal<T> steal_locked() {
    const Index h = head_.value.load(std::memory_order::relaxed);  // only lock holders write head
    // Fast empty test, so idle thieves do not disturb head. acquire: [WSQ-push].
    // A transient tail (owner mid-pop) may say empty; then the owner takes item h.
    if (h >= tail_.value.load(std::memory_order::acquire)) return Steal<T>::empty();
    // [WSQ-steal-xchg] seq_cst: claim h before reading tail; pairs with
    // [WSQ-pop-xchg]. Also [WSQ-reuse] release (earlier thieves' slot reads).
    head_.value.exchange(h + 1, std::memory_order::seq_cst);
    // [WSQ-steal-xchg] seq_cst; its acquire also completes [WSQ-push].
    if (h < tail_.value.load(std::memory_order::seq_cst)) return Steal<T>::success(buffer_->get(h));
    // The owner is popping item h: give it back. [WSQ-reuse] release: this value
    // may be what push reads; it must carry the earlier thieves' slot reads too.
    head_.value.store(h, std::memory_order::release);
    return Steal<T>::empty();
  }

  // Owner, holding the lock: no thief is reading any slot.
  void grow(Index h, Index t) {
    auto bigger = std::make_unique<Buffer>((buffer_->mask + 1) * 2);
    for (Index i = h; i < t; ++i) bigger->put(i, buffer_->get(i));
    buffer_ = std::move(bigger);  // the old buffer has no reader left: free it now
  }

  // Shared: written by lock holders (thieves; XCHG and put-back), read by the owner.
  detail::Padded<Atomic<Index>> head_{};
  // Shared: written by the owner only, read by thieves.
  detail::Padded<Atomic<Index>> tail_{};
  // Replaced by the owner under the lock; read by the owner anywhere and by
  // thieves under the lock, so a plain pointer has no data race.
  alignas(detail::kCacheLine) std::unique_ptr<Buffer> buffer_;
  // Thieves' lock; the owner takes it to grow and to settle the last item.
  alignas(detail::kCacheLine) Mutex mutex_;
};

}  // namespace stealpool

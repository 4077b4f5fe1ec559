// stealpool/queue/injector.hpp: Injector<T>, the unbounded lock-free MPMC queue
// through which threads outside the pool hand work to it.
//
// Who may call what: every member is safe from any number of threads at once,
// except the destructor.
//   push / push_batch        producers; throw only std::bad_alloc (a block per 255
//                            items: a retired one if kept, else a new one)
//   steal / steal_batch_and_pop   consumers; FIFO
//   size_hint, empty_hint     any thread; snapshots
//
// Layout: a linked list of blocks of kBlockSlots slots. Producers claim positions
// at the tail with one CAS per batch, consumers claim positions at the head with
// one CAS per batch, so a batch of 256 costs about two CASes, not 256. A block is
// retired by the consumer whose reads complete it (a per-block count of slots
// read) into a small cache of blocks that producers take before they allocate
// (block_cache.hpp; up to 64 KiB of blocks are kept).
// Cost of push: one CAS on the tail index and a release store per word written.
//
// FIFO, with one caveat: a consumer that claimed a slot whose producer has
// claimed but not yet written it waits for that producer (a few instructions,
// unless the producer is descheduled in between).
//
// The protocol and why it cannot lose, duplicate or use-after-free an item:
// queue/README.md, section "Injector". Tags like [INJ-claim] name its pairs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <thread>

#include "stealpool/platform/cache_line.hpp"
#include "stealpool/platform/sync.hpp"
#include "stealpool/queue/atomic_slot.hpp"
#include "stealpool/queue/block_cache.hpp"
#include "stealpool/queue/chase_lev_deque.hpp"
#include "stealpool/queue/steal.hpp"

namespace stealpool {

// Lap: positions per block (Lap - 1 slots and the marker). Cached: retired blocks
// kept for reuse (0: as many as fit in 64 KiB). The model checks
// (tests/model/injector_model.cpp) use tiny laps and caches to reach block
// boundaries and reuse.
template <class T, class Sync = detail::StdSync, std::uint64_t Lap = 256, std::size_t Cached = 0>
class Injector {
  static_assert(Lap >= 2, "a block needs a slot and the marker");

  template <class U>
  using Atomic = typename Sync::template atomic<U>;

 public:
  // A lap of positions per block: offsets 0..kBlockSlots-1 are slots, offset
  // kBlockSlots is the marker "this block is full and its successor is being
  // installed" (see [INJ-marker]).
  static constexpr std::uint64_t kLap = Lap;
  static constexpr std::uint64_t kBlockSlots = kLap - 1;

  Injector() {
    Block* first = new Block;
    head_block_.value.store(first, std::memory_order::relaxed);  // not shared yet
    tail_block_.value.store(first, std::memory_order::relaxed);  // not shared yet
  }

  Injector(const Injector&) = delete;
  Injector& operator=(const Injector&) = delete;

  // Frees the blocks. Items still queued are discarded without being visited:
  // drain first (steal() until empty) if they own resources.
  ~Injector() {
    Block* b = head_block_.value.load(std::memory_order::relaxed);  // single-threaded now
    while (b != nullptr) {
      Block* next = b->next.load(std::memory_order::relaxed);
      delete b;
      b = next;
    }
  }

  void push(const T& item) { push_batch(std::span<const T>(&item, 1)); }

  // Pushes all items, in order. Each block's worth is claimed with one CAS.
  // Throws std::bad_alloc if a new block cannot be allocated; then the items
  // before it are queued, the rest are not, and `*queued` (if given) says how
  // many were queued, so the caller can account for exactly those.
  void push_batch(std::span<const T> items, std::size_t* queued = nullptr) {
    if (queued != nullptr) *queued = 0;
    Block* spare = nullptr;  // pre-allocated successor, kept across CAS retries
    std::uint32_t spins = 0;
    std::uint64_t tail = tail_.value.load(std::memory_order::acquire);  // [INJ-marker]
    Block* block = tail_block_.value.load(std::memory_order::acquire);  // [INJ-marker]
    while (!items.empty()) {
      const std::uint64_t offset = tail % kLap;
      if (offset == kBlockSlots) {  // another producer is installing the next block
        backoff(spins);
        tail = tail_.value.load(std::memory_order::acquire);
        block = tail_block_.value.load(std::memory_order::acquire);
        continue;
      }
      std::uint64_t n = kBlockSlots - offset;
      if (n > items.size()) n = items.size();
      const bool fills_block = offset + n == kBlockSlots;
      if (fills_block && spare == nullptr) spare = fresh_block();
      // [INJ-claim] positions [tail, tail + n) become ours. Its acquire continues
      // the release sequence of [INJ-marker] (so `block` is this lap's); its
      // release orders our earlier writes for consumers that read tail. seq_cst,
      // not only acq_rel: this CAS is also the producer's publishing step in
      // [SLEEP-dekker] (a sleeper's re-check reads tail, empty_hint()), so that
      // the pool's wake-up check after a push needs no fence
      // (SleepRegistry::notify_after_seq_cst_rmw). The same instruction on x86.
      if (!tail_.value.compare_exchange_weak(tail, tail + n, std::memory_order::seq_cst,
                                             std::memory_order::acquire)) {
        block = tail_block_.value.load(std::memory_order::acquire);  // [INJ-marker]
        continue;
      }
      if (fills_block) {
        // We took the block's last slot: install the successor. The block is alive
        // because our own slots are not yet written, so no consumer can finish it.
        Block* next = spare;
        spare = nullptr;
        block->next.store(next, std::memory_order::release);  // [INJ-next] for wait_next()
        tail_block_.value.store(next, std::memory_order::release);  // [INJ-marker]
        // [INJ-marker] release: publishes tail_block_ before producers leave the marker.
        tail_.value.store(tail + n + 1, std::memory_order::release);
      }
      for (std::uint64_t i = 0; i < n; ++i) block->slots[offset + i].write(items[i]);
      // The block may be freed from here on: do not touch it again.
      items = items.subspan(n);
      if (queued != nullptr) *queued += n;
      if (!items.empty()) {
        tail = tail_.value.load(std::memory_order::acquire);  // [INJ-marker]
        block = tail_block_.value.load(std::memory_order::acquire);  // [INJ-marker]
      }
    }
    if (spare != nullptr) cache_.give(spare);  // never published
  }

  // Takes the oldest item.
  Steal<T> steal() { return take(static_cast<NoDest*>(nullptr), 1); }

  // The default batch of steal_batch_and_pop.
  static constexpr std::size_t kBatchLimit = 32;

  // Takes up to `limit` of the oldest items (never more than one block's worth),
  // returns the first and pushes the rest onto `dest`, which the caller owns:
  // its own deque, or any buffer with push(const T&) that has room for
  // limit - 1 items.
  template <class Dest>
  Steal<T> steal_batch_and_pop(Dest& dest, std::size_t limit = kBatchLimit) {
    return take(&dest, limit == 0 ? 1 : limit);
  }

  // Any thread; a snapshot of how many items are claimed and not yet taken (some
  // perhaps still being written). For sizing a take, never for deciding emptiness.
  std::size_t size_hint() const noexcept {
    // relaxed, both: a count to size a take by, not a synchronisation; take()
    // orders what it reads.
    const std::uint64_t head = head_.value.load(std::memory_order::relaxed);
    const std::uint64_t tail = tail_.value.load(std::memory_order::relaxed);
    return position(tail) > position(head) ? static_cast<std::size_t>(position(tail) - position(head)) : 0;
  }

  // Any thread; a snapshot. "false" is exact only when no push is in progress.
  // The sleeper's re-check ([SLEEP-dekker]).
  bool empty_hint() const noexcept {
    // relaxed: an older head only makes the queue look non-empty; one newer
    // than the tail read below means the items up to that tail were taken.
    const std::uint64_t head = head_.value.load(std::memory_order::relaxed);
    // [SLEEP-dekker] seq_cst: pairs with the producers' seq_cst [INJ-claim], which
    // is not followed by a fence (engine/sleep/README.md, "Publishing with a
    // seq_cst RMW"). A plain load on x86.
    const std::uint64_t tail = tail_.value.load(std::memory_order::seq_cst);
    return position(head) >= position(tail);
  }

 private:
  // Waits for another thread's few-instruction step (a block install, a slot
  // write): spins briefly, then yields, so that with more threads than cores the
  // waiter does not starve the very thread it waits for.
  static void backoff(std::uint32_t& spins) noexcept {
    if (spins < kSpinsBeforeYield) {
      ++spins;
      Sync::spin_pause();
    } else {
      std::this_thread::yield();
    }
  }
  static constexpr std::uint32_t kSpinsBeforeYield = 64;

  struct Slot {
    detail::AtomicSlot<T, Sync> item;
    Atomic<std::uint32_t> ready{0};  // 0 until the item is written (reset for reuse)

    void write(const T& value) noexcept {
      item.store(value);
      ready.store(1, std::memory_order::release);  // [INJ-ready] publishes item
    }
    T read() const noexcept {
      std::uint32_t spins = 0;
      while (ready.load(std::memory_order::acquire) == 0) backoff(spins);  // [INJ-ready]
      return item.load();
    }
  };

  struct Block {
    Atomic<Block*> next{nullptr};
    Atomic<std::uint64_t> slots_read{0};  // [INJ-free]: reaches kBlockSlots exactly once
    Slot slots[kBlockSlots];

    // Back to a new block's state, by the producer that took it from the cache,
    // before [INJ-next] publishes it ([INJ-reuse]).
    void reset() noexcept {
      next.store(nullptr, std::memory_order::relaxed);
      slots_read.store(0, std::memory_order::relaxed);
      for (Slot& s : slots) s.ready.store(0, std::memory_order::relaxed);
    }

    Block* wait_next() const noexcept {
      std::uint32_t spins = 0;
      for (;;) {
        Block* n = next.load(std::memory_order::acquire);  // [INJ-next]
        if (n != nullptr) return n;
        backoff(spins);
      }
    }
  };

  // Slot positions in claim order: the marker offset counts as the block's end.
  static std::uint64_t position(std::uint64_t index) noexcept {
    const std::uint64_t offset = index % kLap;
    return (index / kLap) * kBlockSlots + (offset < kBlockSlots ? offset : kBlockSlots);
  }

  struct NoDest {
    void push(const T&) noexcept {}
  };

  template <class Dest>
  Steal<T> take(Dest* dest, std::size_t limit) {
    std::uint64_t head = head_.value.load(std::memory_order::acquire);  // [INJ-marker]
    Block* block = head_block_.value.load(std::memory_order::acquire);  // [INJ-marker]
    std::uint32_t spins = 0;
    for (;;) {
      const std::uint64_t offset = head % kLap;
      if (offset == kBlockSlots) {  // another consumer is moving to the next block
        backoff(spins);
        head = head_.value.load(std::memory_order::acquire);
        block = head_block_.value.load(std::memory_order::acquire);
        continue;
      }
      // [INJ-claim] acquire: positions below tail are claimed by producers; we wait
      // for their writes per slot ([INJ-ready]), not here.
      const std::uint64_t tail = tail_.value.load(std::memory_order::acquire);
      if (position(head) >= position(tail)) return Steal<T>::empty();
      std::uint64_t n = position(tail) - position(head);
      if (n > kBlockSlots - offset) n = kBlockSlots - offset;  // stay inside this block
      if (n > limit) n = limit;
      const bool finishes_block = offset + n == kBlockSlots;
      // [INJ-claim] acq_rel: acquire continues [INJ-marker]'s release sequence, so
      // `block` is the block of `head`'s lap once this CAS succeeds. Strong, not
      // weak: a spurious failure would report `retry` with no race lost (found by
      // the Relacy check, tests/model/injector_model.cpp).
      if (!head_.value.compare_exchange_strong(head, head + n, std::memory_order::acq_rel,
                                               std::memory_order::acquire))
        return Steal<T>::retry();  // another consumer moved head: report the lost race

      if (finishes_block) {
        Block* next = block->wait_next();  // alive: our slots are unread
        head_block_.value.store(next, std::memory_order::release);  // [INJ-marker]
        head_.value.store(head + n + 1, std::memory_order::release);  // [INJ-marker]
      }
      T first = block->slots[offset].read();
      // n > 1 only with a dest (steal() passes limit 1); the test also tells g++.
      if (dest != nullptr)
        for (std::uint64_t i = 1; i < n; ++i) dest->push(block->slots[offset + i].read());
      // [INJ-free] acq_rel: our reads happen before the delete by whoever completes
      // the count, and we see every other reader's reads if it is us.
      if (block->slots_read.fetch_add(n, std::memory_order::acq_rel) + n == kBlockSlots)
        cache_.give(block);  // [INJ-reuse]: ours alone now, every slot read
      return Steal<T>::success(first);
    }
  }

  // A block for a producer to install: a retired one, reset ([INJ-reuse]), or a
  // new one.
  Block* fresh_block() {
    if (Block* b = cache_.take()) {
      b->reset();
      return b;
    }
    return new Block;
  }

  static constexpr std::size_t kCached = Cached != 0 ? Cached : std::max<std::size_t>(1, 65536 / sizeof(Block));

  // Shared: consumers CAS it. head_block_ changes only while head_ is at a marker.
  detail::Padded<Atomic<std::uint64_t>> head_{};
  detail::Padded<Atomic<Block*>> head_block_{};
  // Shared: producers CAS it. tail_block_ changes only while tail_ is at a marker.
  detail::Padded<Atomic<std::uint64_t>> tail_{};
  detail::Padded<Atomic<Block*>> tail_block_{};
  // Shared: retired blocks waiting for a producer ([INJ-reuse]).
  alignas(detail::kCacheLine) detail::BlockCache<Block, kCached, Sync> cache_;
};

}  // namespace stealpool

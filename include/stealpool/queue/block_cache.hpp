// stealpool/queue/block_cache.hpp: BlockCache<Block, K>, up to K retired blocks
// kept for reuse, so that a queue whose producer and consumers are different
// threads does not pass one malloc'd block per lap through the allocator.
//
// Who may call what: give() and take() from any number of threads at once; the
// destructor alone. Each of the K slots is a one-item mailbox: give() moves a
// block into an empty slot with a CAS (null -> block), take() empties a full slot
// with an exchange (block -> null). A block is in at most one slot, and only the
// thread whose CAS put it there or whose exchange took it out owns it, so there is
// no ABA: nothing is compared against an old pointer except null.
//
// [CACHE-handoff]: give()'s CAS is a release, take()'s exchange an acquire, so
// what the giver wrote to the block (Injector resets it) and everything that
// happened before (through [INJ-free], every reader's reads of the block) happens
// before the taker's writes. Scans begin with a relaxed load per slot: a stale
// view only makes give() free a block it could have kept, or take() allocate one
// it could have reused.
//
// Why: Injector's blocks were allocated by producers and freed by consumers. In
// glibc the free of another thread's 2 KiB chunk takes the arena lock that the
// producer's next malloc needs, and freeing a run of blocks trims the heap that
// the next run faults in again page by page; a lone worker fed in batches of 256
// spent most of its producer's time there (queue/README.md, "Block reuse").
#pragma once

#include <cstddef>

#include "stealpool/platform/sync.hpp"

namespace stealpool::detail {

template <class Block, std::size_t K, class Sync = StdSync>
class BlockCache {
  static_assert(K >= 1);
  template <class U>
  using Atomic = typename Sync::template atomic<U>;

 public:
  BlockCache() = default;
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;
  ~BlockCache() {
    for (auto& slot : slots_) delete slot.load(std::memory_order::relaxed);  // single-threaded now
  }

  // Keeps `b` (owned by the caller alone, in the state a taker expects) if a slot
  // is free; otherwise frees it.
  void give(Block* b) noexcept {
    for (auto& slot : slots_) {
      if (slot.load(std::memory_order::relaxed) != nullptr) continue;
      Block* empty = nullptr;
      // [CACHE-handoff] release: publishes the caller's writes to the taker.
      if (slot.compare_exchange_strong(empty, b, std::memory_order::release, std::memory_order::relaxed)) return;
    }
    delete b;
  }

  // A kept block, now the caller's alone, or nullptr if none is kept.
  Block* take() noexcept {
    for (auto& slot : slots_) {
      if (slot.load(std::memory_order::relaxed) == nullptr) continue;
      // [CACHE-handoff] acquire: pairs with give()'s release CAS.
      if (Block* b = slot.exchange(nullptr, std::memory_order::acquire)) return b;
    }
    return nullptr;
  }

 private:
  Atomic<Block*> slots_[K]{};
};

}  // namespace stealpool::detail

// stealpool/forkjoin/job_arena.hpp: per-worker storage for TaskGroup jobs, so
// that a spawn on a worker costs no call to the allocator.
//
// Each worker of a ThreadPool owns one JobArena. Only the owner allocates from
// it; any worker of the pool may release a block, because the job runs
// wherever it was stolen to. The protocol (forkjoin/README.md, "Job storage"):
//
//   owner allocate:   pop the private free list (plain loads and stores);
//                     empty: take every returned block with one exchange
//                     [ARENA-return]; still empty: carve a new chunk
//   owner release:    push on the private free list
//   other release:    push on the owner's `returned_` stack, a CAS loop
//                     [ARENA-return]
//
// [ARENA-return] The pusher's CAS is a release, the owner's exchange an
// acquire: everything the releasing worker did with the block (ran and
// destroyed the job, wrote `next`) happens before the owner reuses it. Only
// the owner removes blocks, and it removes all of them at once, so the stack
// has no ABA problem: a popped node is never pushed back by the popper while
// another pop is half done.
//
// Lifetime: the arena is the worker's scratch (destroyed when the worker
// thread exits) and frees its chunks then. No block is in use or being
// returned by then: every job runs, and is released, before its task unit
// completes, and a worker exits only after the pool's count of tasks reached
// zero (engine/core/README.md, [LEDGER-bound], [DONE-flag]).
//
// Blocks are fixed-size (kBlockSize, a header and kPayload bytes); a job that
// does not fit, or one spawned from a thread that is not a worker of the
// group's pool, is allocated with operator new; its header says so (no owner).
// Memory held: the largest number of this worker's jobs alive at once, in
// chunks of kBlocksPerChunk, until the pool is destroyed.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

#include "stealpool/platform/sync.hpp"

namespace stealpool::detail {

// Sync: the atomics policy (platform/sync.hpp; tests/model/job_arena_model.cpp
// checks [ARENA-return] with Relacy's). BlocksPerChunk: blocks carved at once
// (the model uses 2, so that a block comes back within a few allocations).
template <class Sync = StdSync, std::size_t BlocksPerChunk = 64>
class BasicJobArena {
 public:
  static constexpr std::size_t kBlockSize = 128;
  static constexpr std::size_t kAlign = 16;
  static constexpr std::size_t kBlocksPerChunk = BlocksPerChunk;

 private:
  struct Block;
  // Before every payload: who gets the block back (nullptr: operator new's),
  // and the free-list link while the block is free.
  struct alignas(kAlign) Header {
    BasicJobArena* owner;
    Block* next;
  };

 public:
  static constexpr std::size_t kPayload = kBlockSize - sizeof(Header);

  // Whether a job of this size and alignment may live in an arena block.
  static constexpr bool fits(std::size_t size, std::size_t align) noexcept {
    return size <= kPayload && align <= kAlign;
  }

  BasicJobArena() = default;
  BasicJobArena(const BasicJobArena&) = delete;
  BasicJobArena& operator=(const BasicJobArena&) = delete;

  // Owner only. Storage for kPayload bytes aligned to kAlign. Throws
  // std::bad_alloc only when a new chunk is needed and cannot be had.
  void* allocate() {
    if (free_ == nullptr) {
      // [ARENA-return] acquire: pairs with release_remote()'s release CAS.
      free_ = returned_.load(std::memory_order::relaxed) == nullptr
                  ? nullptr
                  : returned_.exchange(nullptr, std::memory_order::acquire);
      if (free_ == nullptr) add_chunk();
    }
    Block* b = free_;
    free_ = b->header.next;
    return b->payload;  // header.owner was set when the block was carved
  }

  // Any thread: storage of `size` bytes (alignment <= kAlign) from the heap,
  // for a job that does not fit or has no arena. Throws std::bad_alloc.
  static void* allocate_heap(std::size_t size) {
    auto* h = static_cast<Header*>(::operator new(sizeof(Header) + size, std::align_val_t{kAlign}));
    h->owner = nullptr;
    return h + 1;
  }

  // Gives back storage from allocate() or allocate_heap(). `current` is the
  // arena of the worker calling (nullptr on other threads). The job in it must
  // have been destroyed.
  static void release(void* payload, BasicJobArena* current) noexcept {
    Header* h = static_cast<Header*>(payload) - 1;
    BasicJobArena* owner = h->owner;
    if (owner == nullptr) {
      ::operator delete(h, std::align_val_t{kAlign});
      return;
    }
    Block* b = reinterpret_cast<Block*>(h);  // the header is a Block's first member
    if (owner == current) {
      b->header.next = owner->free_;
      owner->free_ = b;
    } else {
      owner->release_remote(b);
    }
  }

  // Blocks carved so far (a test and metrics view; owner thread, or after the
  // pool is quiet).
  std::size_t blocks() const noexcept { return chunks_.size() * kBlocksPerChunk; }

 private:
  struct Block {
    Header header;
    alignas(kAlign) unsigned char payload[kPayload];
  };
  static_assert(sizeof(Block) == kBlockSize, "a block is one header and one payload");

  struct Chunk {
    alignas(kAlign) Block blocks[kBlocksPerChunk];
  };

  void add_chunk() {
    // May throw: nothing has changed yet. Geometric growth: one reallocation
    // per doubling, not per chunk.
    if (chunks_.size() == chunks_.capacity()) chunks_.reserve(chunks_.empty() ? 8 : 2 * chunks_.size());
    auto chunk = std::make_unique<Chunk>();
    // A block belongs to this arena for good: its owner is written once, here,
    // not at every allocate(); release() sends it back here whoever frees it.
    for (std::size_t i = 0; i < kBlocksPerChunk; ++i) {
      chunk->blocks[i].header.owner = this;
      chunk->blocks[i].header.next = i + 1 < kBlocksPerChunk ? &chunk->blocks[i + 1] : nullptr;
    }
    free_ = &chunk->blocks[0];
    chunks_.push_back(std::move(chunk));  // capacity reserved: does not throw
  }

  void release_remote(Block* b) noexcept {
    Block* head = returned_.load(std::memory_order::relaxed);
    do {
      b->header.next = head;
      // [ARENA-return] release on success: publishes the block (its `next` and
      // the finished job) to the owner's acquire exchange.
    } while (!returned_.compare_exchange_weak(head, b, std::memory_order::release, std::memory_order::relaxed));
  }

  // Owner-private: the free list and the chunks.
  Block* free_ = nullptr;
  std::vector<std::unique_ptr<Chunk>> chunks_;
  // Shared: blocks other workers gave back. Its own cache line, away from the
  // owner's list, which every spawn touches.
  alignas(64) typename Sync::template atomic<Block*> returned_{nullptr};
};

using JobArena = BasicJobArena<>;

}  // namespace stealpool::detail

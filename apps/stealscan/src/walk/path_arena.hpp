// path_arena.hpp: PathArena and PathBlock, where a walking thread keeps the paths
// of the files it hands out: appended to 64 KiB blocks, NUL-terminated (ready for open()),
// instead of one allocation per file. A file task holds {pointer, length, block}.
//
// A block counts its references: one per file task pointing into it, plus one for
// the arena while it still appends to it. The last release frees it
// ([SCAN-path-release] in apps/stealscan/docs/design.md).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace stealscan {

class PathBlock {
 public:
  // Drops one reference; frees the block with the last. acq_rel
  // [SCAN-path-release]: a task's reads of its path happen before the free, and
  // the thread that frees sees every other holder done with the block.
  static void release(PathBlock* b) noexcept {
    if (b->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete b;
  }

 private:
  friend class PathArena;
  explicit PathBlock(std::size_t capacity) : data_(std::make_unique<char[]>(capacity)), capacity_(capacity) {}

  std::unique_ptr<char[]> data_;
  std::size_t capacity_;
  std::size_t used_ = 0;                // the owning arena's thread only
  std::atomic<std::uint32_t> refs_{1};  // the arena's own while current
};

struct PathRef {
  const char* path;  // NUL-terminated
  std::uint32_t length;
  PathBlock* block;
};

// Its owner thread only (each worker that walks has one, in its WalkScratch).
class PathArena {
 public:
  static constexpr std::size_t kBlockSize = 64 * 1024;

  PathArena() = default;
  PathArena(const PathArena&) = delete;
  PathArena& operator=(const PathArena&) = delete;
  // Moved with its owner's scratch, before any thread shares a block of it.
  PathArena(PathArena&& other) noexcept : current_(other.current_) { other.current_ = nullptr; }
  PathArena& operator=(PathArena&&) = delete;
  ~PathArena() { seal(); }

  // Copies `path` in and takes a reference for the task that will hold it. The
  // increment is relaxed: the spawn that hands the task to a worker publishes it.
  PathRef add(std::string_view path) {
    const std::size_t need = path.size() + 1;
    if (current_ == nullptr || current_->capacity_ - current_->used_ < need) {
      seal();
      current_ = new PathBlock(need > kBlockSize ? need : kBlockSize);
    }
    char* at = current_->data_.get() + current_->used_;
    std::memcpy(at, path.data(), path.size());
    at[path.size()] = '\0';
    current_->used_ += need;
    current_->refs_.fetch_add(1, std::memory_order_relaxed);
    return PathRef{at, static_cast<std::uint32_t>(path.size()), current_};
  }

  // Gives up the current block (its tasks keep it alive until they are done).
  void seal() noexcept {
    if (current_ != nullptr) PathBlock::release(current_);
    current_ = nullptr;
  }

 private:
  PathBlock* current_ = nullptr;
};

}  // namespace stealscan

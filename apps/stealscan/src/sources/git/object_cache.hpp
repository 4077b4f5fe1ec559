// object_cache.hpp: ObjectCache, the pack reader's memory of the objects it
// rebuilt last, by place in the pack: read in pack order, a delta's base was
// usually rebuilt just before, and is taken from here instead of inflated
// again down its chain (README.md, "Reading objects").
#pragma once

#include <git2.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sources/git/bytes.hpp"
#include "sources/git/pack_file.hpp"

namespace stealscan::git {

// First in, first out, bounded by a number of objects and a number of bytes;
// an object over a quarter of the bytes is not kept. Not thread-safe: one per
// worker.
class ObjectCache {
 public:
  struct Object {
    git_object_t type = GIT_OBJECT_INVALID;
    Bytes bytes;
  };

  ObjectCache(std::size_t slots, std::size_t max_bytes);

  // The object at `at`, or null. Valid until the next put().
  [[nodiscard]] const Object* find(PackLocation at) const;

  // Keeps `bytes` (taken: it is left holding a buffer to reuse) as the object
  // at `at`, evicting the oldest as needed; returns where it now lives, or
  // null if it is not kept (too large: `bytes` is left as it was).
  const Object* put(PackLocation at, git_object_t type, Bytes& bytes);

 private:
  struct Slot {
    PackLocation at{};
    bool used = false;
    Object object;
  };
  void evict(Slot& s);

  std::vector<Slot> slots_;
  std::size_t next_ = 0;   // the oldest slot: the next one overwritten
  std::size_t bytes_ = 0;  // held in used slots
  std::size_t max_bytes_;
  std::unordered_map<PackLocation, std::size_t, PackLocationHash, SamePackLocation> where_;  // -> slot
};

}  // namespace stealscan::git

// object_cache.cpp: ObjectCache (object_cache.hpp).
#include "sources/git/object_cache.hpp"

#include <utility>

namespace stealscan::git {
namespace {

// An evicted slot keeps its buffer for the next object up to this capacity
// (most blobs are smaller): no malloc and no fresh pages per object, while a
// few huge blobs do not stay allocated in every slot they passed through.
constexpr std::size_t kKeepCapacity = std::size_t{64} << 10;

}  // namespace

ObjectCache::ObjectCache(std::size_t slots, std::size_t max_bytes) : slots_(slots), max_bytes_(max_bytes) {
  where_.reserve(slots);
}

const ObjectCache::Object* ObjectCache::find(PackLocation at) const {
  const auto it = where_.find(at);
  return it == where_.end() ? nullptr : &slots_[it->second].object;
}

void ObjectCache::evict(Slot& s) {
  if (!s.used) return;
  where_.erase(s.at);
  bytes_ -= s.object.bytes.size();
  s.used = false;
  if (s.object.bytes.capacity() > kKeepCapacity) s.object.bytes.release();
}

const ObjectCache::Object* ObjectCache::put(PackLocation at, git_object_t type, Bytes& bytes) {
  if (slots_.empty() || bytes.size() > max_bytes_ / 4 || where_.count(at) != 0) return nullptr;
  Slot& s = slots_[next_];
  evict(s);
  // Then the next oldest, until the new object fits; ends, since an empty
  // cache has room for it.
  for (std::size_t i = (next_ + 1) % slots_.size(); bytes_ + bytes.size() > max_bytes_; i = (i + 1) % slots_.size())
    evict(slots_[i]);
  s.object.bytes.swap(bytes);
  bytes.clear();
  s.object.type = type;
  s.at = at;
  s.used = true;
  bytes_ += s.object.bytes.size();
  where_.emplace(at, next_);
  next_ = (next_ + 1) % slots_.size();
  return &s.object;
}

}  // namespace stealscan::git

// bytes.hpp: Bytes, the pack reader's byte buffer: like a std::string that
// does not zero what it grows by (resize() does, and every buffer here is
// written whole right after: an inflated entry, a delta's result), and keeps
// its memory across objects.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string_view>
#include <utility>

namespace stealscan::git {

class Bytes {
 public:
  [[nodiscard]] char* data() noexcept { return data_.get(); }
  [[nodiscard]] const char* data() const noexcept { return data_.get(); }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] std::string_view view() const noexcept { return {data_.get(), size_}; }

  // Size `n`, the contents unspecified: the caller overwrites them all. Grows
  // by half again at least, so a buffer reused for objects of varying sizes
  // soon stops allocating.
  void resize_for_overwrite(std::size_t n) {
    if (n > capacity_) {
      const std::size_t cap = std::max(n, capacity_ + capacity_ / 2);
      data_ = std::make_unique_for_overwrite<char[]>(cap);
      capacity_ = cap;
    }
    size_ = n;
  }
  void clear() noexcept { size_ = 0; }
  void release() noexcept {
    data_.reset();
    size_ = capacity_ = 0;
  }
  void swap(Bytes& o) noexcept {
    data_.swap(o.data_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
  }

 private:
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace stealscan::git

// scan_window.cpp: ScanWindow (scan_window.hpp).
#include "sources/scan_window.hpp"

#include <cstring>
#include <new>

namespace stealscan {
namespace {
constexpr std::size_t kMinCapacity = 4096;
constexpr std::uint64_t kLongLineStep = std::uint64_t{256} << 20;  // see refill()
}

ScanWindow::ScanWindow(std::size_t block, std::size_t overlap) : block_(block), overlap_(overlap) {}

std::size_t ScanWindow::normal_capacity() const noexcept {
  // What stays (a partial line shorter than a block, or the overlap) plus one
  // read (a block, or a chunk's last block and a tail read).
  return (block_ > overlap_ ? block_ : overlap_) + block_ + kTailRead;
}

void ScanWindow::reserve(std::size_t needed) {
  if (needed <= capacity_) return;
  // Doubling from kMinCapacity; up to the normal capacity only when that is enough.
  std::size_t cap = capacity_ < kMinCapacity ? kMinCapacity : capacity_;
  while (cap < needed) cap *= 2;
  const std::size_t normal = normal_capacity();
  if (capacity_ < normal && cap > normal && needed <= normal) cap = normal;
  char* p = static_cast<char*>(std::realloc(data_.get(), cap + kPadding));
  if (p == nullptr) throw std::bad_alloc();
  static_cast<void>(data_.release());  // realloc took it
  data_.reset(p);
  std::memset(p + cap, 0, kPadding);
  capacity_ = cap;
}

void ScanWindow::reset(std::uint64_t offset) {
  if (capacity_ > 2 * normal_capacity()) {
    data_.reset();
    capacity_ = 0;
  }
  offset_ = offset;
  size_ = 0;
  eof_ = false;
}

std::size_t ScanWindow::refill(ByteSource& src, std::size_t keep, std::size_t n) {
  const std::size_t left = size_ - keep;
  if (keep != 0) std::memmove(data_.get(), data_.get() + keep, left);
  offset_ += keep;
  size_ = left;
  const std::uint64_t at = offset_ + size_;
  const std::uint64_t hint = src.size_hint();
  if (at < hint && hint - at < n) n = static_cast<std::size_t>(hint - at) + 1;  // +1: see the end
  // A partial line that outgrew twice the normal window (a regex holds long
  // lines whole) grows by kLongLineStep or eightfold, whichever is more, and no
  // further than what is left of the file (the line cannot be longer):
  // doubling copied a 100 MB line about six times (jemalloc moves a large block
  // to grow it), and growing to the rest of a large file at once would reserve
  // gigabytes for one long line. Untouched bytes cost no memory.
  if (left + n > capacity_ && left > 2 * normal_capacity() && at < hint && hint - at > n) {
    const std::uint64_t rest = hint - at + 1;
    std::uint64_t step = std::uint64_t{8} * left;
    if (step < kLongLineStep) step = kLongLineStep;
    reserve(left + static_cast<std::size_t>(rest < step ? rest : step));
  }
  reserve(left + n);
  const std::size_t r = src.read_at(at, data_.get() + size_, n);
  size_ += r;
  eof_ = r == 0 || (r < n && offset_ + size_ >= hint);
  return r;
}

}  // namespace stealscan

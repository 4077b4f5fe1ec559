// scan_window.cpp: ScanWindow (scan_window.hpp).
#include "sources/scan_window.hpp"

#include <cstring>

namespace stealscan {
namespace {
constexpr std::size_t kPadding = 64;  // never read; keeps a stray vector load in bounds
}

ScanWindow::ScanWindow(std::size_t block, std::size_t overlap) : block_(block), overlap_(overlap) {
  allocate(normal_capacity());
}

std::size_t ScanWindow::normal_capacity() const noexcept {
  // What stays (a partial line shorter than a block, or the overlap) plus one
  // read (a block, or a chunk's last block and a tail read).
  return (block_ > overlap_ ? block_ : overlap_) + block_ + kTailRead;
}

void ScanWindow::allocate(std::size_t capacity) {
  data_ = std::make_unique<char[]>(capacity + kPadding);
  capacity_ = capacity;
}

void ScanWindow::reset(std::uint64_t offset) {
  if (capacity_ > 2 * normal_capacity()) allocate(normal_capacity());
  offset_ = offset;
  size_ = 0;
  eof_ = false;
}

std::size_t ScanWindow::refill(ByteSource& src, std::size_t keep, std::size_t n) {
  const std::size_t left = size_ - keep;
  if (left + n > capacity_) {
    std::size_t cap = capacity_ * 2;
    while (left + n > cap) cap *= 2;
    auto bigger = std::make_unique<char[]>(cap + kPadding);
    std::memcpy(bigger.get(), data_.get() + keep, left);
    data_ = std::move(bigger);
    capacity_ = cap;
  } else if (keep != 0) {
    std::memmove(data_.get(), data_.get() + keep, left);
  }
  offset_ += keep;
  size_ = left;
  const std::size_t r = src.read_at(offset_ + size_, data_.get() + size_, n);
  size_ += r;
  eof_ = r == 0 || (r < n && offset_ + size_ >= src.size_hint());
  return r;
}

}  // namespace stealscan

// scan_window.cpp: ScanWindow (scan_window.hpp).
#include "sources/scan_window.hpp"

#include <cstring>
#include <new>
#include <utility>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace stealscan {
namespace {
constexpr std::size_t kMinCapacity = 4096;
constexpr std::uint64_t kLongLineStep = std::uint64_t{256} << 20;  // see refill()

std::size_t page_size() noexcept {
  static const std::size_t size = [] {
    const long p = ::sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<std::size_t>(p) : std::size_t{4096};
  }();
  return size;
}
}  // namespace

ScanWindow::ScanWindow(std::size_t block, std::size_t overlap, bool map_long_lines)
    : block_(block), overlap_(overlap), map_long_lines_(map_long_lines) {}

ScanWindow::~ScanWindow() { unmap(); }

ScanWindow::ScanWindow(ScanWindow&& other) noexcept
    : block_(other.block_),
      overlap_(other.overlap_),
      map_long_lines_(other.map_long_lines_),
      heap_(std::move(other.heap_)),
      capacity_(std::exchange(other.capacity_, 0)),
      mapped_(std::exchange(other.mapped_, false)),
      map_(std::exchange(other.map_, nullptr)),
      map_length_(std::exchange(other.map_length_, 0)),
      view_(std::exchange(other.view_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      offset_(other.offset_),
      eof_(other.eof_) {}

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
  char* p = static_cast<char*>(std::realloc(heap_.get(), cap + kPadding));
  if (p == nullptr) throw std::bad_alloc();
  static_cast<void>(heap_.release());  // realloc took it
  heap_.reset(p);
  std::memset(p + cap, 0, kPadding);
  capacity_ = cap;
}

void ScanWindow::unmap() noexcept {
  if (!mapped_) return;
  ::munmap(map_, map_length_);
  mapped_ = false;
  map_ = view_ = nullptr;
  map_length_ = 0;
}

void ScanWindow::reset(std::uint64_t offset) {
  unmap();
  if (capacity_ > 2 * normal_capacity()) {
    heap_.reset();
    capacity_ = 0;
  }
  offset_ = offset;
  size_ = 0;
  eof_ = false;
}

bool ScanWindow::map_rest(ByteSource& src, std::size_t keep) {
  const int fd = src.mappable_fd();
  struct stat st {};
  if (!map_long_lines_ || fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const std::uint64_t from = offset_ + keep;  // the window's first byte once keep is dropped
  const auto end = static_cast<std::uint64_t>(st.st_size);
  if (end < offset_ + size_) return false;  // the file shrank: let the reads say so
  const std::size_t page = page_size();
  const std::uint64_t start = from - from % page;  // a mapping starts on a page
  const std::uint64_t file_bytes = end - start;
  if (file_bytes > SIZE_MAX - 2 * page) return false;
  // The file's pages, then zero pages for the padding: reserve the whole range
  // anonymously, then map the file over its start. The bytes after the end of
  // the file in its last page read as zeros too.
  const std::size_t total = static_cast<std::size_t>((file_bytes + kPadding + page - 1) / page * page);
  void* area = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED) return false;
  if (file_bytes > 0 &&
      ::mmap(area, static_cast<std::size_t>(file_bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd,
             static_cast<off_t>(start)) == MAP_FAILED) {
    ::munmap(area, total);
    return false;
  }
  ::madvise(area, static_cast<std::size_t>(file_bytes), MADV_SEQUENTIAL);
  map_ = static_cast<char*>(area);
  map_length_ = total;
  view_ = map_ + (from - start);
  mapped_ = true;
  offset_ = from;
  size_ = static_cast<std::size_t>(end - from);
  eof_ = true;
  return true;
}

std::size_t ScanWindow::refill(ByteSource& src, std::size_t keep, std::size_t n) {
  if (mapped_) {  // everything to the end of the file is here: only drop
    view_ += keep;
    offset_ += keep;
    size_ -= keep;
    return 0;
  }
  const std::size_t left = size_ - keep;
  const std::uint64_t at = offset_ + size_;
  const std::uint64_t hint = src.size_hint();
  if (at < hint && hint - at < n) n = static_cast<std::size_t>(hint - at) + 1;  // +1: see the end
  // A partial line that outgrew twice the normal window (a regex holds long
  // lines whole) is held by mapping the rest of the file when it can be (see
  // the header); else it grows by kLongLineStep or eightfold, whichever is
  // more, and no further than what is left of the file (the line cannot be
  // longer): doubling copied a 100 MB line about six times (jemalloc moves a
  // large block to grow it), and growing to the rest of a large file at once
  // would reserve gigabytes for one long line. Untouched bytes cost no memory.
  const bool long_line = left + n > capacity_ && left > 2 * normal_capacity() && at < hint && hint - at > n;
  if (long_line) {
    const std::uint64_t before = offset_ + size_;
    if (map_rest(src, keep)) return static_cast<std::size_t>(offset_ + size_ - before);
  }
  if (keep != 0) std::memmove(heap_.get(), heap_.get() + keep, left);
  offset_ += keep;
  size_ = left;
  if (long_line) {
    const std::uint64_t rest = hint - at + 1;
    std::uint64_t step = std::uint64_t{8} * left;
    if (step < kLongLineStep) step = kLongLineStep;
    reserve(left + static_cast<std::size_t>(rest < step ? rest : step));
  }
  reserve(left + n);
  const std::size_t r = src.read_at(at, heap_.get() + size_, n);
  size_ += r;
  eof_ = r == 0 || (r < n && offset_ + size_ >= hint);
  return r;
}

}  // namespace stealscan

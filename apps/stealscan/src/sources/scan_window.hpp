// scan_window.hpp: ScanWindow, one worker's read buffer: a window [offset, offset +
// size) over the file being scanned, slid forward by refill(). Owned by the
// worker's scratch and reused for every file and chunk it scans.
//
// Memory: nothing is allocated until the first read, and a read never asks for
// more than the source's size hint says is left (plus one byte, to see the end),
// so a worker that scans only small files holds a small buffer: -j 4096 over a
// 30-byte file costs kilobytes, not a block per worker. The buffer grows (doubling)
// to the normal capacity as files need it, and past it only for a line that must be
// held whole (regexes, -v, context, a stream): doubling up to twice the normal
// capacity, then by 256 MiB or eightfold, never past what is left of the file
// (each doubling of a 100 MB line was a copy: jemalloc moves a large block to
// grow it). Such a grown buffer is released at the next reset(). It lives in
// malloc'ed memory, so untouched bytes are never written (no zero fill).
//
// A line that outgrows twice the normal window in a file that can be mapped
// (ByteSource::mappable_fd()) is not copied at all: the window maps the rest of
// the file, private and writable (a matcher's padding writes stay ours), with
// anonymous zero pages after its end for the padding, and holds everything to
// the end of the file from then on: a refill only drops bytes. Copying a 100 MB
// line cost more than searching it (page faults on a fresh buffer, then the
// copy), as ripgrep's mapped search showed. A file that shrinks while it is
// mapped would fault (SIGBUS) when the lost bytes are touched, as with any
// mapped search; `map_long_lines` false (--no-mmap) keeps to reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "sources/byte_source.hpp"

namespace stealscan {

class ScanWindow {
 public:
  // Reads past a chunk's end (to finish its last line) start this small.
  static constexpr std::size_t kTailRead = 4096;
  // Bytes allocated past the capacity: a stray vector load stays in bounds,
  // and a matcher may write its padding after a block's end there (and
  // restore it: Matcher::matching_lines_padded()).
  static constexpr std::size_t kPadding = 64;

  // `block`: bytes per read; `overlap`: bytes kept across reads within a long line
  // (the longest pattern - 1); `map_long_lines`: whether a very long line may be
  // held by mapping the rest of its file.
  ScanWindow(std::size_t block, std::size_t overlap, bool map_long_lines = true);
  ~ScanWindow();
  ScanWindow(ScanWindow&& other) noexcept;
  ScanWindow& operator=(ScanWindow&&) = delete;
  ScanWindow(const ScanWindow&) = delete;
  ScanWindow& operator=(const ScanWindow&) = delete;

  [[nodiscard]] char* data() noexcept { return mapped_ ? view_ : heap_.get(); }  // null before the first read
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::uint64_t offset() const noexcept { return offset_; }  // file offset of data()[0]
  [[nodiscard]] bool eof() const noexcept { return eof_; }  // nothing exists past offset() + size()
  [[nodiscard]] std::size_t block() const noexcept { return block_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] bool mapped() const noexcept { return mapped_; }  // the rest of the file is mapped

  // Empties the window and places it at `offset` (releasing a grown buffer).
  void reset(std::uint64_t offset);

  // Drops data()[0, keep), then reads up to n bytes after what is left (fewer when
  // the size hint says the file ends sooner), growing the buffer if they do not
  // fit. Returns the bytes read (or mapped); sets eof() when the read returned 0,
  // or came up short at or past the source's size_hint(), or the rest is mapped.
  std::size_t refill(ByteSource& src, std::size_t keep, std::size_t n);

 private:
  std::size_t normal_capacity() const noexcept;
  void reserve(std::size_t needed);  // capacity_ >= needed, keeping data()[0, size_)
  // Maps the file from offset_ + keep to its end in place of the buffer; false
  // (nothing changed) when the source has no descriptor or the mapping fails.
  bool map_rest(ByteSource& src, std::size_t keep);
  void unmap() noexcept;

  struct Free {
    void operator()(char* p) const noexcept { std::free(p); }
  };

  std::size_t block_;
  std::size_t overlap_;
  bool map_long_lines_;
  std::unique_ptr<char, Free> heap_;
  std::size_t capacity_ = 0;  // of heap_
  // The mapping, when mapped_: [map_, map_ + map_length_), and the window's
  // first byte in it.
  bool mapped_ = false;
  char* map_ = nullptr;
  std::size_t map_length_ = 0;
  char* view_ = nullptr;
  std::size_t size_ = 0;
  std::uint64_t offset_ = 0;
  bool eof_ = false;
};

}  // namespace stealscan

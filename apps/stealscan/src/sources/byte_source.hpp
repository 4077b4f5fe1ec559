// byte_source.hpp: ByteSource, where the line scanner's bytes come from: a file
// (FdSource, pread on a descriptor that chunk tasks of one file share), a stream
// (StreamSource: a pipe, a terminal or standard input, read once from start to
// end) or memory (the tests').
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include <unistd.h>

namespace stealscan {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes at `offset` into dst; returns the count, 0 at end of file.
  // Throws std::system_error on a read error.
  virtual std::size_t read_at(std::uint64_t offset, char* dst, std::size_t n) = 0;
  // The size the file had when it was opened. A short read that reaches it is the
  // end of the file (saves the extra read that would return 0); a short read
  // before it is not.
  [[nodiscard]] virtual std::uint64_t size_hint() const = 0;
  // A descriptor of a regular file whose bytes may be mapped (ScanWindow maps
  // the rest of a file to hold a very long line); -1 when there is none.
  [[nodiscard]] virtual int mappable_fd() const noexcept { return -1; }
};

class FdSource final : public ByteSource {
 public:
  FdSource(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
  std::size_t read_at(std::uint64_t offset, char* dst, std::size_t n) override {
    for (;;) {
      const ssize_t r = ::pread(fd_, dst, n, static_cast<off_t>(offset));
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "read");
    }
  }
  [[nodiscard]] std::uint64_t size_hint() const override { return size_; }
  [[nodiscard]] int mappable_fd() const noexcept override { return fd_; }

 private:
  int fd_;
  std::uint64_t size_;
};

// A descriptor that can only be read forward (a FIFO, a terminal, a socket,
// standard input): each read must start where the last one ended, so one scan
// reads it from start to end and nothing is read back. Its size is unknown: the
// end is the read that returns 0.
class StreamSource final : public ByteSource {
 public:
  explicit StreamSource(int fd) : fd_(fd) {}
  std::size_t read_at(std::uint64_t offset, char* dst, std::size_t n) override {
    if (offset != position_)
      throw std::logic_error("a stream is read from start to end (asked for offset " + std::to_string(offset) +
                             " at " + std::to_string(position_) + ")");
    for (;;) {
      const ssize_t r = ::read(fd_, dst, n);
      if (r >= 0) {
        position_ += static_cast<std::uint64_t>(r);
        return static_cast<std::size_t>(r);
      }
      if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "read");
    }
  }
  [[nodiscard]] std::uint64_t size_hint() const override { return std::numeric_limits<std::uint64_t>::max(); }

 private:
  int fd_;
  std::uint64_t position_ = 0;
};

// Bytes in memory; `max_read` > 0 caps each read, to exercise short reads.
class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view data, std::size_t max_read = 0) : data_(data), max_read_(max_read) {}
  std::size_t read_at(std::uint64_t offset, char* dst, std::size_t n) override {
    if (offset >= data_.size()) return 0;
    std::size_t k = data_.size() - static_cast<std::size_t>(offset);
    if (k > n) k = n;
    if (max_read_ != 0 && k > max_read_) k = max_read_;
    std::memcpy(dst, data_.data() + offset, k);
    return k;
  }
  [[nodiscard]] std::uint64_t size_hint() const override { return data_.size(); }

 private:
  std::string_view data_;
  std::size_t max_read_;
};

}  // namespace stealscan

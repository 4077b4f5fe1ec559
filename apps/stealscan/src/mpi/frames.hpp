// frames.hpp: what a stealscan-mpi worker sends rank 0 (Context::emit), and
// the byte readers and writers of the task and frame formats.
//
// A frame starts with its kind byte:
//   records  a whole file's output records, to be written as they are;
//   chunk    one chunk of a split file: its ChunkResult, which rank 0's
//            SplitAssembler (split_file.hpp) puts in order with the others.
// Integers are in native byte order (ranks run one build on one architecture).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "mpi/file_task.hpp"
#include "scan/fragment.hpp"

namespace stealscan::mpi {

enum class FrameKind : std::uint8_t { records = 1, chunk = 2 };

// What one chunk of a split file leaves: its place, its counts, and (line
// modes) its matching lines, numbered within the chunk.
struct ChunkResult {
  FileKey key;
  std::uint32_t chunk = 0;
  std::uint32_t chunks = 0;
  std::uint64_t size = 0;            // the file's, at the split
  std::uint64_t lines = 0;           // lines the chunk owns (when numbering)
  std::uint64_t matching_lines = 0;
  bool failed = false;               // unreadable: its rank reported it
  std::string path;
  Fragment fragment;
};

// Appends the chunk frame of `r` (its kind byte first) to `out`.
void append_chunk_frame(std::string& out, const ChunkResult& r);
// The ChunkResult of a chunk frame's bytes after the kind byte. Throws
// std::runtime_error, naming what is wrong, on bytes that are not one.
ChunkResult read_chunk_frame(std::span<const std::byte> bytes);

// Appends integers and strings to a byte string.
template <class Bytes>
class ByteWriter {
 public:
  explicit ByteWriter(Bytes& out) : out_(out) {}
  template <class T>
  void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &v, sizeof(T));
  }
  // Its length (8 bytes), then its bytes.
  void put_string(std::string_view s) {
    put<std::uint64_t>(s.size());
    put_bytes(s);
  }
  void put_bytes(std::string_view s) {
    const auto at = out_.size();
    out_.resize(at + s.size());
    if (!s.empty()) std::memcpy(out_.data() + at, s.data(), s.size());
  }

 private:
  Bytes& out_;
};

// Reads them back, throwing std::runtime_error("stealscan-mpi: <what>: ...")
// on reading past the end.
class ByteReader {
 public:
  ByteReader(std::span<const std::byte> bytes, const char* what) : bytes_(bytes), what_(what) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    std::memcpy(&v, take(sizeof(T)).data(), sizeof(T));
    return v;
  }
  std::string get_string() { return rest_string(get<std::uint64_t>()); }
  std::string rest_string(std::uint64_t n) {
    const std::span<const std::byte> b = take(n);
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }
  [[nodiscard]] std::size_t left() const noexcept { return bytes_.size(); }
  [[noreturn]] void fail(const std::string& why) const;

 private:
  std::span<const std::byte> take(std::uint64_t n);
  std::span<const std::byte> bytes_;
  const char* what_;
};

}  // namespace stealscan::mpi

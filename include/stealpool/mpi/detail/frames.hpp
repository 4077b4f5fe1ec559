// stealpool/mpi/detail/frames.hpp: the layout of the data a rank's tasks emit
// for rank 0 (Context::emit, ../README.md "Data for rank 0"): frames, each a
// 4-byte length (native order) and that many bytes, one after another. The
// pool appends them, the protocol cuts a run of them into messages, rank 0's
// pool hands each to the sink: all through these three.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace stealpool::mpi::detail {

using FrameLength = std::uint32_t;

// Appends one frame holding `bytes` (at most FrameLength's range: the caller checks).
inline void append_frame(std::vector<std::byte>& out, std::span<const std::byte> bytes) {
  const auto n = static_cast<FrameLength>(bytes.size());
  const std::size_t at = out.size();
  out.resize(at + sizeof n + n);
  std::memcpy(out.data() + at, &n, sizeof n);
  if (n != 0) std::memcpy(out.data() + at + sizeof n, bytes.data(), n);
}

// Where the frame that starts at `at` ends (the next one starts), capped at the
// run's end for a frame cut short.
inline std::size_t frame_end(std::span<const std::byte> frames, std::size_t at) noexcept {
  if (frames.size() - at < sizeof(FrameLength)) return frames.size();
  FrameLength n = 0;
  std::memcpy(&n, frames.data() + at, sizeof n);
  const std::size_t rest = frames.size() - at - sizeof n;
  return n > rest ? frames.size() : at + sizeof n + n;
}

// Calls f(bytes) for each whole frame of the run, in order; a frame cut short
// (which our own ranks never send) ends the walk.
template <class F>
void for_each_frame(std::span<const std::byte> frames, F&& f) {
  for (std::size_t at = 0; at + sizeof(FrameLength) <= frames.size();) {
    FrameLength n = 0;
    std::memcpy(&n, frames.data() + at, sizeof n);
    at += sizeof n;
    if (n > frames.size() - at) return;
    f(frames.subspan(at, n));
    at += n;
  }
}

}  // namespace stealpool::mpi::detail

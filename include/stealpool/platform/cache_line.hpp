// stealpool/platform/cache_line.hpp: padding so that data written by different
// threads never shares a cache line (false sharing costs a coherence miss per
// write on every core that reads the line).
#pragma once

#include <cstddef>

namespace stealpool::detail {

// 128, not 64: adjacent-line prefetchers on x86 pull lines in pairs, so two hot
// fields 64 bytes apart still interfere (oneTBB and crossbeam pad to 128 too).
inline constexpr std::size_t kCacheLine = 128;

// A value alone on its own cache line(s).
template <class T>
struct alignas(kCacheLine) Padded {
  T value;
};

}  // namespace stealpool::detail

// pair_filter_kernel.hpp: the one pair-filter loop (pair_filter.hpp describes the
// algorithm), a template over the vector operations. Included only by the kernel
// translation units (pair_filter_sse2.cpp, pair_filter_avx2.cpp,
// pair_filter.cpp), each with its own Ops type in an unnamed namespace.
//
// Everything here is in an unnamed namespace on purpose: the AVX2 unit is compiled
// with -mavx2, and an inline function with external linkage shared by both units
// could have its AVX2 copy picked by the linker for the SSE2 path too, which would
// then fault on a CPU without AVX2. For the same reason the loop calls no standard
// library templates (std::min and friends), only memcmp/memcpy/memset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "match/pair_filter.hpp"

namespace stealscan::detail {
namespace {

// Verifies every pattern at candidate start s; see pair_filter.hpp for the order.
inline const char* pair_verify(const PairFilter& f, const char* s, const char* end, std::uint32_t* pattern) {
  for (std::uint32_t k = 0; k < f.count; ++k) {
    // The first byte before memcmp: most candidates are the probe bytes of one
    // pattern meeting by chance, and fail here without a call.
    if (static_cast<std::size_t>(end - s) >= f.length[k] && s[0] == f.data[k][0] &&
        std::memcmp(s, f.data[k], f.length[k]) == 0) {
      *pattern = k;
      return s;
    }
  }
  return nullptr;
}

// One block of Ops::kWidth candidate starts at p (all loads in bounds): the
// candidate bit mask.
template <class Ops>
inline std::uint64_t pair_block(const PairFilter& f, const typename Ops::Vec* v1, const typename Ops::Vec* v2,
                                const char* p) {
  typename Ops::Vec hits = Ops::zero();
  for (std::uint32_t k = 0; k < f.count; ++k)
    hits = Ops::or_(hits, Ops::and_(Ops::eq(Ops::load(p + f.off1[k]), v1[k]), Ops::eq(Ops::load(p + f.off2[k]), v2[k])));
  return Ops::mask(hits);
}

template <class Ops>
const char* pair_find(const PairFilter& f, const char* from, const char* end, std::uint32_t* pattern) {
  constexpr std::size_t kWidth = Ops::kWidth;
  typename Ops::Vec v1[kPairFilterMaxPatterns];
  typename Ops::Vec v2[kPairFilterMaxPatterns];
  for (std::uint32_t k = 0; k < f.count; ++k) {
    v1[k] = Ops::splat(f.byte1[k]);
    v2[k] = Ops::splat(f.byte2[k]);
  }
  // Main loop, two blocks a round (one branch for both: most rounds find
  // nothing): the second block at p + kWidth loads up to p + max_offset +
  // 2 * kWidth - 1 < end. Then single blocks while they fit.
  const char* p = from;
  const std::size_t reach = kWidth + f.max_offset;
  if (static_cast<std::size_t>(end - p) >= reach + kWidth) {
    const char* const last = end - reach - kWidth;
    for (; p <= last; p += 2 * kWidth) {
      std::uint64_t bits = pair_block<Ops>(f, v1, v2, p) | (pair_block<Ops>(f, v1, v2, p + kWidth) << kWidth);
      while (bits != 0) {
        if (const char* r = pair_verify(f, p + __builtin_ctzll(bits), end, pattern)) return r;
        bits &= bits - 1;
      }
    }
  }
  if (static_cast<std::size_t>(end - p) >= reach) {
    const char* const last = end - reach;
    for (; p <= last; p += kWidth) {
      std::uint64_t bits = pair_block<Ops>(f, v1, v2, p);
      while (bits != 0) {
        if (const char* r = pair_verify(f, p + __builtin_ctzll(bits), end, pattern)) return r;
        bits &= bits - 1;
      }
    }
  }
  // Tail: fewer than `reach` bytes left. Copy them into a zero-padded buffer large
  // enough for the blocks' loads, and run the same blocks there; verification stays
  // bounded by the copied length, so the padding never matches.
  const std::size_t left = static_cast<std::size_t>(end - p);
  if (left == 0) return nullptr;
  constexpr std::size_t kTail = 2 * (kWidth + kPairProbeWindow);
  alignas(64) char tail[kTail];
  std::memcpy(tail, p, left);
  std::memset(tail + left, 0, kTail - left);
  for (std::size_t q = 0; q < left; q += kWidth) {
    std::uint64_t bits = pair_block<Ops>(f, v1, v2, tail + q);
    while (bits != 0) {
      const std::size_t j = q + static_cast<std::size_t>(__builtin_ctzll(bits));
      if (j >= left) break;
      if (const char* r = pair_verify(f, tail + j, tail + left, pattern)) return p + (r - tail);
      bits &= bits - 1;
    }
  }
  return nullptr;
}

}  // namespace
}  // namespace stealscan::detail

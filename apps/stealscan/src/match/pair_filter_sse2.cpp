// pair_filter_sse2.cpp: the pair-filter kernel with SSE2 (16 bytes a block), the
// x86-64 baseline: every x86-64 CPU runs it.
#if defined(__x86_64__)
#include <emmintrin.h>

#include "match/pair_filter_kernel.hpp"

namespace stealscan::detail {
namespace {
struct Sse2Ops {
  using Vec = __m128i;
  static constexpr std::size_t kWidth = 16;
  static Vec zero() { return _mm_setzero_si128(); }
  static Vec splat(std::uint8_t b) { return _mm_set1_epi8(static_cast<char>(b)); }
  static Vec load(const char* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
  static Vec eq(Vec a, Vec b) { return _mm_cmpeq_epi8(a, b); }
  static Vec and_(Vec a, Vec b) { return _mm_and_si128(a, b); }
  static Vec or_(Vec a, Vec b) { return _mm_or_si128(a, b); }
  static std::uint64_t mask(Vec v) { return static_cast<std::uint32_t>(_mm_movemask_epi8(v)); }
};
}  // namespace

const char* pair_find_sse2(const PairFilter& f, const char* from, const char* end, std::uint32_t* pattern) {
  return pair_find<Sse2Ops>(f, from, end, pattern);
}
}  // namespace stealscan::detail
#endif

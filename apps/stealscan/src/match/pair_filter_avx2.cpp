// pair_filter_avx2.cpp: the pair-filter kernel with AVX2 (32 bytes a block).
// This unit alone is compiled with -mavx2 (CMakeLists.txt); it runs only where
// pair_find_for_this_cpu() saw the CPU report AVX2 (pair_filter_kernel.hpp says
// why nothing here may leak into the other units).
#if defined(__x86_64__)
#include <immintrin.h>

#include "match/pair_filter_kernel.hpp"

namespace stealscan::detail {
namespace {
struct Avx2Ops {
  using Vec = __m256i;
  static constexpr std::size_t kWidth = 32;
  static Vec zero() { return _mm256_setzero_si256(); }
  static Vec splat(std::uint8_t b) { return _mm256_set1_epi8(static_cast<char>(b)); }
  static Vec load(const char* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static Vec eq(Vec a, Vec b) { return _mm256_cmpeq_epi8(a, b); }
  static Vec and_(Vec a, Vec b) { return _mm256_and_si256(a, b); }
  static Vec or_(Vec a, Vec b) { return _mm256_or_si256(a, b); }
  static std::uint64_t mask(Vec v) { return static_cast<std::uint32_t>(_mm256_movemask_epi8(v)); }
};
}  // namespace

const char* pair_find_avx2(const PairFilter& f, const char* from, const char* end, std::uint32_t* pattern) {
  return pair_find<Avx2Ops>(f, from, end, pattern);
}
}  // namespace stealscan::detail
#endif

// text_classes_avx2.cpp: the block classifier with AVX2 (text_classes.hpp), 32
// bytes a step. This unit alone is compiled with -mavx2 (CMakeLists.txt); it
// runs only where classify_block_for_this_cpu() saw the CPU report AVX2, and
// shares nothing with the other units but declarations.
#if defined(__x86_64__)
#include <immintrin.h>

#include "secrets/detect/text_classes.hpp"

namespace stealscan::secrets::detail {

// Each byte's class is looked up by its two nibbles (vpshufb): a bit of the
// low nibble's entry and of the high nibble's meet for each class member.
// Base64: bit 0 '+' '-' '/' (high 2: low B, D, F); bit 1 digits (high 3: low
// 0-9); bit 2 A-O and a-o (high 4 and 6: low 1-F); bit 3 P-Z and p-z (high 5
// and 7: low 0-A); bit 4 '_' (high 5: low F). Hex digits: bit 0 0-9 (high 3:
// low 0-9), bit 1 A-F and a-f (high 4 and 6: low 1-6). Bytes from 0x80 have
// a high nibble of 8 or more, whose entries are 0.
ClassMasks classify_block_avx2(const char* p) {
  const __m256i b64_low = _mm256_setr_epi8(  //
      0x0A, 0x0E, 0x0E, 0x0E, 0x0E, 0x0E, 0x0E, 0x0E, 0x0E, 0x0E, 0x0C, 0x05, 0x04, 0x05, 0x04, 0x15,  //
      0x0A, 0x0E, 0x0E, 0x0E, 0x0E, 0x0E, 0x0E, 0x0E, 0x0E, 0x0E, 0x0C, 0x05, 0x04, 0x05, 0x04, 0x15);
  const __m256i b64_high = _mm256_setr_epi8(  //
      0, 0, 0x01, 0x02, 0x04, 0x18, 0x04, 0x08, 0, 0, 0, 0, 0, 0, 0, 0,  //
      0, 0, 0x01, 0x02, 0x04, 0x18, 0x04, 0x08, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i hex_low = _mm256_setr_epi8(  //
      1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0,  //
      1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0);
  const __m256i hex_high = _mm256_setr_epi8(  //
      0, 0, 0, 1, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0,  //
      0, 0, 0, 1, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const __m256i zero = _mm256_setzero_si256();
  const auto in_class = [&](__m256i v, __m256i low, __m256i high) {
    const __m256i lo = _mm256_shuffle_epi8(low, _mm256_and_si256(v, nibble));
    const __m256i hi = _mm256_shuffle_epi8(high, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
    return _mm256_andnot_si256(_mm256_cmpeq_epi8(_mm256_and_si256(lo, hi), zero), _mm256_set1_epi8(-1));
  };
  const auto is = [](__m256i v, char c) { return _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c)); };
  ClassMasks m;
  for (int k = 0; k < 64; k += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + k));
    const __m256i after = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + k + 1));
    const __m256i b64 = in_class(v, b64_low, b64_high);
    const __m256i u_after = _mm256_or_si256(is(after, 'u'), _mm256_or_si256(is(after, 'U'), is(after, '\\')));
    __m256i esc = _mm256_and_si256(is(v, '%'), in_class(after, hex_low, hex_high));
    esc = _mm256_or_si256(esc, _mm256_and_si256(is(v, '\\'), u_after));
    esc = _mm256_or_si256(esc, _mm256_and_si256(is(v, 'U'), is(after, '+')));
    m.base64 |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(b64))} << k;
    m.escapes |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(esc))} << k;
  }
  return m;
}

}  // namespace stealscan::secrets::detail
#endif

// text_classes.cpp: the plain and SSE2 block classifiers, and the choice of
// kernel (text_classes.hpp). The AVX2 one is text_classes_avx2.cpp, a unit of
// its own compiled with -mavx2 (../../match/pair_filter_kernel.hpp says why
// nothing may be shared with it but declarations).
#include "secrets/detect/text_classes.hpp"

#include "secrets/detect/ascii.hpp"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace stealscan::secrets {
namespace {

bool base64_char(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/' ||
         c == '-' || c == '_';
}

bool escape_start(unsigned char c, int next) {
  if (c == '%') return is_hex_digit(next);
  if (c == '\\') return next == 'u' || next == 'U' || next == '\\';
  return c == 'U' && next == '+';
}

}  // namespace

ClassMasks classify_plain(const char* p, std::size_t n, int next) {
  ClassMasks m;
  for (std::size_t k = 0; k < n; ++k) {
    const auto c = static_cast<unsigned char>(p[k]);
    const int after = k + 1 < n ? static_cast<unsigned char>(p[k + 1]) : next;
    m.base64 |= std::uint64_t{base64_char(c)} << k;
    m.escapes |= std::uint64_t{escape_start(c, after)} << k;
  }
  return m;
}

namespace detail {

#if defined(__x86_64__)
ClassMasks classify_block_sse2(const char* p) {
  // A range as one signed compare after a shift that puts its start at -128.
  const auto in_range = [](__m128i v, char lo, char hi) {
    const __m128i shifted = _mm_add_epi8(v, _mm_set1_epi8(static_cast<char>(-128 - lo)));
    return _mm_cmplt_epi8(shifted, _mm_set1_epi8(static_cast<char>(-128 + (hi - lo) + 1)));
  };
  const auto is = [](__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
  ClassMasks m;
  for (std::size_t k = 0; k < 64; k += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k));
    const __m128i after = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k + 1));
    const __m128i digit = in_range(v, '0', '9');
    __m128i b64 = _mm_or_si128(_mm_or_si128(in_range(v, 'A', 'Z'), in_range(v, 'a', 'z')), digit);
    b64 = _mm_or_si128(b64, _mm_or_si128(is(v, '+'), is(v, '/')));
    b64 = _mm_or_si128(b64, _mm_or_si128(is(v, '-'), is(v, '_')));
    const __m128i hex_after =
        _mm_or_si128(in_range(after, '0', '9'), _mm_or_si128(in_range(after, 'a', 'f'), in_range(after, 'A', 'F')));
    const __m128i u_after = _mm_or_si128(is(after, 'u'), _mm_or_si128(is(after, 'U'), is(after, '\\')));
    __m128i esc = _mm_and_si128(is(v, '%'), hex_after);
    esc = _mm_or_si128(esc, _mm_and_si128(is(v, '\\'), u_after));
    esc = _mm_or_si128(esc, _mm_and_si128(is(v, 'U'), is(after, '+')));
    m.base64 |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(b64))} << k;
    m.escapes |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(esc))} << k;
  }
  return m;
}
#else
ClassMasks classify_block_sse2(const char* p) { return classify_plain(p, 64, static_cast<unsigned char>(p[64])); }
ClassMasks classify_block_avx2(const char* p) { return classify_plain(p, 64, static_cast<unsigned char>(p[64])); }
#endif

}  // namespace detail

ClassifyBlockFn classify_block_for_this_cpu() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) return &detail::classify_block_avx2;
#endif
  return &detail::classify_block_sse2;
}

}  // namespace stealscan::secrets

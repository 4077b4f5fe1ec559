// base64_blobs.hpp: the base64 runs of a text, the candidates of a decoding
// pass (decode_splice.hpp; ../README.md, "Decoding"). A blob is a run of at
// least kMinBlob characters of either base64 alphabet with up to two '='
// after it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "secrets/detect/base64.hpp"

namespace stealscan::secrets {

// gitleaks' shortest base64 segment: 16 characters, 12 bytes. Shorter runs
// are every other identifier of source code.
inline constexpr std::size_t kMinBlob = 16;

namespace base64_detail {

// Bit k set: p[k] is a base64 character (either alphabet), for k < n <= 64.
inline std::uint64_t char_mask(const char* p, std::size_t n) {
#if defined(__SSE2__)
  if (n == 64) {
    // Each of the alphabet's three ranges as one signed compare after a shift
    // that puts the range's start at -128, and its four single characters.
    const auto in_range = [](__m128i v, char lo, char hi) {
      const __m128i shifted = _mm_add_epi8(v, _mm_set1_epi8(static_cast<char>(-128 - lo)));
      return _mm_cmplt_epi8(shifted, _mm_set1_epi8(static_cast<char>(-128 + (hi - lo) + 1)));
    };
    std::uint64_t m = 0;
    for (std::size_t k = 0; k < 64; k += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k));
      __m128i is = _mm_or_si128(in_range(v, 'A', 'Z'), in_range(v, 'a', 'z'));
      is = _mm_or_si128(is, in_range(v, '0', '9'));
      is = _mm_or_si128(is, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('+')), _mm_cmpeq_epi8(v, _mm_set1_epi8('/'))));
      is = _mm_or_si128(is, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('-')), _mm_cmpeq_epi8(v, _mm_set1_epi8('_'))));
      m |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(is))} << k;
    }
    return m;
  }
#endif
  std::uint64_t m = 0;
  for (std::size_t k = 0; k < n; ++k) m |= std::uint64_t{is_base64_char(p[k])} << k;
  return m;
}

// Whether `m` holds a run of 16 (kMinBlob) set bits that ends below its top
// bit: each step keeps the bits that begin a run twice as long (2, 4, 8,
// 16). A run that reaches the top bit may be seen shorter (the shifts bring
// in zeros): the caller looks at that one apart.
inline bool may_hold_run(std::uint64_t m) {
  static_assert(kMinBlob == 16, "the steps below count to 16");
  const std::uint64_t two = m & (m >> 1);
  const std::uint64_t four = two & (two >> 2);
  const std::uint64_t eight = four & (four >> 4);
  return (eight & (eight >> 8)) != 0;
}

}  // namespace base64_detail

// Calls fn(begin, end) for each blob of `text`, in order: each maximal run of
// base64 characters at least kMinBlob long, with up to two '=' after it.
// Linear, and branch-free for most text: it takes 64 bytes at a time as a
// mask of their base64 characters (SSE2 on x86-64), and a block where no run
// can reach kMinBlob (may_hold_run(), and the run coming in from the block
// before ends short) costs a few word operations; only the other blocks are
// walked run by run, with bit scans.
template <class Fn>
void for_each_base64_blob(std::string_view text, Fn&& fn) {
  using base64_detail::char_mask;
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  const std::size_t n = text.size();
  std::size_t run = kNone;  // where the run reaching the current block's start began, if one does
  const auto emit = [&](std::size_t begin, std::size_t end) {
    std::size_t padded = end;
    while (padded < n && padded - end < 2 && text[padded] == '=') ++padded;
    fn(begin, padded);
  };
  for (std::size_t block = 0; block < n; block += 64) {
    const std::size_t width = std::min<std::size_t>(64, n - block);
    const std::uint64_t m = char_mask(text.data() + block, width);
    const std::uint64_t full = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
    if (m == full) {  // the whole block continues (or starts) a run
      if (run == kNone) run = block;
      continue;
    }
    // The first byte that is not base64 ends the run coming in; the last one
    // starts the run going out.
    const auto first_gap = static_cast<std::size_t>(__builtin_ctzll(~m & full));
    const auto last_gap = static_cast<std::size_t>(63 - __builtin_clzll(~m & full));
    const bool blob_in = run != kNone && block + first_gap - run >= kMinBlob;
    if (!blob_in && !base64_detail::may_hold_run(m)) {
      run = last_gap + 1 < width ? block + last_gap + 1 : kNone;
      continue;
    }
    // Run by run: `at` is the next bit to look at, `run` the open run's start.
    std::size_t at = 0;
    while (at < width) {
      if (run == kNone) {
        const std::uint64_t ahead = m >> at;
        if (ahead == 0) break;
        at += static_cast<std::size_t>(__builtin_ctzll(ahead));
        run = block + at;
      }
      const std::uint64_t gaps = (~m & full) >> at;
      if (gaps == 0) break;  // the run goes on into the next block
      at += static_cast<std::size_t>(__builtin_ctzll(gaps));
      if (block + at - run >= kMinBlob) emit(run, block + at);
      run = kNone;
    }
  }
  if (run != kNone && n - run >= kMinBlob) emit(run, n);
}

}  // namespace stealscan::secrets

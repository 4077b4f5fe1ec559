// text_classes.hpp: the byte classes a decoding pass looks for (decode_splice.hpp;
// ../README.md, "Decoding"), 64 bytes at a time as bit masks, so that one pass
// over a text finds every candidate of every encoding: the base64 runs and the
// escapes that may start a percent or Unicode run. SIMD where the CPU has it
// (SSE2 on every x86-64, AVX2 where cpuid reports it), a plain loop elsewhere
// and for a text's last bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace stealscan::secrets {

// Bit k of each mask is byte k of the block.
struct ClassMasks {
  std::uint64_t base64 = 0;   // a character of either base64 alphabet: A-Z a-z 0-9 + / - _
  std::uint64_t escapes = 0;  // may start an escape: '%' before a hex digit, '\' before
                              // 'u', 'U' or '\', 'U' before '+'
};

// The masks of p[0, 64); p[64] must be readable too (the byte after the block
// decides an escape at its end).
using ClassifyBlockFn = ClassMasks (*)(const char* p);
// The fastest kernel this CPU runs; the same answers from each.
ClassifyBlockFn classify_block_for_this_cpu();

// The masks of p[0, n), n <= 64, where `next` is the byte after them (-1: none).
ClassMasks classify_plain(const char* p, std::size_t n, int next);

// Calls fn(block_start, width, masks) for each 64-byte block of `text` in
// order (the last one `width` < 64 bytes, or none if the text ends on a block).
template <class Fn>
void for_each_classified_block(std::string_view text, Fn&& fn) {
  static const ClassifyBlockFn kernel = classify_block_for_this_cpu();
  const std::size_t n = text.size();
  std::size_t block = 0;
  for (; n - block > 64; block += 64) fn(block, std::size_t{64}, kernel(text.data() + block));
  if (block < n) fn(block, n - block, classify_plain(text.data() + block, n - block, -1));
}

namespace detail {
ClassMasks classify_block_sse2(const char* p);
ClassMasks classify_block_avx2(const char* p);
}  // namespace detail

}  // namespace stealscan::secrets

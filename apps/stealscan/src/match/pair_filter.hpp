// pair_filter.hpp: the search kernel for up to kPairFilterMaxPatterns literal
// patterns: probe each pattern at its two least common bytes, a vector at a time.
//
// For every pattern k the plan picks two offsets off1[k], off2[k] inside its first
// kPairProbeWindow bytes (the two rarest bytes by byte_rank.hpp). At a window of W
// candidate starts p..p+W-1 the kernel compares the W bytes at p+off1[k] with
// byte1[k] and the W bytes at p+off2[k] with byte2[k], ANDs the two, ORs over the
// patterns, and turns the result into a bit mask: bit j set means "some pattern may
// start at p+j". Each set bit, in ascending order, is verified with memcmp against
// every pattern in index order, so the first verified hit is the leftmost match,
// lowest pattern first. A true match always sets its bit, so nothing is missed;
// a false hit costs one verification.
//
// Cost per W bytes: 2 loads, 2 compares and an AND per pattern, one movemask. With
// AVX2 (W = 32) and 4 patterns that is under one instruction per byte.
//
// The kernels exist three times (SSE2, AVX2, portable scalar), from one template in
// pair_filter_kernel.hpp; pair_find_for_this_cpu() picks the best the CPU runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stealscan {

inline constexpr std::size_t kPairFilterMaxPatterns = 8;
inline constexpr std::size_t kPairProbeWindow = 64;  // probe offsets are < this

struct PairFilter {
  std::uint32_t count = 0;
  std::uint32_t max_offset = 0;  // max over k of off1[k], off2[k]
  std::uint8_t byte1[kPairFilterMaxPatterns] = {};
  std::uint8_t byte2[kPairFilterMaxPatterns] = {};
  std::uint32_t off1[kPairFilterMaxPatterns] = {};
  std::uint32_t off2[kPairFilterMaxPatterns] = {};
  const char* data[kPairFilterMaxPatterns] = {};  // points into the caller's strings
  std::uint32_t length[kPairFilterMaxPatterns] = {};

  // The plan for 1..kPairFilterMaxPatterns non-empty patterns; `patterns` must
  // outlive the filter (data[] points into it).
  static PairFilter plan(const std::vector<std::string>& patterns);
};

// The leftmost verified match that lies within [from, end), lowest pattern index
// first at equal starts; nullptr if none. *pattern receives the index.
using PairFindFn = const char* (*)(const PairFilter& filter, const char* from, const char* end,
                                   std::uint32_t* pattern);

// The fastest kernel this CPU runs (AVX2, else SSE2 on x86-64, else portable).
PairFindFn pair_find_for_this_cpu();

namespace detail {
const char* pair_find_portable(const PairFilter&, const char*, const char*, std::uint32_t*);
#if defined(__x86_64__)
const char* pair_find_sse2(const PairFilter&, const char*, const char*, std::uint32_t*);
const char* pair_find_avx2(const PairFilter&, const char*, const char*, std::uint32_t*);
#endif
}  // namespace detail

}  // namespace stealscan

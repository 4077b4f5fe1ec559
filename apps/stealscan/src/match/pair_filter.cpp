// pair_filter.cpp: choosing each pattern's probe bytes, the portable kernel, and
// the run-time choice of kernel (pair_filter.hpp).
#include "match/pair_filter.hpp"

#include <stdexcept>

#include "match/byte_rank.hpp"
#include "match/pair_filter_kernel.hpp"

namespace stealscan {

PairFilter PairFilter::plan(const std::vector<std::string>& patterns) {
  if (patterns.empty() || patterns.size() > kPairFilterMaxPatterns)
    throw std::invalid_argument("PairFilter::plan: needs 1.." + std::to_string(kPairFilterMaxPatterns) +
                                " patterns (got " + std::to_string(patterns.size()) + ")");
  PairFilter f;
  f.count = static_cast<std::uint32_t>(patterns.size());
  for (std::uint32_t k = 0; k < f.count; ++k) {
    const std::string& p = patterns[k];
    if (p.empty()) throw std::invalid_argument("PairFilter::plan: pattern " + std::to_string(k) + " is empty");
    f.data[k] = p.data();
    f.length[k] = static_cast<std::uint32_t>(p.size());
    // The two rarest positions in the probe window (the first wins a tie). A
    // one-byte pattern probes its byte twice: one compare too many, no harm.
    const std::size_t window = p.size() < kPairProbeWindow ? p.size() : kPairProbeWindow;
    std::size_t a = 0;
    for (std::size_t i = 1; i < window; ++i)
      if (kByteCommonness[static_cast<unsigned char>(p[i])] < kByteCommonness[static_cast<unsigned char>(p[a])]) a = i;
    std::size_t b = a;
    for (std::size_t i = 0; i < window; ++i) {
      if (i == a) continue;
      if (b == a || kByteCommonness[static_cast<unsigned char>(p[i])] < kByteCommonness[static_cast<unsigned char>(p[b])])
        b = i;
    }
    f.off1[k] = static_cast<std::uint32_t>(a);
    f.off2[k] = static_cast<std::uint32_t>(b);
    f.byte1[k] = static_cast<std::uint8_t>(p[a]);
    f.byte2[k] = static_cast<std::uint8_t>(p[b]);
    if (a > f.max_offset) f.max_offset = static_cast<std::uint32_t>(a);
    if (b > f.max_offset) f.max_offset = static_cast<std::uint32_t>(b);
  }
  return f;
}

namespace detail {
namespace {
// One byte a "block": the kernel's logic without vectors, for CPUs we have no
// vector kernel for (and a reference in the tests).
struct ScalarOps {
  using Vec = std::uint8_t;
  static constexpr std::size_t kWidth = 1;
  static Vec zero() { return 0; }
  static Vec splat(std::uint8_t b) { return b; }
  static Vec load(const char* p) { return static_cast<std::uint8_t>(*p); }
  static Vec eq(Vec a, Vec b) { return a == b ? 1 : 0; }
  static Vec and_(Vec a, Vec b) { return static_cast<Vec>(a & b); }
  static Vec or_(Vec a, Vec b) { return static_cast<Vec>(a | b); }
  static std::uint64_t mask(Vec v) { return v; }
};
}  // namespace

const char* pair_find_portable(const PairFilter& f, const char* from, const char* end, std::uint32_t* pattern) {
  return pair_find<ScalarOps>(f, from, end, pattern);
}
}  // namespace detail

PairFindFn pair_find_for_this_cpu() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) return &detail::pair_find_avx2;
  return &detail::pair_find_sse2;
#else
  return &detail::pair_find_portable;
#endif
}

}  // namespace stealscan

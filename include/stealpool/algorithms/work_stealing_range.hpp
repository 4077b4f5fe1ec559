// stealpool/algorithms/work_stealing_range.hpp: WorkStealingRange, seed 002's
// range of indices that its owner consumes from the low end while thieves take
// chunks from the high end.
//
//   owner:  take(n)  -> [lo, lo + n') from the low end, n' <= n
//   thief:  steal()  -> the top quarter of what is left (at least 1 item, never
//                       more than half unless only one item is left)
//   owner:  reset(r) -> after its range ran dry, install a stolen range in it, so
//                       that others can steal from that in turn
//
// Offsets are 32-bit, relative to a base the partitioner chooses (it runs
// ranges of more than 2^32 indices in rounds).
//
// The protocol, and how it departs from seed 002: both ends live in one 64-bit
// word {lo, hi}, and every take and steal is a CAS on it. The seed keeps the
// owner's `low` apart and pairs an exchange on it with a load of the steal range
// (a store-load Dekker pair); its argument that a thief's stale `low` cannot make
// the ranges overlap holds for one index at a time but not for the grain-sized
// takes a fast loop needs (an owner taking n at once can jump past the start of
// the quarter a slow thief computed from a stale low). One word makes every
// operation a single linearisable step at the same cost: the seed's owner already
// pays one atomic RMW per take ([WSR-word]).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>

#include "stealpool/platform/cache_line.hpp"

namespace stealpool {

struct IndexSpan {
  std::uint32_t lo;
  std::uint32_t hi;  // exclusive
  std::uint32_t size() const noexcept { return hi - lo; }
};

class WorkStealingRange {
 public:
  WorkStealingRange() noexcept = default;
  WorkStealingRange(std::uint32_t lo, std::uint32_t hi) noexcept : word_(pack(lo, hi)) {}

  // Owner: up to n (>= 1) indices from the low end; nothing once empty. With
  // at_most_quarter, also at most a quarter of what is left (at least one): the
  // chunks shrink as the range runs out (guided self-scheduling).
  std::optional<IndexSpan> take(std::uint32_t n, bool at_most_quarter = false) noexcept {
    // relaxed: only a guess for the CAS, which re-reads on failure.
    std::uint64_t cur = word_.load(std::memory_order::relaxed);
    for (;;) {
      const std::uint32_t lo = low(cur), hi = high(cur);
      if (lo >= hi) return std::nullopt;
      std::uint32_t want = n;
      if (at_most_quarter && (hi - lo) / 4 < want) want = (hi - lo) / 4 == 0 ? 1 : (hi - lo) / 4;
      const std::uint32_t end = hi - lo > want ? lo + want : hi;
      // [WSR-word] acq_rel: every take and steal is one RMW on this word, so
      // they are totally ordered and no index is handed out twice; the
      // orderings carry nothing else (the indices are the only data).
      if (word_.compare_exchange_weak(cur, pack(end, hi), std::memory_order::acq_rel, std::memory_order::relaxed))
        return IndexSpan{lo, end};
    }
  }

  // Thief: the top quarter of what is left (rounded down, at least one index).
  // Nothing if empty or if it lost a race (the caller tries elsewhere).
  std::optional<IndexSpan> steal() noexcept {
    std::uint64_t cur = word_.load(std::memory_order::relaxed);  // a guess for the CAS
    const std::uint32_t lo = low(cur), hi = high(cur);
    if (lo >= hi) return std::nullopt;
    const std::uint32_t len = hi - lo;
    const std::uint32_t k = len >= 4 ? len / 4 : 1;
    // [WSR-word] as in take().
    if (!word_.compare_exchange_strong(cur, pack(lo, hi - k), std::memory_order::acq_rel, std::memory_order::relaxed))
      return std::nullopt;
    return IndexSpan{hi - k, hi};
  }

  // Owner, only while its range is empty: makes `span` the range. Thieves never
  // change an empty range, and a thief that read an older, non-empty value fails
  // its CAS: the indices of that value are gone, so the new value differs.
  void reset(IndexSpan span) noexcept {
    word_.store(pack(span.lo, span.hi), std::memory_order::release);  // [WSR-word]
  }

  std::uint32_t size_hint() const noexcept {
    const std::uint64_t cur = word_.load(std::memory_order::relaxed);  // a snapshot
    return low(cur) < high(cur) ? high(cur) - low(cur) : 0;
  }

 private:
  static constexpr std::uint64_t pack(std::uint32_t lo, std::uint32_t hi) noexcept {
    return (static_cast<std::uint64_t>(hi) << 32) | lo;
  }
  static constexpr std::uint32_t low(std::uint64_t w) noexcept { return static_cast<std::uint32_t>(w); }
  static constexpr std::uint32_t high(std::uint64_t w) noexcept { return static_cast<std::uint32_t>(w >> 32); }

  std::atomic<std::uint64_t> word_{0};  // shared: owner and thieves CAS it
};

}  // namespace stealpool

// stealpool/algorithms/loop_parts.hpp (internal): how a loop's offsets are cut
// into parts and run by each partitioner, and a loop on a worker (run_loop). A
// loop is a chunk(begin, end) over offsets (loop_chunk.hpp); it starts with the
// inline probe (inline_probe.hpp); caller_share.hpp runs a loop from a thread
// outside the pool. The protocols: algorithms/README.md.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>

#include "stealpool/algorithms/inline_probe.hpp"
#include "stealpool/algorithms/loop_chunk.hpp"
#include "stealpool/algorithms/partitioners.hpp"
#include "stealpool/algorithms/work_stealing_range.hpp"
#include "stealpool/platform/cache_line.hpp"
#include "stealpool/forkjoin/thread_pool.hpp"

namespace stealpool::detail {

inline std::uint64_t auto_grain(std::uint64_t n, std::size_t workers) {
  const std::uint64_t g = n / (static_cast<std::uint64_t>(workers) * 128);
  return g == 0 ? 1 : g;
}

// Calls part(i) for i in [lo, hi) through a tree of joins: the first part runs
// here, the others are pushed for idle workers to steal. A part runs long
// without touching the deque, so before it runs, the subtrees this worker pushed
// on the way down are made public and sleepers woken for them: left private,
// they would wait for a thief's request that the owner answers only after its
// part (16 workers, static partitioner: 5.5x instead of 15.4x).
template <class Part>
void fork_parts(Part& part, std::size_t lo, std::size_t hi) {
  if (hi - lo == 1) {
    PoolWorker::current()->publish_all();
    part(lo);
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  (void)stealpool::join([&] { fork_parts(part, lo, mid); }, [&] { fork_parts(part, mid, hi); });
}

// How the parts of a round start, on a worker of the pool: a tree of joins,
// part 0 on this worker. (A parameter of the rounds, so that another way to
// start them, e.g. with the caller as a part, can be tried without copying them.)
struct JoinStart {
  template <class Part>
  void operator()(Part& part, std::size_t parts) const {
    if (parts == 1) {
      part(0);  // nothing pushed for it: nothing to publish
      return;
    }
    fork_parts(part, 0, parts);
  }
};

// seed 002 on offsets [0, n), n < 2^32.
template <class Start>
void stealing_round(const ChunkRef& chunk, std::uint32_t n, std::uint32_t grain, std::size_t workers, LoopControl& ctl,
                    const Start& start) {
  const std::size_t parts = std::min<std::size_t>(workers, (n + grain - 1) / grain);
  if (parts <= 1) {
    chunk.run_serial(0, n, grain, ctl);
    return;
  }
  std::unique_ptr<Padded<WorkStealingRange>[]> ranges(new Padded<WorkStealingRange>[parts]);
  const std::uint32_t per = n / static_cast<std::uint32_t>(parts);
  for (std::size_t i = 0; i < parts; ++i) {
    const auto lo = static_cast<std::uint32_t>(i) * per;
    const std::uint32_t hi = i + 1 == parts ? n : lo + per;
    ranges[i].value.reset({lo, hi});
  }
  // The remaining-count of seed 002: indices not yet processed. A part whose
  // range runs dry returns what it processed and steals until this reaches zero
  // or a scan of every range finds nothing (then the rest is in other parts'
  // hands and the join tree waits for them; nobody spins).
  alignas(kCacheLine) std::atomic<std::uint64_t> remaining{n};
  auto part = [&](std::size_t self) {
    WorkStealingRange& own = ranges[self].value;
    for (;;) {
      std::uint64_t done = 0;
      // Guided near the end: never more than a quarter of what is left, so the
      // last chunks shrink and the workers finish together (a full grain taken
      // last could leave the others idle for that long).
      while (auto s = own.take(grain, /*at_most_quarter=*/true)) {
        run_chunk(chunk, s->lo, s->hi, ctl);
        done += s->size();
      }
      // relaxed: a count for stopping early; the join tree publishes results.
      if (done != 0 && remaining.fetch_sub(done, std::memory_order::relaxed) == done) return;
      if (ctl.stopped()) return;
      std::optional<IndexSpan> got;
      for (std::size_t k = 1; k < parts && !got; ++k) {
        WorkStealingRange& victim = ranges[(self + k) % parts].value;
        while (!got && victim.size_hint() != 0) got = victim.steal();  // retry lost races
      }
      if (!got) return;
      own.reset(*got);
    }
  };
  start(part, parts);
}

inline constexpr std::size_t kAdaptiveSplitsPerWorker = 16;

// Rayon-style adaptive splitting over offsets [lo, hi). Needs join(): on a worker.
// A leaf publishes what this worker pushed on the way down, as fork_parts does.
inline void adaptive_split(const ChunkRef& chunk, std::uint64_t lo, std::uint64_t hi, std::uint64_t grain, std::size_t splits,
                    std::size_t workers, LoopControl& ctl) {
  if (hi - lo <= grain || splits == 0) {
    if (workers > 1) PoolWorker::current()->publish_all();
    chunk.run_serial(lo, hi, grain, ctl);
    return;
  }
  const std::uint64_t mid = lo + (hi - lo) / 2;
  const auto* origin = PoolWorker::current();
  (void)stealpool::join([&] { adaptive_split(chunk, lo, mid, grain, splits / 2, workers, ctl); },
                        [&] {
                          // Stolen: a thief was idle, so split more (a fresh budget).
                          const bool stolen = PoolWorker::current() != origin;
                          const std::size_t s =
                              stolen ? std::max(splits / 2, kAdaptiveSplitsPerWorker * workers) : splits / 2;
                          adaptive_split(chunk, mid, hi, grain, s, workers, ctl);
                        });
}

// One part per worker over offsets [lo, hi), sizes differing by at most one
// (q = len / parts, the first r = len % parts parts get one more: no len * i
// product, which would overflow for ranges near 2^64). Each part runs in
// grain-sized chunks, so a body's exception stops the others at their next chunk.
template <class Start>
void static_split(const ChunkRef& chunk, std::uint64_t lo, std::uint64_t hi, std::uint64_t grain, std::size_t workers,
                  LoopControl& ctl, const Start& start) {
  const std::uint64_t len = hi - lo;
  const std::uint64_t parts = std::min<std::uint64_t>(workers, len);
  const std::uint64_t q = len / parts, r = len % parts;
  auto part = [&](std::size_t i) {
    const std::uint64_t b = lo + i * q + std::min<std::uint64_t>(i, r);
    chunk.run_serial(b, b + q + (i < r ? 1 : 0), grain, ctl);
  };
  start(part, static_cast<std::size_t>(parts));
}

// Runs chunk over offsets [lo, hi), lo < hi, with the stealing or the static
// partitioner, starting each round's parts with `start`.
template <class P, class Start>
void run_parts(std::uint64_t lo, std::uint64_t hi, std::uint64_t grain, std::size_t workers, const ChunkRef& chunk,
               LoopControl& ctl, const Start& start) {
  if constexpr (std::is_same_v<P, stealing_partitioner>) {
    // Offsets are 32-bit inside a round: longer loops run in rounds.
    constexpr std::uint64_t kRound = std::uint64_t{1} << 31;
    const auto g = static_cast<std::uint32_t>(std::min<std::uint64_t>(grain, kRound));
    for (std::uint64_t base = lo;; base += kRound) {  // no base < hi test: base + kRound may wrap
      const auto len = static_cast<std::uint32_t>(std::min(kRound, hi - base));
      stealing_round(chunk.shifted(base), len, g, workers, ctl, start);
      if (hi - base <= kRound || ctl.stopped()) break;
    }
  } else {
    static_assert(std::is_same_v<P, static_partitioner>, "run_parts: stealing or static");
    static_split(chunk, lo, hi, grain, workers, ctl, start);
  }
}

// Runs chunk over offsets [lo, hi), lo < hi, on the calling worker and the
// pool's others with partitioner P: what is left of a loop after its probe.
template <class P>
void split_on_workers(const ChunkRef& chunk, std::uint64_t lo, std::uint64_t hi, std::uint64_t grain,
                      std::size_t workers, LoopControl& ctl) {
  if constexpr (std::is_same_v<P, adaptive_partitioner>) {
    // A budget of 16 splits per worker, at the start and after each steal: with
    // one per worker, a skewed loop's pieces were fixed after the first steal and
    // one worker idled at the end (heavy-tailed loop, 2 workers: 104% of the
    // ideal time; 16x: idle tail 1-2 ms; bench/loops).
    adaptive_split(chunk, lo, hi, grain, kAdaptiveSplitsPerWorker * workers, workers, ctl);
  } else {
    run_parts<P>(lo, hi, grain, workers, chunk, ctl, JoinStart{});
  }
}

// Runs chunk over offsets [0, n) on the calling worker's pool with partitioner
// P. One worker: all here, as one serial run. Else the inline probe first (a
// loop that ends within the cutoff pushes nothing and wakes nobody; a nested
// loop in a busy pool usually does), then the rest split.
template <class P>
void run_loop(std::uint64_t n, std::uint64_t grain, const ChunkRef& chunk, InlineChunks how) {
  if (n == 0) return;
  const std::size_t workers = PoolWorker::current()->shared().config.workers;
  if (grain == 0) grain = auto_grain(n, workers);
  LoopControl ctl;
  const std::uint64_t done = run_start_here(chunk, n, grain, workers, how, ctl);
  if (done < n) split_on_workers<P>(chunk, done, n, grain, workers, ctl);
  ctl.rethrow_if_failed();
}

}  // namespace stealpool::detail

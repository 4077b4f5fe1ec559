// stealpool/algorithms/inline_probe.hpp (internal): the inline probe. Every
// loop on a pool of two or more workers starts on the thread that called it,
// alone, for up to the inline cutoff; a loop that ends by then never touches
// the pool (no push, no wake-up, no join). The rest goes to the partitioners:
// on a worker, loop_parts.hpp's run_loop; from outside the pool,
// caller_share.hpp. Measurement and protocol: algorithms/README.md, "The
// caller's share" and "Loops on a worker probe too".
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "stealpool/algorithms/loop_chunk.hpp"

namespace stealpool::detail {

// How long (ns) a loop runs on its calling thread alone before the rest is
// handed to the workers. Measured with a cheap body
// (build/bench/loops_inline_crossover --workers 2; algorithms/README.md): on
// the 2-CPU project machine handing over costs about 4.5 us more than it saves
// until the loop holds between 18 and 35 us of work. The probe reads the clock
// at offsets 1, 4, 16, ..., so it stops between 1x and 4x the cutoff: 16 us
// keeps every loop under 16 us of work inline.
inline constexpr std::uint64_t kDefaultInlineCutoffNs = 16'000;

// The cutoff in force. 0: publish before running anything (no inline probe);
// tests set it to exercise both paths. relaxed: a tuning value, read once per
// loop; nothing is published through it.
inline std::atomic<std::uint64_t> loop_inline_cutoff_ns{kDefaultInlineCutoffNs};

// How the inline runs may cut the loop. The range form promises the
// body calls of at most `grain` indices: kGrainChunks. parallel_for's per-index
// body and parallel_reduce's blocks can take any run at once (the grain bounds
// hand-outs, which inline runs do not make): kAnyChunks, one call per run,
// which saves a call and a stop check per grain (1,000 cheap indices at grain 3:
// 0.98 us -> 0.45 us per loop).
enum class InlineChunks { kGrainChunks, kAnyChunks };

// The probe itself: runs offsets [0, k) here, in chunks of at most `grain`, reading
// the clock after offset 1, 4, 16, ... (so a cheap loop reads it about
// log4(n) times, and a loop whose first index is slow is published after it).
// Returns k: n if the loop finished (or a body threw), else where the time ran
// out.
inline std::uint64_t run_probe(const ChunkRef& chunk, std::uint64_t n, std::uint64_t grain, std::uint64_t cutoff_ns,
                               LoopControl& ctl) noexcept {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  std::uint64_t done = 0, mark = 1;
  for (;;) {
    const std::uint64_t to = mark < n ? mark : n;
    chunk.run_serial(done, to, grain, ctl);
    done = to;
    if (done == n || ctl.stopped()) return n;
    const auto spent = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
    if (static_cast<std::uint64_t>(spent) >= cutoff_ns) return done;
    mark = mark > n / 4 ? n : mark * 4;
  }
}

// The start of a loop of n > 0 offsets, on the thread that called it (either
// entry: loop_parts.hpp's run_loop, caller_share.hpp): on a pool of one worker
// the whole loop, as one serial run; else the probe under the cutoff in force
// (none at 0). Returns how many offsets, from 0, ran here (n: the loop is over,
// or a body threw); the caller hands [that, n) to the partitioner.
inline std::uint64_t run_start_here(const ChunkRef& chunk, std::uint64_t n, std::uint64_t grain, std::size_t workers,
                                    InlineChunks how, LoopControl& ctl) noexcept {
  const std::uint64_t inline_grain = how == InlineChunks::kAnyChunks ? n : grain;
  if (workers == 1) {
    chunk.run_serial(0, n, inline_grain, ctl);
    return n;
  }
  const std::uint64_t cutoff = loop_inline_cutoff_ns.load(std::memory_order::relaxed);
  return cutoff == 0 ? 0 : run_probe(chunk, n, inline_grain, cutoff, ctl);
}

}  // namespace stealpool::detail

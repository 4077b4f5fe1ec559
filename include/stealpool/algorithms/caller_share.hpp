// stealpool/algorithms/caller_share.hpp (internal): a parallel loop called from
// a thread that is no worker of any pool. The caller runs the loop itself for a
// while (the inline probe); a loop that finishes within the cutoff never touches
// the pool. Otherwise it hands the rest to the pool's workers and waits (one
// worker: the caller runs it all). Protocol and the
// cutoff's measurement: algorithms/README.md, "The caller's share".
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "stealpool/algorithms/loop_parts.hpp"
#include "stealpool/forkjoin/thread_pool.hpp"

namespace stealpool::detail {

// How long (ns) a loop called from outside the pool runs on the caller alone
// before the rest is handed to the workers. Measured with a cheap body
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

// While the caller runs bodies of a loop on `pool`, pool-less calls in those
// bodies (loops, join(), TaskGroup) go to `pool` (thread_pool.hpp,
// pool_for_outside()). Restores the previous value: loops nest.
class GuestScope {
 public:
  explicit GuestScope(ThreadPool& pool) noexcept : slot_(guest_pool_slot()), saved_(slot_) { slot_ = &pool; }
  ~GuestScope() { slot_ = saved_; }
  GuestScope(const GuestScope&) = delete;
  GuestScope& operator=(const GuestScope&) = delete;

 private:
  ThreadPool*& slot_;
  ThreadPool* saved_;
};

// How the caller's inline runs may cut the loop. The range form promises the
// body calls of at most `grain` indices: kGrainChunks. parallel_for's per-index
// body and parallel_reduce's blocks can take any run at once (the grain bounds
// hand-outs, which inline runs do not make): kAnyChunks, one call per run,
// which saves a call and a stop check per grain (1,000 cheap indices at grain 3:
// 0.98 us -> 0.45 us per loop).
enum class InlineChunks { kGrainChunks, kAnyChunks };

// The inline probe: runs offsets [0, k) here, in chunks of at most `grain`, reading
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

// Runs chunk over offsets [0, n) on `pool` from a thread that is no worker:
//  - one worker: the caller runs the whole loop (a pool of W workers runs a
//    loop called from outside on at most W threads, the caller being one);
//  - else the probe (the loop's root, on the caller), then the rest handed to
//    the pool whole with run() (P's parts on all W workers) while the caller
//    waits. Not the caller as one of W parts: measured when workers were
//    pinned one per CPU (the default then), the idle worker kept its CPU and
//    the caller shared another's (2 workers, 2^24-index reduce: 15.3 ms against
//    7.6 handed over; algorithms/README.md). Not measured again unpinned.
template <class P>
void run_loop_from_outside(ThreadPool& pool, std::uint64_t n, std::uint64_t grain, const ChunkRef& chunk,
                           InlineChunks how) {
  if (n == 0) return;
  const std::size_t workers = pool.workers();
  if (grain == 0) grain = auto_grain(n, workers);
  const std::uint64_t inline_grain = how == InlineChunks::kAnyChunks ? n : grain;
  LoopControl ctl;
  GuestScope guest(pool);
  if (workers == 1) {
    chunk.run_serial(0, n, inline_grain, ctl);
  } else {
    const std::uint64_t cutoff = loop_inline_cutoff_ns.load(std::memory_order::relaxed);
    const std::uint64_t done = cutoff == 0 ? 0 : run_probe(chunk, n, inline_grain, cutoff, ctl);
    if (done < n) {
      pool.run([&] {
        if constexpr (std::is_same_v<P, adaptive_partitioner>)
          adaptive_split(chunk, done, n, grain, kAdaptiveSplitsPerWorker * workers, workers, ctl);
        else
          run_parts<P>(done, n, grain, workers, chunk, ctl, JoinStart{});
      });
    }
  }
  ctl.rethrow_if_failed();
}

}  // namespace stealpool::detail

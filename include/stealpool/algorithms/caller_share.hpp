// stealpool/algorithms/caller_share.hpp (internal): a parallel loop called from
// a thread that is no worker of any pool. The caller runs the loop itself for a
// while (the inline probe, inline_probe.hpp); a loop that finishes within the
// cutoff never touches the pool. Otherwise it hands the rest to the pool's
// workers and waits (one worker: the caller runs it all). Protocol and the
// cutoff's measurement: algorithms/README.md, "The caller's share".
#pragma once

#include <cstddef>
#include <cstdint>

#include "stealpool/algorithms/loop_parts.hpp"
#include "stealpool/forkjoin/thread_pool.hpp"

namespace stealpool::detail {

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
  LoopControl ctl;
  GuestScope guest(pool);
  const std::uint64_t done = run_start_here(chunk, n, grain, workers, how, ctl);
  if (done < n) pool.run([&] { split_on_workers<P>(chunk, done, n, grain, workers, ctl); });
  ctl.rethrow_if_failed();
}

}  // namespace stealpool::detail

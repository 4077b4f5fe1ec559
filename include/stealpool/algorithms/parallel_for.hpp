// stealpool/algorithms/parallel_for.hpp: parallel loops on a fork-join pool.
//
//   stealpool::parallel_for(0, n, [&](int i) { out[i] = f(in[i]); });
//   stealpool::parallel_for(pool, 0, n, 64, body);              // grain 64
//   stealpool::parallel_for_range(0, n, [&](int b, int e) { for (...) });
//   double s = stealpool::parallel_reduce(pool, 0, n, 0.0, map, std::plus<>{});
//   stealpool::parallel_invoke(f1, f2, f3);
//
// Without a pool the loop runs on the calling worker's pool, or default_pool()
// from other threads (which then block). Indices are any integer type, negative
// ranges included; [first, last) with first > last throws std::invalid_argument
// naming both; an empty range calls nothing.
//
// grain: the most indices a body call (range form) or a hand-out covers at
// once (0: automatic, about n / (workers * 128), at least 1); the static
// partitioner's parts are runs of grain-sized chunks. Exceptions: the first exception a body throws
// stops the handing-out of new indices; it reaches the caller after every running
// body has returned (later ones are discarded). Loops nest, in bodies and in
// join() branches. Partitioners: partitioners.hpp.
//
// parallel_reduce is deterministic: the index space is cut into blocks whose
// number depends only on n and the grain (never on the workers or the schedule),
// each block is folded left to right from `identity`, and the block results are
// combined left to right. So even a floating-point sum is bit-for-bit the same
// from run to run and for any worker count.
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stealpool/algorithms/partitioners.hpp"
#include "stealpool/algorithms/work_stealing_range.hpp"
#include "stealpool/detail/cache_line.hpp"
#include "stealpool/forkjoin/thread_pool.hpp"

namespace stealpool {

namespace detail {

// What the loops share: the body over [begin, end) offsets of one round, and
// the first exception (which stops further hand-outs).
class LoopControl {
 public:
  bool stopped() const noexcept { return stop_.load(std::memory_order::relaxed); }  // a flag only
  void fail(std::exception_ptr e) noexcept {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = std::move(e);
    }
    stop_.store(true, std::memory_order::relaxed);  // the join tree orders everything else
  }
  void rethrow_if_failed() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::exception_ptr error_;
};

// Runs chunk(begin, end) over offsets, catching into `ctl`.
template <class Chunk>
void run_chunk(Chunk& chunk, std::uint64_t begin, std::uint64_t end, LoopControl& ctl) noexcept {
  if (ctl.stopped()) return;
  try {
    chunk(begin, end);
  } catch (...) {
    ctl.fail(std::current_exception());
  }
}

// Runs [lo, hi) here in grain-sized chunks, stopping at the first exception.
template <class Chunk>
void run_serial(Chunk& chunk, std::uint64_t lo, std::uint64_t hi, std::uint64_t grain, LoopControl& ctl) noexcept {
  for (std::uint64_t b = lo; b < hi && !ctl.stopped(); b += std::min(grain, hi - b))
    run_chunk(chunk, b, b + std::min(grain, hi - b), ctl);
}

inline std::uint64_t auto_grain(std::uint64_t n, std::size_t workers) {
  const std::uint64_t g = n / (static_cast<std::uint64_t>(workers) * 128);
  return g == 0 ? 1 : g;
}

// Calls part(i) for i in [lo, hi) through a tree of joins: the first part runs
// here, the others are pushed for idle workers to steal.
template <class Part>
void fork_parts(Part& part, std::size_t lo, std::size_t hi) {
  if (hi - lo == 1) {
    part(lo);
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  (void)stealpool::join([&] { fork_parts(part, lo, mid); }, [&] { fork_parts(part, mid, hi); });
}

// seed 002 on offsets [0, n), n < 2^32.
template <class Chunk>
void stealing_round(Chunk& chunk, std::uint32_t n, std::uint32_t grain, std::size_t workers, LoopControl& ctl) {
  const std::size_t parts = std::min<std::size_t>(workers, (n + grain - 1) / grain);
  if (parts <= 1) {
    run_serial(chunk, 0, n, grain, ctl);
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
  fork_parts(part, 0, parts);
}

inline constexpr std::size_t kAdaptiveSplitsPerWorker = 16;

// Rayon-style adaptive splitting over offsets [lo, hi).
template <class Chunk>
void adaptive_split(Chunk& chunk, std::uint64_t lo, std::uint64_t hi, std::uint64_t grain, std::size_t splits,
                    std::size_t workers, LoopControl& ctl) {
  if (hi - lo <= grain || splits == 0) {
    run_serial(chunk, lo, hi, grain, ctl);
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

// One part per worker, sizes differing by at most one (q = n / parts, the first
// r = n % parts parts get one more: no n * i product, which would overflow for
// ranges near 2^64). Each part runs in grain-sized chunks, so a body's exception
// stops the others at their next chunk.
template <class Chunk>
void static_split(Chunk& chunk, std::uint64_t n, std::uint64_t grain, std::size_t workers, LoopControl& ctl) {
  const std::uint64_t parts = std::min<std::uint64_t>(workers, n);
  const std::uint64_t q = n / parts, r = n % parts;
  auto part = [&](std::size_t i) {
    const std::uint64_t lo = i * q + std::min<std::uint64_t>(i, r);
    const std::uint64_t hi = lo + q + (i < r ? 1 : 0);
    run_serial(chunk, lo, hi, grain, ctl);
  };
  fork_parts(part, 0, static_cast<std::size_t>(parts));
}

// Runs chunk over offsets [0, n) on the calling worker's pool with partitioner P.
template <class P, class Chunk>
void run_loop(std::uint64_t n, std::uint64_t grain, Chunk& chunk) {
  if (n == 0) return;
  const std::size_t workers = PoolWorker::current()->shared().config.workers;
  if (grain == 0) grain = auto_grain(n, workers);
  LoopControl ctl;
  if constexpr (std::is_same_v<P, stealing_partitioner>) {
    // Offsets are 32-bit inside a round: longer loops run in rounds.
    constexpr std::uint64_t kRound = std::uint64_t{1} << 31;
    const auto g = static_cast<std::uint32_t>(std::min<std::uint64_t>(grain, kRound));
    for (std::uint64_t base = 0;; base += kRound) {  // no base < n test: base + kRound may wrap
      const auto len = static_cast<std::uint32_t>(std::min(kRound, n - base));
      auto shifted = [&](std::uint64_t b, std::uint64_t e) { chunk(base + b, base + e); };
      stealing_round(shifted, len, g, workers, ctl);
      if (n - base <= kRound || ctl.stopped()) break;
    }
  } else if constexpr (std::is_same_v<P, adaptive_partitioner>) {
    // A budget of 16 splits per worker, at the start and after each steal: with
    // one per worker, a skewed loop's pieces were fixed after the first steal and
    // one worker idled at the end (heavy-tailed loop, 2 workers: 104% of the
    // ideal time; 16x: idle tail 1-2 ms; bench/loops).
    adaptive_split(chunk, 0, n, grain, kAdaptiveSplitsPerWorker * workers, workers, ctl);
  } else {
    static_assert(std::is_same_v<P, static_partitioner>, "unknown partitioner");
    static_split(chunk, n, grain, workers, ctl);
  }
  ctl.rethrow_if_failed();
}

template <class I>
std::uint64_t checked_count(I first, I last, const char* who) {
  if (first > last)
    throw std::invalid_argument(std::string(who) + ": first > last (first = " + std::to_string(first) +
                                ", last = " + std::to_string(last) + ")");
  // Two's-complement difference, exact for any first <= last of an integer type.
  using U = std::make_unsigned_t<I>;
  return static_cast<std::uint64_t>(static_cast<U>(static_cast<U>(last) - static_cast<U>(first)));
}

template <class I>
I at_offset(I first, std::uint64_t off) noexcept {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(static_cast<U>(first) + static_cast<U>(off)));
}

// Runs `fn` on a worker of `pool` (inline if already there).
template <class Fn>
void on_pool(ThreadPool* pool, Fn&& fn) {
  PoolWorker* w = PoolWorker::current();
  if (pool == nullptr) {
    if (w != nullptr) return fn();
    return default_pool().run(fn);
  }
  pool->run(fn);
}

template <class I, class RangeBody, class P>
void for_range(ThreadPool* pool, I first, I last, std::uint64_t grain, RangeBody& body, P, const char* who) {
  const std::uint64_t n = checked_count(first, last, who);
  if (n == 0) return;
  on_pool(pool, [&] {
    auto chunk = [&](std::uint64_t b, std::uint64_t e) { body(at_offset(first, b), at_offset(first, e)); };
    run_loop<P>(n, grain, chunk);
  });
}

// Any integer type but bool (which has no ++ and no meaningful range).
template <class I>
concept Index = std::integral<I> && !std::same_as<std::remove_cv_t<I>, bool>;

template <class T>
concept Partitioner = std::is_same_v<T, stealing_partitioner> || std::is_same_v<T, adaptive_partitioner> ||
                      std::is_same_v<T, static_partitioner>;

}  // namespace detail

namespace detail {

// A grain of 0 or less means "automatic" (0 for run_loop).
template <class I>
std::uint64_t grain_of(I grain) noexcept {
  return grain < 1 ? 0 : static_cast<std::uint64_t>(grain);
}

// parallel_for's per-index body over parallel_for_range's chunks.
template <class I, class Body, class P>
void for_each_index(ThreadPool* pool, I first, I last, I grain, Body& body, P p) {
  auto range = [&](I b, I e) {
    for (I i = b; i != e; ++i) body(i);
  };
  for_range(pool, first, last, grain_of(grain), range, p, "stealpool::parallel_for");
}

}  // namespace detail

// --- parallel_for_range: body(begin, end) ---------------------------------------------

template <detail::Index I, class Body, detail::Partitioner P = default_partitioner>
void parallel_for_range(ThreadPool& pool, I first, I last, I grain, Body&& body, P p = {}) {
  detail::for_range(&pool, first, last, detail::grain_of(grain), body, p, "stealpool::parallel_for_range");
}
template <detail::Index I, class Body, detail::Partitioner P = default_partitioner>
  requires std::invocable<Body&, I, I>
void parallel_for_range(ThreadPool& pool, I first, I last, Body&& body, P p = {}) {
  detail::for_range(&pool, first, last, 0, body, p, "stealpool::parallel_for_range");
}
template <detail::Index I, class Body, detail::Partitioner P = default_partitioner>
void parallel_for_range(I first, I last, I grain, Body&& body, P p = {}) {
  detail::for_range(nullptr, first, last, detail::grain_of(grain), body, p, "stealpool::parallel_for_range");
}
template <detail::Index I, class Body, detail::Partitioner P = default_partitioner>
  requires std::invocable<Body&, I, I>
void parallel_for_range(I first, I last, Body&& body, P p = {}) {
  detail::for_range(nullptr, first, last, 0, body, p, "stealpool::parallel_for_range");
}

// --- parallel_for: body(i) ------------------------------------------------------------

template <detail::Index I, class Body, detail::Partitioner P = default_partitioner>
void parallel_for(ThreadPool& pool, I first, I last, I grain, Body&& body, P p = {}) {
  detail::for_each_index(&pool, first, last, grain, body, p);
}
template <detail::Index I, class Body, detail::Partitioner P = default_partitioner>
  requires std::invocable<Body&, I>
void parallel_for(ThreadPool& pool, I first, I last, Body&& body, P p = {}) {
  detail::for_each_index(&pool, first, last, I{0}, body, p);
}
template <detail::Index I, class Body, detail::Partitioner P = default_partitioner>
void parallel_for(I first, I last, I grain, Body&& body, P p = {}) {
  detail::for_each_index(nullptr, first, last, grain, body, p);
}
template <detail::Index I, class Body, detail::Partitioner P = default_partitioner>
  requires std::invocable<Body&, I>
void parallel_for(I first, I last, Body&& body, P p = {}) {
  detail::for_each_index(nullptr, first, last, I{0}, body, p);
}

// --- parallel_reduce ------------------------------------------------------------------

namespace detail {

// Blocks of a reduction: a count that depends on n and the grain only.
inline std::uint64_t reduce_block(std::uint64_t n, std::uint64_t grain) {
  constexpr std::uint64_t kMaxBlocks = 4096;
  const std::uint64_t by_count = n / kMaxBlocks + (n % kMaxBlocks != 0 ? 1 : 0);  // ceil, without n + 4095
  return std::max<std::uint64_t>({grain, by_count, 1});
}

template <class I, class T, class Map, class Reduce, class P>
T reduce(ThreadPool* pool, I first, I last, std::uint64_t grain, T identity, Map& map, Reduce& combine, P) {
  const std::uint64_t n = checked_count(first, last, "stealpool::parallel_reduce");
  if (n == 0) return identity;
  const std::uint64_t block = reduce_block(n, grain);
  const std::uint64_t blocks = n / block + (n % block != 0 ? 1 : 0);
  std::vector<std::optional<T>> partial(static_cast<std::size_t>(blocks));
  on_pool(pool, [&] {
    auto chunk = [&](std::uint64_t bb, std::uint64_t be) {
      for (std::uint64_t b = bb; b < be; ++b) {
        T acc = identity;
        const std::uint64_t lo = b * block, hi = std::min(n, lo + block);
        // An index of type I, not an offset converted per index: the wrap-around
        // conversion costs a third more instructions in a cheap map's loop.
        const I e = at_offset(first, hi);
        for (I i = at_offset(first, lo); i != e; ++i) acc = combine(std::move(acc), map(i));
        partial[static_cast<std::size_t>(b)].emplace(std::move(acc));
      }
    };
    run_loop<P>(blocks, 1, chunk);
  });
  T acc = std::move(identity);
  for (auto& p : partial) acc = combine(std::move(acc), std::move(*p));
  return acc;
}

}  // namespace detail

// map(i) -> T, combine(T, T) -> T associative; identity its neutral element.
template <detail::Index I, class T, class Map, class Reduce, detail::Partitioner P = default_partitioner>
T parallel_reduce(ThreadPool& pool, I first, I last, T identity, Map&& map, Reduce&& combine, P p = {}) {
  return detail::reduce(&pool, first, last, 0, std::move(identity), map, combine, p);
}
template <detail::Index I, class T, class Map, class Reduce, detail::Partitioner P = default_partitioner>
T parallel_reduce(I first, I last, T identity, Map&& map, Reduce&& combine, P p = {}) {
  return detail::reduce(nullptr, first, last, 0, std::move(identity), map, combine, p);
}

// --- parallel_invoke ------------------------------------------------------------------

// Runs every function, possibly in parallel; returns when all have returned.
// Two or more go through join() (so outside a pool, on default_pool()); a single
// function is simply called.
// Exceptions as join(): all complete, then the first (leftmost) one is rethrown.
template <class F>
void parallel_invoke(F&& f) {
  std::forward<F>(f)();
}
template <class F, class G, class... Rest>
void parallel_invoke(F&& f, G&& g, Rest&&... rest) {
  if constexpr (sizeof...(Rest) == 0) {
    (void)stealpool::join([&] { f(); }, [&] { g(); });
  } else {
    (void)stealpool::join([&] { f(); }, [&] { parallel_invoke(std::forward<G>(g), std::forward<Rest>(rest)...); });
  }
}

}  // namespace stealpool

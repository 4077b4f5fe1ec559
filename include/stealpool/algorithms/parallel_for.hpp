// stealpool/algorithms/parallel_for.hpp: parallel loops on a fork-join pool.
//
//   stealpool::parallel_for(0, n, [&](int i) { out[i] = f(in[i]); });
//   stealpool::parallel_for(pool, 0, n, 64, body);              // grain 64
//   stealpool::parallel_for_range(0, n, [&](int b, int e) { for (...) });
//   double s = stealpool::parallel_reduce(pool, 0, n, 0.0, map, std::plus<>{});
//   stealpool::parallel_invoke(f1, f2, f3);
//
// Without a pool the loop runs on the calling worker's pool, or default_pool()
// from other threads. Every loop starts on the thread that calls it, alone, for
// up to the inline cutoff (16 us of work; a loop that ends by then never touches
// the pool: nothing pushed, nobody woken). Then a worker of the pool splits the
// rest among the pool's workers, itself included; a thread that is no worker of
// any pool hands the rest to the workers and waits (on a pool of one worker it
// runs the whole loop itself). Bodies may so run on the calling thread; loops,
// join() and TaskGroups they start without a pool still go to the loop's pool
// (algorithms/README.md, "The caller's share"). A body must not wait for
// another index's body to start: the first indices run before any other thread
// may. Indices are any integer type, negative ranges included; [first, last)
// with first > last throws std::invalid_argument naming both; an empty range
// calls nothing.
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
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stealpool/algorithms/caller_share.hpp"
#include "stealpool/algorithms/loop_parts.hpp"
#include "stealpool/algorithms/partitioners.hpp"
#include "stealpool/forkjoin/thread_pool.hpp"

namespace stealpool {

namespace detail {

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

// Runs chunk over offsets [0, n) with partitioner P on `pool` (nullptr: the
// calling worker's pool, else pool_for_outside()): on a worker of that pool, here
// (loop_parts.hpp, run_loop); through run() from another pool's worker; from any
// other thread, with the caller taking part (caller_share.hpp).
template <class P>
void run_on_erased(ThreadPool* pool, std::uint64_t n, std::uint64_t grain, const ChunkRef& chunk, InlineChunks how) {
  PoolWorker* w = PoolWorker::current();
  if (pool == nullptr) {
    if (w != nullptr) return run_loop<P>(n, grain, chunk, how);
    return run_loop_from_outside<P>(pool_for_outside(), n, grain, chunk, how);
  }
  if (w == nullptr) return run_loop_from_outside<P>(*pool, n, grain, chunk, how);
  if (&w->shared() == &pool->shared()) return run_loop<P>(n, grain, chunk, how);
  pool->run([&] { run_loop<P>(n, grain, chunk, how); });
}
template <class P, class Chunk>
void run_on(ThreadPool* pool, std::uint64_t n, std::uint64_t grain, Chunk& chunk, InlineChunks how) {
  run_on_erased<P>(pool, n, grain, ChunkRef(chunk), how);
}

template <class I, class RangeBody, class P>
void for_range(ThreadPool* pool, I first, I last, std::uint64_t grain, RangeBody& body, P, const char* who,
               InlineChunks how = InlineChunks::kGrainChunks) {
  const std::uint64_t n = checked_count(first, last, who);
  if (n == 0) return;
  auto chunk = [&](std::uint64_t b, std::uint64_t e) { body(at_offset(first, b), at_offset(first, e)); };
  run_on<P>(pool, n, grain, chunk, how);
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
  for_range(pool, first, last, grain_of(grain), range, p, "stealpool::parallel_for", InlineChunks::kAnyChunks);
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
  run_on<P>(pool, blocks, 1, chunk, InlineChunks::kAnyChunks);
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
// function is simply called. Each function may run long, so before one runs, the
// others its worker pushed are made public (as a loop's parts are,
// algorithms/README.md, "Parts start at once").
// Exceptions as join(): all complete, then the first (leftmost) one is rethrown.
template <class F>
void parallel_invoke(F&& f) {
  std::forward<F>(f)();
}
template <class F, class G, class... Rest>
void parallel_invoke(F&& f, G&& g, Rest&&... rest) {
  auto first = [&] {
    if (detail::PoolWorker* w = detail::PoolWorker::current()) w->publish_all();
    f();
  };
  if constexpr (sizeof...(Rest) == 0) {
    (void)stealpool::join(first, [&] { g(); });
  } else {
    (void)stealpool::join(first, [&] { parallel_invoke(std::forward<G>(g), std::forward<Rest>(rest)...); });
  }
}

}  // namespace stealpool

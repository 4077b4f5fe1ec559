// stealpool/algorithms/partitioners.hpp: how parallel_for splits an index
// space among workers. Pass one as the last argument:
//
//   stealing_partitioner   seed 002: one contiguous range per worker, owners take
//                          a grain at a time from the low end, idle workers steal
//                          a quarter of what is left from the high end of another
//                          range; a remaining-count ends the stealing.
//   adaptive_partitioner   Rayon/oneTBB style: split in halves with join() while
//                          the range is larger than the grain and splits are left;
//                          a half that is stolen gets a fresh budget of splits.
//   static_partitioner     exactly one contiguous range per worker, no balancing
//                          (OpenMP schedule(static)); for uniform loops.
//
// From a thread outside the pool, each applies to what is left after the
// caller's inline probe, run by the workers (algorithms/README.md, "The
// caller's share").
//
// default_partitioner is the one the benchmark showed best (docs/benchmarks.md).
#pragma once

namespace stealpool {

struct stealing_partitioner {};
struct adaptive_partitioner {};
struct static_partitioner {};

using default_partitioner = stealing_partitioner;

}  // namespace stealpool

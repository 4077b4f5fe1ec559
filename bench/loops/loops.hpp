// The loops of stealbench's loops suite (bench/stealbench/suite_loops.cpp), shared by
// every runtime: the per-index kernels (so that each runtime runs the very same code),
// the loop descriptions, and the interface one runtime implements (one translation unit
// per runtime, so that OpenMP's flags touch only its own).
//
//   heavy loops  index i runs iters[i] steps of a dependent floating-point recurrence
//                (heavy_value): one multiply and one add per step, each waiting for the
//                last, which the compiler may neither remove, reorder nor vectorise
//                (no -ffast-math). iters[] is computed once, before any timing, and is
//                the same array for every runtime:
//                  uniform   the same count for every index
//                  triangle  iters[i] = i: work proportional to the index
//                  pareto    a fixed-seed Pareto draw (heavy tail), capped
//   tiny loop    1000 indices of a trivial body (tiny_value), repeated `repeat` times
//                per timed run, each repetition a separate parallel loop started from
//                the main thread: the cost of one loop, mostly overhead.
//
// Every index adds its value into out[i] (out is zeroed before each run), so a
// skipped index and an index run twice both change sum(out): that sum, a wrapping
// 64-bit integer, is checked exactly against the serial loop's after every run.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace stealbench::loops {

// splitmix64's finaliser: spreads an index over 64 bits.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// k steps of x <- x * a + b, each step a multiply then an add on the previous x:
// about 1.7 ns per step on the project machine. The result depends on i and k.
inline std::uint64_t heavy_value(int i, std::uint32_t k) {
  double x = 1.0 + static_cast<double>(i & 1023) * (1.0 / 1024);
  for (std::uint32_t s = 0; s < k; ++s) x = x * 0.9999999 + 1e-7;
  return mix64(static_cast<std::uint64_t>(i)) ^ std::bit_cast<std::uint64_t>(x);
}

// The tiny loop's body: a multiply.
inline std::uint64_t tiny_value(int i) { return static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ULL + 1; }

// The reduction's term: sum over [0, n) of reduce_value(i), wrapping, is exact in
// any order and grouping, so every runtime's result must equal the serial one.
inline std::uint64_t reduce_value(int i) { return mix64(static_cast<std::uint64_t>(i) + 1); }
inline std::uint64_t reduce_serial(int n) {
  std::uint64_t s = 0;
  for (int i = 0; i < n; ++i) s += reduce_value(i);
  return s;
}

enum class LoopKind { kHeavy, kTiny };

struct Loop {
  std::string name;
  LoopKind kind = LoopKind::kHeavy;
  int n = 0;                           // indices [0, n)
  const std::uint32_t* iters = nullptr;  // heavy: recurrence steps per index
  int repeat = 1;                      // tiny: loops per timed run
  std::uint64_t* out = nullptr;        // n slots, zeroed before each run
};

// Runs one timed run of `loop` through `for_each(n, body)`, a runtime's parallel loop
// over [0, n) calling body(i) once per index. Instantiated in each translation unit.
template <class ForEach>
void run_loop(const Loop& loop, ForEach&& for_each) {
  std::uint64_t* const out = loop.out;
  if (loop.kind == LoopKind::kTiny) {
    auto body = [out](int i) { out[i] += tiny_value(i); };
    for (int r = 0; r < loop.repeat; ++r) for_each(loop.n, body);
  } else {
    const std::uint32_t* const iters = loop.iters;
    auto body = [out, iters](int i) { out[i] += heavy_value(i, iters[i]); };
    for_each(loop.n, body);
  }
}

// stealpool's automatic grain (parallel_for.hpp: n / (workers * 128), at least 1),
// also given to OpenMP's schedule(dynamic, chunk) row.
inline int stealpool_auto_grain(int n, std::size_t workers) {
  const long long g = static_cast<long long>(n) / (static_cast<long long>(workers) * 128);
  return g < 1 ? 1 : static_cast<int>(g);
}

// --- one runtime -----------------------------------------------------------------------
// One runtime with a fixed number of workers (a ThreadPool, a task_arena, an OpenMP
// team size), created once per worker count and reused for every run, so that thread
// start-up is never timed. It offers one or more schedules (partitioners); run() does
// one timed run of a loop with one of them.
class Runtime {
 public:
  virtual ~Runtime() = default;
  // Names of the schedules, e.g. "stealing", "auto", "guided"; run() takes an index.
  virtual std::vector<std::string> schedules() const = 0;
  virtual void run(const Loop& loop, std::size_t schedule) = 0;
  // The sum of reduce_value(i) over [0, n) with the runtime's reduction idiom.
  virtual std::uint64_t reduce(int n) = 0;
};

// Each is defined in its own translation unit; the suite calls only those built
// (STEALBENCH_HAVE_TBB, STEALBENCH_HAVE_OMP).
std::unique_ptr<Runtime> make_stealpool_runtime(std::size_t workers);
std::unique_ptr<Runtime> make_tbb_runtime(std::size_t workers);
std::unique_ptr<Runtime> make_omp_runtime(std::size_t workers);

}  // namespace stealbench::loops

// loops_inline_crossover: where publishing a loop called from outside the pool
// starts to pay (the inline cutoff, algorithms/README.md "The cutoff, measured").
//
//   loops_inline_crossover [--workers 2] [--reps 201]
//
// For n = 250 .. 256,000 cheap indices (stealbench's tiny-loop body, out[i] +=
// i * C + 1), a parallel_for from the main thread on a pool of W workers, each
// n timed three ways, interleaved: every index inline on the caller (cutoff an
// hour), the rest published at once (cutoff 0: the caller's part plus the
// workers), and the default cutoff. Medians of `reps` timed loops (each the mean
// of a batch of loops lasting about 200 us), in us per loop. The crossover is the
// first n where publishing beats inline; its inline time is the work at which
// publishing starts to pay.
#include <stealpool/algorithms.hpp>
#include <stealpool/forkjoin.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "../common/bench_cli.hpp"

namespace {

namespace sp = stealpool;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Microseconds per loop: the mean over `batch` loops.
double time_batch(sp::ThreadPool& pool, std::vector<std::uint64_t>& out, int n, int batch) {
  std::uint64_t* o = out.data();
  const auto t0 = Clock::now();
  for (int b = 0; b < batch; ++b)
    sp::parallel_for(pool, 0, n, [o](int i) { o[i] += static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ULL + 1; });
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / batch;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t workers = 2;
  int reps = 201;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--workers" && i + 1 < argc) workers = static_cast<std::size_t>(stealbench::positive_arg("--workers", argv[++i], 4096));
    else if (a == "--reps" && i + 1 < argc) reps = static_cast<int>(stealbench::positive_arg("--reps", argv[++i]));
    else {
      std::fprintf(stderr, "usage: loops_inline_crossover [--workers W] [--reps R]\n");
      return 2;
    }
  }
  sp::PoolOptions opts = sp::PoolOptions::with_workers(workers);
  sp::ThreadPool pool(opts);
  auto& cutoff = sp::detail::loop_inline_cutoff_ns;
  const std::uint64_t kDefault = sp::detail::kDefaultInlineCutoffNs, kInline = 3'600'000'000'000ULL;
  const struct {
    const char* name;
    std::uint64_t ns;
  } modes[] = {{"inline", kInline}, {"published", 0}, {"default", kDefault}};

  std::printf("workers %zu, medians of %d, us per loop\n\n", workers, reps);
  std::printf("| n | inline | published at once | default cutoff (%llu ns) |\n|---:|---:|---:|---:|\n",
              static_cast<unsigned long long>(kDefault));
  int crossover = 0;
  double crossover_us = 0;
  for (int n = 250; n <= 256'000; n *= 2) {
    std::vector<std::uint64_t> out(static_cast<std::size_t>(n), 0);
    // About 200 us per batch at inline speed (0.25 ns an index), at least one loop.
    const int batch = std::max(1, 800'000 / n);
    std::vector<double> t[3];
    for (int r = 0; r < reps; ++r)
      for (int m = 0; m < 3; ++m) {
        cutoff.store(modes[m].ns, std::memory_order::relaxed);
        t[m].push_back(time_batch(pool, out, n, batch));
      }
    const double in = median(t[0]), pub = median(t[1]), def = median(t[2]);
    std::printf("| %d | %.2f | %.2f | %.2f |\n", n, in, pub, def);
    if (crossover == 0 && pub < in) {
      crossover = n;
      crossover_us = in;
    }
  }
  cutoff.store(kDefault, std::memory_order::relaxed);
  if (crossover != 0)
    std::printf("\npublishing first beats inline at n = %d (%.2f us of inline work)\n", crossover, crossover_us);
  else
    std::printf("\npublishing never beat inline up to n = 256000\n");
  return 0;
}

// OpenMP peer: `#pragma omp parallel for num_threads(W) schedule(...)`, one parallel
// region per loop, started from the main thread (which is one of the W team threads).
// The runtime keeps its threads between regions; a first region in the constructor
// starts them before any timing. The only translation unit built with -fopenmp: with
// g++ that is libgomp, with clang++ the LLVM runtime (libomp).
//
//   static       schedule(static): one contiguous block per thread
//   dynamic      schedule(dynamic): chunks of 1 (the chunk size OpenMP gives dynamic
//                when none is named), handed out one by one from a shared counter
//   dynamic,g=G  schedule(dynamic, G) with G = stealpool's automatic grain
//                (n / (W * 128)), the same chunk size stealpool's default row takes
//   guided       schedule(guided): chunks proportional to what is left / W, down to 1
// reduce: `parallel for reduction(+ : sum)` with schedule(static).
#include <omp.h>

#include "loops.hpp"

namespace stealbench::loops {
namespace {

class OmpRuntime final : public Runtime {
 public:
  explicit OmpRuntime(std::size_t workers) : workers_(static_cast<int>(workers)) {
    int started = 0;
#pragma omp parallel num_threads(workers_) reduction(+ : started)
    started += 1;
    (void)started;
  }

  std::vector<std::string> schedules() const override { return {"static", "dynamic", "dynamic,g=G", "guided"}; }

  void run(const Loop& loop, std::size_t schedule) override {
    const int w = workers_;
    switch (schedule) {
      case 0:
        return run_loop(loop, [w](int n, auto& body) {
#pragma omp parallel for num_threads(w) schedule(static)
          for (int i = 0; i < n; ++i) body(i);
        });
      case 1:
        return run_loop(loop, [w](int n, auto& body) {
#pragma omp parallel for num_threads(w) schedule(dynamic)
          for (int i = 0; i < n; ++i) body(i);
        });
      case 2:
        return run_loop(loop, [w](int n, auto& body) {
          const int chunk = stealpool_auto_grain(n, static_cast<std::size_t>(w));
#pragma omp parallel for num_threads(w) schedule(dynamic, chunk)
          for (int i = 0; i < n; ++i) body(i);
        });
      default:
        return run_loop(loop, [w](int n, auto& body) {
#pragma omp parallel for num_threads(w) schedule(guided)
          for (int i = 0; i < n; ++i) body(i);
        });
    }
  }

  std::uint64_t reduce(int n) override {
    std::uint64_t sum = 0;
#pragma omp parallel for num_threads(workers_) schedule(static) reduction(+ : sum)
    for (int i = 0; i < n; ++i) sum += reduce_value(i);
    return sum;
  }

 private:
  int workers_;
};

}  // namespace

std::unique_ptr<Runtime> make_omp_runtime(std::size_t workers) { return std::make_unique<OmpRuntime>(workers); }

}  // namespace stealbench::loops

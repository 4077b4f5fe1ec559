// stealpool: stealpool::parallel_for(pool, 0, n, grain, body, partitioner) on a
// ThreadPool of W workers created once; the calling thread only waits in the pool's
// run(), so W = 2 means two workers. Each loop is a separate call from the main thread.
//
//   stealing       stealing_partitioner, automatic grain (n / (W * 128))
//   stealing,g=1   stealing_partitioner, grain 1
//   adaptive       adaptive_partitioner, automatic grain
//   static         static_partitioner (one contiguous range per worker)
// reduce: stealpool::parallel_reduce with the default partitioner and grain.
#include <stealpool/algorithms.hpp>
#include <stealpool/forkjoin.hpp>

#include <functional>

#include "loops.hpp"

namespace stealbench::loops {
namespace {

class StealpoolRuntime final : public Runtime {
 public:
  explicit StealpoolRuntime(std::size_t workers) : pool_(workers) {}

  std::vector<std::string> schedules() const override { return {"stealing", "stealing,g=1", "adaptive", "static"}; }

  void run(const Loop& loop, std::size_t schedule) override {
    switch (schedule) {
      case 0: return loop_with(loop, 0, stealpool::stealing_partitioner{});
      case 1: return loop_with(loop, 1, stealpool::stealing_partitioner{});
      case 2: return loop_with(loop, 0, stealpool::adaptive_partitioner{});
      default: return loop_with(loop, 0, stealpool::static_partitioner{});
    }
  }

  std::uint64_t reduce(int n) override {
    return stealpool::parallel_reduce(pool_, 0, n, std::uint64_t{0}, [](int i) { return reduce_value(i); }, std::plus<>{});
  }

 private:
  template <class P>
  void loop_with(const Loop& loop, int grain, P partitioner) {
    run_loop(loop, [&](int n, auto& body) { stealpool::parallel_for(pool_, 0, n, grain, body, partitioner); });
  }

  stealpool::ThreadPool pool_;
};

}  // namespace

std::unique_ptr<Runtime> make_stealpool_runtime(std::size_t workers) {
  return std::make_unique<StealpoolRuntime>(workers);
}

}  // namespace stealbench::loops

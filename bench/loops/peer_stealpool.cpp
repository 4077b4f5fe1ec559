// stealpool: stealpool::parallel_for(pool, 0, n, grain, body, partitioner) on a
// ThreadPool of W workers created once. Each loop is a separate call from the main
// thread, which takes part (algorithms/README.md, "The caller's share"): with
// W = 1 it runs the loop alone (as oneTBB's arena and OpenMP's team of 1 count
// the caller); otherwise a loop under the inline cutoff (16 us of work) runs on
// it alone, and a longer one's rest goes to the W workers while it waits.
//
//   stealing           stealing_partitioner, automatic grain (n / (W * 128))
//   stealing,g=1       stealing_partitioner, grain 1
//   adaptive           adaptive_partitioner, automatic grain
//   static             static_partitioner (one contiguous range per thread)
//   stealing,handed    the loop handed to the pool whole, pool.run([&] {
//                      parallel_for(...) }): the caller injects it and waits, the
//                      W workers run it (what every row did before the caller
//                      took part)
// reduce: stealpool::parallel_reduce with the default partitioner and grain, from
// the main thread (taking part as above).
#include <stealpool/algorithms.hpp>
#include <stealpool/forkjoin.hpp>

#include <functional>

#include "loops.hpp"

namespace stealbench::loops {
namespace {

class StealpoolRuntime final : public Runtime {
 public:
  explicit StealpoolRuntime(std::size_t workers) : pool_(workers) {}

  std::vector<std::string> schedules() const override {
    return {"stealing", "stealing,g=1", "adaptive", "static", "stealing,handed"};
  }

  void run(const Loop& loop, std::size_t schedule) override {
    switch (schedule) {
      case 0: return loop_with(loop, 0, stealpool::stealing_partitioner{});
      case 1: return loop_with(loop, 1, stealpool::stealing_partitioner{});
      case 2: return loop_with(loop, 0, stealpool::adaptive_partitioner{});
      case 3: return loop_with(loop, 0, stealpool::static_partitioner{});
      default:
        return run_loop(loop, [&](int n, auto& body) {
          pool_.run([&] { stealpool::parallel_for(pool_, 0, n, 0, body, stealpool::stealing_partitioner{}); });
        });
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

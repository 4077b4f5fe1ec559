// oneTBB peer: tbb::parallel_for over a blocked_range with the auto_partitioner (the
// default; grain 1, the range split on demand as workers steal), inside a task_arena
// of W threads created once. The calling thread takes one of the W slots, so W = 2
// means the caller plus one oneTBB worker. Each loop is a separate arena.execute()
// from the main thread. reduce: tbb::parallel_reduce (functional form) over a
// blocked_range, auto_partitioner.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <functional>

#include "loops.hpp"

namespace stealbench::loops {
namespace {

class TbbRuntime final : public Runtime {
 public:
  explicit TbbRuntime(std::size_t workers) : arena_(static_cast<int>(workers)) { arena_.initialize(); }

  std::vector<std::string> schedules() const override { return {"auto"}; }

  void run(const Loop& loop, std::size_t /*schedule*/) override {
    run_loop(loop, [this](int n, auto& body) {
      arena_.execute([&] {
        tbb::parallel_for(
            tbb::blocked_range<int>(0, n),
            [&body](const tbb::blocked_range<int>& r) {
              for (int i = r.begin(); i != r.end(); ++i) body(i);
            },
            tbb::auto_partitioner());
      });
    });
  }

  std::uint64_t reduce(int n) override {
    std::uint64_t sum = 0;
    arena_.execute([&] {
      sum = tbb::parallel_reduce(
          tbb::blocked_range<int>(0, n), std::uint64_t{0},
          [](const tbb::blocked_range<int>& r, std::uint64_t acc) {
            for (int i = r.begin(); i != r.end(); ++i) acc += reduce_value(i);
            return acc;
          },
          std::plus<>{});
    });
    return sum;
  }

 private:
  tbb::task_arena arena_;
};

}  // namespace

std::unique_ptr<Runtime> make_tbb_runtime(std::size_t workers) { return std::make_unique<TbbRuntime>(workers); }

}  // namespace stealbench::loops

// The idle suite: the CPU a pool burns while it has nothing to do. Each run
// creates the pool, gives it a burst of work (fib(20) as a task per call for the
// fork-join runtimes, 10,000 tiny tasks for the mutex pool), lets it settle for
// 200 ms (spinning and timed parks end), then reads the process's CPU time
// (getrusage: user + system, all threads) over a 500 ms window (100 ms / 20 ms
// with --quick) and reports it as a percentage of one core. The pool is
// destroyed after the window. The reference row ("process alone", in the serial
// row's place) measures the same window with no pool at all: the floor of this
// measure (the measuring thread's own sleep and wake-up, and any threads that
// earlier cases' runtimes left behind, such as OpenMP's), which the pools' rows
// cannot go below.
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "../forkjoin/workloads.hpp"
#include "../throughput/mutex_pool.hpp"
#include "suites.hpp"

namespace stealbench {
namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

struct Window {
  std::chrono::milliseconds settle, measure;
};

double percent_of_core(Window w) {
  std::this_thread::sleep_for(w.settle);
  const double c0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(w.measure);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return 100.0 * (cpu_seconds() - c0) / wall;
}

using MakeRuntime = std::unique_ptr<fj::Runtime> (*)(std::size_t);

std::function<void(std::span<double>)> forkjoin_idle(MakeRuntime make, std::size_t workers, Window w) {
  return [make, workers, w](std::span<double> out) {
    const auto rt = make(workers);
    if (rt->fib(20) != fj::fib_expected(20)) throw WrongResult("wrong fib(20) in the burst");
    out[0] = percent_of_core(w);
  };
}

std::function<void(std::span<double>)> mutex_pool_idle(std::size_t workers, Window w) {
  return [workers, w](std::span<double> out) {
    std::atomic<int> ran{0};
    MutexPool<int> pool(workers, [&](int, std::size_t) { ran.fetch_add(1, std::memory_order_relaxed); });
    for (int i = 0; i < 10'000; ++i) pool.submit(i);
    pool.wait_idle();
    if (ran.load() != 10'000) throw WrongResult("the burst ran " + std::to_string(ran.load()) + " tasks");
    out[0] = percent_of_core(w);
  };
}

std::unique_ptr<fj::Runtime> make_stealpool(std::size_t workers) { return fj::make_stealpool_runtime(workers, false); }

}  // namespace

Suite idle_suite(const Config& config) {
  Suite s;
  s.name = "idle";
  s.reps = config.reps_or(3);
  const Window w = config.quick ? Window{std::chrono::milliseconds(20), std::chrono::milliseconds(100)}
                                : Window{std::chrono::milliseconds(200), std::chrono::milliseconds(500)};
  SuiteBuilder b(s, config);
  for (std::size_t workers : config.workers) {
    // The runtime is created inside each run, so a case costs nothing until it runs.
    auto add = [&](const char* runtime, const char* what, std::function<void(std::span<double>)> run) {
      b.add_case({b.add({"idle_cpu", runtime, what, workers, "% of a core", {}})}, std::move(run));
    };
    add("stealpool", "ThreadPool", forkjoin_idle(make_stealpool, workers, w));
    if (workers == config.workers.front())
      b.add_serial({"idle_cpu", "process alone", "no pool", 0, "% of a core", {}},
                   [w](std::span<double> out) { out[0] = percent_of_core(w); });
    add("mutex pool", "", mutex_pool_idle(workers, w));
#if STEALBENCH_HAVE_TBB
    add("oneTBB", "task_arena", forkjoin_idle(fj::make_tbb_runtime, workers, w));
#endif
#if STEALBENCH_HAVE_OMP
    add("OpenMP", "", forkjoin_idle(fj::make_omp_runtime, workers, w));
#endif
  }
  s.title = "idle CPU: % of one core used by the whole process over " + std::to_string(w.measure.count()) +
            " ms, " + std::to_string(w.settle.count()) + " ms after a burst of work";
  s.notes.push_back("the pool is created, given a burst (checked), then left idle; lower is better");
  s.notes.push_back("process alone: the same window with no pool, the floor of this measure; its column "
                    "'speedup' is that floor over the row's figure (1x: the pool costs nothing measurable)");
  return s;
}

}  // namespace stealbench

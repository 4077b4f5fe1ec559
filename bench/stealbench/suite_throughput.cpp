// The throughput suite: one producer thread submits N tiny tasks (10^6; 10^5 with
// --quick) to a pool of W workers, then waits for all of them; the time from the
// first submit to the end of the wait is reported. Two workloads:
//   spawn_single   one task per submit call
//   spawn_batch    batches of 256 per call (runtimes with a batch call only)
// Each runtime is used the way its own documentation recommends:
//   stealpool   Executor<uint32_t, Acc*>: spawn_external / spawn_external_batch, join()
//   mutex pool  bench/throughput/mutex_pool.hpp: submit / submit_batch, wait_idle()
//   oneTBB      the producer enters a task_arena and runs the tasks into a
//               task_group, then waits (helping) for them
// The pool is created before the clock starts. Every run checks the task count and
// a checksum of the task indices, summed from per-worker accumulators.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "../throughput/mutex_pool.hpp"
#include "stealpool/stealpool.hpp"
#include "suites.hpp"

#if STEALBENCH_HAVE_TBB
#include <tbb/task_arena.h>
#include <tbb/task_group.h>
#endif

namespace stealbench {
namespace {

constexpr std::size_t kBatch = 256;

// Per-worker accumulators, padded apart: the tasks themselves must not contend.
struct alignas(128) Acc {
  std::uint64_t sum = 0;
  std::uint64_t count = 0;
};

// The tiny task: fold the index into the worker's accumulator.
inline void tiny_task(std::uint32_t i, Acc& acc) {
  acc.sum += i * 2654435761u;
  acc.count += 1;
}

struct Params {
  std::uint32_t tasks;
  std::size_t workers;
  bool batched;
  std::uint64_t expected_sum;
};

void check(const std::vector<Acc>& accs, const Params& p) {
  std::uint64_t sum = 0, count = 0;
  for (const Acc& a : accs) {
    sum += a.sum;
    count += a.count;
  }
  if (count != p.tasks || sum != p.expected_sum)
    throw WrongResult(std::to_string(count) + " tasks ran (want " + std::to_string(p.tasks) +
                      "), checksum " + std::to_string(sum) + " (want " + std::to_string(p.expected_sum) + ")");
}

// The producer's side, the same for every runtime: indices 0..N-1 one at a time
// through `one`, or in batches of kBatch through `batch`.
template <class One, class Batch>
void produce(const Params& p, std::vector<std::uint32_t>& buf, One one, Batch batch) {
  if (!p.batched) {
    for (std::uint32_t i = 0; i < p.tasks; ++i) one(i);
    return;
  }
  for (std::uint32_t i = 0; i < p.tasks;) {
    const auto n = static_cast<std::uint32_t>(std::min<std::size_t>(kBatch, p.tasks - i));
    for (std::uint32_t k = 0; k < n; ++k) buf[k] = i + k;
    batch(std::span<const std::uint32_t>(buf.data(), n));
    i += n;
  }
}

double stealpool_run(const Params& p, std::vector<Acc>& accs) {
  stealpool::ExecutorConfig cfg;
  cfg.workers = p.workers;
  stealpool::Executor<std::uint32_t, Acc*> ex(
      cfg, [&](std::size_t id) { return &accs[id]; },
      [](std::uint32_t i, stealpool::WorkerCtx<std::uint32_t, Acc*>& ctx) { tiny_task(i, *ctx.scratch()); });
  std::vector<std::uint32_t> buf(kBatch);
  return time_ms([&] {
    produce(
        p, buf, [&](std::uint32_t i) { if (!ex.spawn_external(i)) throw WrongResult("spawn_external refused"); },
        [&](std::span<const std::uint32_t> b) {
          if (!ex.spawn_external_batch(b)) throw WrongResult("spawn_external_batch refused");
        });
    (void)ex.join();
  });
}

double mutex_pool_run(const Params& p, std::vector<Acc>& accs) {
  MutexPool<std::uint32_t> pool(p.workers, [&](std::uint32_t i, std::size_t id) { tiny_task(i, accs[id]); });
  std::vector<std::uint32_t> buf(kBatch);
  return time_ms([&] {
    produce(
        p, buf, [&](std::uint32_t i) { pool.submit(i); }, [&](std::span<const std::uint32_t> b) { pool.submit_batch(b); });
    pool.wait_idle();
  });
}

#if STEALBENCH_HAVE_TBB
double tbb_run(const Params& p, std::vector<Acc>& accs) {
  tbb::task_arena arena(static_cast<int>(p.workers));
  arena.initialize();
  double ms = 0;
  arena.execute([&] {
    tbb::task_group g;
    ms = time_ms([&] {
      for (std::uint32_t i = 0; i < p.tasks; ++i)
        g.run([i, &accs] {
          const int slot = tbb::this_task_arena::current_thread_index();
          tiny_task(i, accs[static_cast<std::size_t>(slot)]);
        });
      g.wait();
    });
  });
  return ms;
}
#endif

using RunFn = double (*)(const Params&, std::vector<Acc>&);

std::function<void(std::span<double>)> timed(RunFn fn, Params p) {
  return [fn, p](std::span<double> out) {
    std::vector<Acc> accs(p.workers + 1);
    out[0] = fn(p, accs);
    check(accs, p);
  };
}

}  // namespace

Suite throughput_suite(const Config& config) {
  Suite s;
  s.name = "throughput";
  s.reps = config.reps_or(7);
  const std::uint32_t tasks = config.quick ? 100'000 : 1'000'000;
  std::uint64_t expected = 0;
  for (std::uint32_t i = 0; i < tasks; ++i) expected += i * 2654435761u;

  SuiteBuilder b(s, config);
  for (bool batched : {false, true}) {
    const std::string workload = batched ? "spawn_batch" : "spawn_single";
    for (std::size_t workers : config.workers) {
      const Params p{tasks, workers, batched, expected};
      auto add = [&](const char* runtime, const char* idiom, RunFn fn) {
        b.add_case({b.add({workload, runtime, idiom, workers, "ms", {}})}, timed(fn, p));
      };
      add("stealpool", batched ? "spawn_external_batch" : "spawn_external", stealpool_run);
      add("mutex pool", batched ? "submit_batch" : "submit", mutex_pool_run);
#if STEALBENCH_HAVE_TBB
      if (!batched) add("oneTBB", "task_group::run", tbb_run);
#endif
    }
  }
  s.title = "external-producer throughput: 1 producer, " + std::to_string(tasks) +
            " tiny tasks one at a time (spawn_single) or in batches of 256 (spawn_batch); ms per run";
  s.notes.push_back("checked every run: task count and checksum of the task indices");
  return s;
}

}  // namespace stealbench

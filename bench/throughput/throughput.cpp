// External-producer throughput: one thread submits N tiny tasks to a pool of W
// workers, then waits for all of them. Each runtime is used the way its own
// documentation recommends; every run's result (task count and checksum) is
// checked, and a wrong result fails the program.
//
//   stealpool_throughput [--tasks N] [--workers W] [--reps R] [--batch B] [--only NAME]
//
// NAME filters rows: mutex-single, tbb-single, stealpool-single, mutex-batch,
// stealpool-batch (a substring matches several, e.g. 'single').
//
// Prints, per runtime and mode, the median / min / max time per run and the ratio
// of the best one-at-a-time peer's median to ours (higher is better for us).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "../common/bench_cli.hpp"
#include "mutex_pool.hpp"
#include "stealpool/stealpool.hpp"

#if STEALBENCH_HAVE_TBB
#include <tbb/task_arena.h>
#include <tbb/task_group.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::uint32_t tasks = 1'000'000;
  std::size_t workers = 2;
  int reps = 11;
  std::size_t batch = 256;
  std::string only;  // run only the rows whose runtime name contains this
};

// Per-worker accumulators, padded apart: the tasks themselves must not contend.
struct alignas(128) Acc {
  std::uint64_t sum = 0;
  std::uint64_t count = 0;
};

// The "tiny task": fold the index into the worker's accumulator.
inline void tiny_task(std::uint32_t i, Acc& acc) {
  acc.sum += i * 2654435761u;
  acc.count += 1;
}

std::uint64_t expected_sum(std::uint32_t n) {
  std::uint64_t s = 0;
  for (std::uint32_t i = 0; i < n; ++i) s += i * 2654435761u;
  return s;
}

struct Result : stealbench::Samples {
  std::string runtime, mode;
};

void check(const char* who, const std::vector<Acc>& accs, std::uint32_t n) {
  std::uint64_t sum = 0, count = 0;
  for (const auto& a : accs) {
    sum += a.sum;
    count += a.count;
  }
  if (count != n || sum != expected_sum(n)) {
    std::fprintf(stderr, "WRONG RESULT from %s: count %llu (want %u), checksum %llu (want %llu)\n", who,
                 static_cast<unsigned long long>(count), n, static_cast<unsigned long long>(sum),
                 static_cast<unsigned long long>(expected_sum(n)));
    std::exit(1);
  }
}

// One row of the table: a runtime and mode, and a function that performs one
// timed run (pool start-up excluded: it happens before the clock starts) into the
// given per-worker accumulators and returns milliseconds.
struct Row {
  Result result;
  std::function<double(std::vector<Acc>&)> run_once;
};

// Runs rep 1 of every row, then rep 2 of every row, ...: machine noise and what a
// runtime leaves behind (oneTBB's workers keep spinning for a while after their
// arena empties) hit every runtime alike instead of whichever runs next.
void run_interleaved(std::vector<Row>& rows, const Options& o) {
  for (int rep = 0; rep < o.reps; ++rep)
    for (auto& row : rows) {
      std::vector<Acc> accs(o.workers + 1);
      const double ms = row.run_once(accs);
      check(row.result.runtime.c_str(), accs, o.tasks);
      row.result.ms.push_back(ms);
    }
}

double since_ms(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The producer's side, the same for every runtime: submits task indices 0..N-1
// one at a time through `one`, or in batches of o.batch through `batch`.
template <class One, class Batch>
void produce(const Options& o, bool batched, std::vector<std::uint32_t>& buf, One one, Batch batch) {
  if (!batched) {
    for (std::uint32_t i = 0; i < o.tasks; ++i) one(i);
    return;
  }
  for (std::uint32_t i = 0; i < o.tasks;) {
    const std::uint32_t n = static_cast<std::uint32_t>(std::min<std::size_t>(o.batch, o.tasks - i));
    for (std::uint32_t k = 0; k < n; ++k) buf[k] = i + k;
    batch(std::span<const std::uint32_t>(buf.data(), n));
    i += n;
  }
}

Row stealpool_row(const Options& o, bool batched) {
  return {{{}, "stealpool", batched ? "batch" : "one-at-a-time"}, [o, batched](std::vector<Acc>& accs) {
    stealpool::ExecutorConfig cfg;
    cfg.workers = o.workers;
    stealpool::Executor<std::uint32_t, Acc*> ex(
        cfg, [&](std::size_t id) { return &accs[id]; },
        [](std::uint32_t i, stealpool::WorkerCtx<std::uint32_t, Acc*>& ctx) { tiny_task(i, *ctx.scratch()); });
    std::vector<std::uint32_t> buf(o.batch);
    const auto t0 = Clock::now();
    produce(
        o, batched, buf, [&](std::uint32_t i) { if (!ex.spawn_external(i)) std::abort(); },
        [&](std::span<const std::uint32_t> b) { if (!ex.spawn_external_batch(b)) std::abort(); });
    (void)ex.join();
    return since_ms(t0);
  }};
}

Row mutex_pool_row(const Options& o, bool batched) {
  return {{{}, "mutex+condvar pool", batched ? "batch" : "one-at-a-time"}, [o, batched](std::vector<Acc>& accs) {
    stealbench::MutexPool<std::uint32_t> pool(o.workers, [&](std::uint32_t i, std::size_t id) { tiny_task(i, accs[id]); });
    std::vector<std::uint32_t> buf(o.batch);
    const auto t0 = Clock::now();
    produce(
        o, batched, buf, [&](std::uint32_t i) { pool.submit(i); },
        [&](std::span<const std::uint32_t> b) { pool.submit_batch(b); });
    pool.wait_idle();
    return since_ms(t0);
  }};
}

#if STEALBENCH_HAVE_TBB
// oneTBB's fastest idiom for an external producer: the producer enters an arena
// and runs tasks into a task_group, then waits (helping) for them.
Row tbb_row(const Options& o) {
  return {{{}, "oneTBB task_group", "one-at-a-time"}, [o](std::vector<Acc>& accs) {
    tbb::task_arena arena(static_cast<int>(o.workers));
    arena.initialize();
    double ms = 0;
    arena.execute([&] {
      tbb::task_group g;
      const auto t0 = Clock::now();
      for (std::uint32_t i = 0; i < o.tasks; ++i)
        g.run([i, &accs] {
          const int slot = tbb::this_task_arena::current_thread_index();
          tiny_task(i, accs[static_cast<std::size_t>(slot)]);
        });
      g.wait();
      ms = since_ms(t0);
    });
    return ms;
  }};
}
#endif

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    auto next = [&](const char* flag) -> long long {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", flag);
        std::exit(2);
      }
      char* end = nullptr;
      const long long v = std::strtoll(argv[++i], &end, 10);
      if (*end != '\0' || v <= 0) {
        std::fprintf(stderr, "%s: bad value '%s' (want a positive integer)\n", flag, argv[i]);
        std::exit(2);
      }
      return v;
    };
    if (!std::strcmp(argv[i], "--tasks")) o.tasks = static_cast<std::uint32_t>(next("--tasks"));
    else if (!std::strcmp(argv[i], "--workers")) o.workers = static_cast<std::size_t>(next("--workers"));
    else if (!std::strcmp(argv[i], "--reps")) o.reps = static_cast<int>(next("--reps"));
    else if (!std::strcmp(argv[i], "--batch")) o.batch = static_cast<std::size_t>(next("--batch"));
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) o.only = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--tasks N] [--workers W] [--reps R] [--batch B] [--only NAME]\n", argv[0]);
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::printf("external-producer throughput: 1 producer, %zu workers, %u tiny tasks, batch %zu, %d reps\n",
              o.workers, o.tasks, o.batch, o.reps);
  auto want = [&](const char* name) { return o.only.empty() || std::string(name).find(o.only) != std::string::npos; };
  std::vector<Row> rows;
  if (want("mutex-single")) rows.push_back(mutex_pool_row(o, false));
#if STEALBENCH_HAVE_TBB
  if (want("tbb-single")) rows.push_back(tbb_row(o));
#endif
  if (want("stealpool-single")) rows.push_back(stealpool_row(o, false));
  if (want("mutex-batch")) rows.push_back(mutex_pool_row(o, true));
  if (want("stealpool-batch")) rows.push_back(stealpool_row(o, true));
  run_interleaved(rows, o);
  std::vector<Result> peers, ours;
  for (auto& r : rows) (r.result.runtime == "stealpool" ? ours : peers).push_back(std::move(r.result));

  double best_peer_single = 1e300;
  for (const auto& p : peers)
    if (p.mode == "one-at-a-time") best_peer_single = std::min(best_peer_single, p.median());

  std::printf("\n%-22s %-14s %10s %10s %10s %12s\n", "runtime", "mode", "median ms", "min ms", "max ms",
              "vs best 1x1");
  auto row = [&](const Result& r) {
    std::printf("%-22s %-14s %10.1f %10.1f %10.1f ", r.runtime.c_str(), r.mode.c_str(), r.median(), r.min(), r.max());
    if (best_peer_single < 1e300) std::printf("%11.2fx\n", best_peer_single / r.median());
    else std::printf("%12s\n", "n/a");
  };
  for (const auto& p : peers) row(p);
  for (const auto& r : ours) row(r);
  std::printf("\n'vs best 1x1': the best one-at-a-time peer's median divided by this row's median.\n");
  return 0;
}

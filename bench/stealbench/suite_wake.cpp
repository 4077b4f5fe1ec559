// The wake-up suite: how long a task given to an idle, parked pool waits before it
// starts. Each sample: sleep 3 ms (every runtime's workers have stopped spinning
// and parked by then), read the clock, submit one task that reads the clock when
// it starts, and wait for it; latency = start - submit. One case takes 1,000 samples
// (20 with --quick) and reports their p50 and p99 (rows wake_p50 and wake_p99),
// in microseconds. 1,000, so that a run's p99 is its 10th slowest sample: on the
// project's 2-vCPU VM about one wake-up in 200 lands on the other, idle vCPU and
// takes 50-140 us (bench/micro/wake_trace), and the p99 of 200 samples (its 2nd
// slowest) was one of those or not by chance: 24-63 us for the same build within
// an hour, 21.5 us as the median of three runs of 2,000 samples.
//   stealpool   Executor::spawn_external (the pool stays open for the whole suite)
//   mutex pool  submit: push under the lock, notify_one
//   oneTBB      task_arena::enqueue, the fire-and-forget call
//   futex floor one thread parked on a bare Parker (a futex word), no queue and
//               no pool: what every pool's wake-up pays at least on this machine
//               (docs/wakeup.md, "The floor"); the serial row's place, so the
//               column after the median is the floor over the row's time
// OpenMP has no call that hands one task to a parked team from outside, so it has
// no row here.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../common/parked_thread.hpp"
#include "../throughput/mutex_pool.hpp"
#include "stealpool/stealpool.hpp"
#include "suites.hpp"

#if STEALBENCH_HAVE_TBB
#include <tbb/task_arena.h>
#endif

namespace stealbench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kGap = std::chrono::milliseconds(3);

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// Where a submitted task leaves the time it started. The submitter spins on it
// (acquire, pairs with the task's release store), so the task's clock read is
// the one the submitter sees.
struct Probe {
  std::atomic<std::int64_t> started_ns{0};
  void start() { started_ns.store(now_ns(), std::memory_order_release); }
};

// One runtime's submit call, kept for the whole suite.
class Submitter {
 public:
  virtual ~Submitter() = default;
  virtual void submit(Probe* p) = 0;
};

class StealpoolSubmitter final : public Submitter {
 public:
  explicit StealpoolSubmitter(std::size_t workers)
      : ex_(config(workers), [](Probe* p, stealpool::WorkerCtx<Probe*, stealpool::NoScratch>&) { p->start(); }) {}
  ~StealpoolSubmitter() override { (void)ex_.join(); }
  void submit(Probe* p) override {
    if (!ex_.spawn_external(p)) throw WrongResult("stealpool: spawn_external refused");
  }

 private:
  static stealpool::ExecutorConfig config(std::size_t workers) {
    stealpool::ExecutorConfig c;
    c.workers = workers;
    return c;
  }
  stealpool::Executor<Probe*> ex_;
};

class MutexSubmitter final : public Submitter {
 public:
  explicit MutexSubmitter(std::size_t workers) : pool_(workers, [](Probe* p, std::size_t) { p->start(); }) {}
  void submit(Probe* p) override { pool_.submit(p); }

 private:
  MutexPool<Probe*> pool_;
};

// The floor: the task's thread sleeps on its own Parker and nothing else.
class FloorSubmitter final : public Submitter {
 public:
  void submit(Probe* p) override { thread_.wake(p); }

 private:
  ParkedThread<Probe> thread_{[](Probe* p) { p->start(); }};
};

#if STEALBENCH_HAVE_TBB
class TbbSubmitter final : public Submitter {
 public:
  explicit TbbSubmitter(std::size_t workers) : arena_(static_cast<int>(workers)) { arena_.initialize(); }
  void submit(Probe* p) override { arena_.enqueue([p] { p->start(); }); }

 private:
  tbb::task_arena arena_;
};
#endif

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

void measure(Submitter& s, int samples, std::span<double> out) {
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(samples));
  for (int k = 0; k < samples; ++k) {
    std::this_thread::sleep_for(kGap);
    Probe probe;
    const std::int64_t t0 = now_ns();
    s.submit(&probe);
    std::int64_t started = 0;
    while ((started = probe.started_ns.load(std::memory_order_acquire)) == 0) std::this_thread::yield();
    us.push_back(static_cast<double>(started - t0) / 1000.0);
  }
  out[0] = percentile(us, 0.50);
  out[1] = percentile(us, 0.99);
}

}  // namespace

Suite wake_suite(const Config& config) {
  Suite s;
  s.name = "wake";
  s.reps = config.reps_or(3);
  const int samples = config.quick ? 20 : 1000;
  auto submitters = std::make_shared<std::vector<std::unique_ptr<Submitter>>>();
  s.keep_alive = submitters;

  SuiteBuilder b(s, config);
  for (std::size_t workers : config.workers) {
    auto add = [&](const char* runtime, const char* idiom, auto make) {
      const long p50 = b.add({"wake_p50", runtime, idiom, workers, "us", {}});
      const long p99 = b.add({"wake_p99", runtime, idiom, workers, "us", {}});
      if (p50 < 0 && p99 < 0) return;
      submitters->push_back(make(workers));
      Submitter* sub = submitters->back().get();
      b.add_case({p50, p99}, [sub, samples](std::span<double> out) { measure(*sub, samples, out); });
    };
    add("stealpool", "spawn_external", [](std::size_t w) { return std::make_unique<StealpoolSubmitter>(w); });
    add("mutex pool", "submit", [](std::size_t w) { return std::make_unique<MutexSubmitter>(w); });
#if STEALBENCH_HAVE_TBB
    add("oneTBB", "task_arena::enqueue", [](std::size_t w) { return std::make_unique<TbbSubmitter>(w); });
#endif
  }
  // The floor, once, in the serial rows' place, if any pool's row was added.
  if (!submitters->empty()) {
    submitters->push_back(std::make_unique<FloorSubmitter>());
    Submitter* floor = submitters->back().get();
    b.add_serial(std::vector<Row>{{"wake_p50", "futex floor", "one thread, no pool", 0, "us", {}},
                                  {"wake_p99", "futex floor", "one thread, no pool", 0, "us", {}}},
                 [floor, samples](std::span<double> out) { measure(*floor, samples, out); });
  }
  s.title = "wake-up latency: submit to start of one task given to a parked pool (3 ms idle before each), " +
            std::to_string(samples) + " samples per run; us";
  s.notes.push_back("each run's p50 and p99 over its samples; the table's median/min/max are over runs");
  s.notes.push_back("futex floor: one thread woken from a bare futex, no pool; the column after a row's median is "
                    "the floor over it (1x: the pool adds nothing to the wake-up itself)");
  return s;
}

}  // namespace stealbench

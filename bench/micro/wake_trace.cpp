// wake_trace: where the time of one wake-up goes. Hands one task at a time to
// an idle, parked Executor (3 ms apart, as stealbench's wake suite does) and
// timestamps each step of the wake-up:
//
//   submit    the submitter reads the clock and calls spawn_external
//   returned  spawn_external returned (queue push + notify + futex wake done)
//   unparked  the worker's park() returned (TraceSink::on_unpark)
//   started   the task's first instruction
//
// with the CPU each side ran on (sched_getcpu). Prints the percentiles of the
// three gaps (the task's start also split by whether the worker ran on the
// submitter's CPU), then the timelines of the median sample, of the slowest,
// and of the p99 of those on the submitter's CPU, for pinned and unpinned
// workers. docs/wakeup.md quotes its output.
//
// Usage: wake_trace [--workers N] [--samples N] [--pin 0|1|both] [--gap-us N]
//                   [--park-timeout-us N]   (0: parks never time out)
//                   [--spin-iters N]        (idle rounds before the first park)
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "stealpool/stealpool.hpp"

namespace {

using Clock = std::chrono::steady_clock;
std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

struct Sample {
  std::int64_t submit = 0, returned = 0, unparked = 0, started = 0;
  int submit_cpu = -1, worker_cpu = -1;
  bool via_park = false;  // the worker was parked when the task came
};

// The worker's last return from park(): written on the worker's thread, read by
// the submitter after the task's release store (acquire below) has been seen.
class UnparkClock final : public stealpool::TraceSink {
 public:
  void on_task(std::size_t, stealpool::TaskSource, std::size_t) noexcept override {}
  void on_idle(std::size_t) noexcept override {}
  void on_park(std::size_t) noexcept override { last_unpark_.store(0, std::memory_order::relaxed); }
  void on_unpark(std::size_t, bool) noexcept override {
    last_unpark_.store(now_ns(), std::memory_order::relaxed);  // published by the task's release store
  }
  std::int64_t last_unpark() const noexcept { return last_unpark_.load(std::memory_order::relaxed); }

 private:
  std::atomic<std::int64_t> last_unpark_{0};
};

struct Probe {
  std::atomic<std::int64_t> started{0};
  int cpu = -1;
};

struct Knobs {
  std::chrono::microseconds gap{3000};             // between samples: every worker parks
  std::chrono::nanoseconds park_timeout{200'000};  // the Executor's first park timeout
  std::uint32_t spin_iters = stealpool::ExecutorConfig{}.spin_iters;
};

std::vector<Sample> measure(std::size_t workers, bool pin, int samples, const Knobs& knobs) {
  UnparkClock clock;
  stealpool::ExecutorConfig cfg;
  cfg.workers = workers;
  cfg.pin_threads = pin;
  cfg.park_timeout = knobs.park_timeout;
  cfg.spin_iters = knobs.spin_iters;
  cfg.trace = &clock;
  stealpool::Executor<Probe*> ex(cfg, [](Probe* p, stealpool::WorkerCtx<Probe*, stealpool::NoScratch>&) {
    const std::int64_t t = now_ns();
    p->cpu = sched_getcpu();
    p->started.store(t, std::memory_order::release);  // pairs with the submitter's acquire
  });
  std::vector<Sample> out;
  for (int k = 0; k < samples; ++k) {
    std::this_thread::sleep_for(knobs.gap);
    Probe probe;
    Sample s;
    s.submit_cpu = sched_getcpu();
    s.submit = now_ns();
    (void)ex.spawn_external(&probe);
    s.returned = now_ns();
    while ((s.started = probe.started.load(std::memory_order::acquire)) == 0) std::this_thread::yield();
    s.worker_cpu = probe.cpu;
    s.unparked = clock.last_unpark();
    s.via_park = s.unparked >= s.submit;
    out.push_back(s);
  }
  (void)ex.join();
  return out;
}

double us(std::int64_t ns) { return static_cast<double>(ns) / 1000.0; }

// The index of quantile q in a sorted sequence of n >= 1 values.
std::size_t rank(std::size_t n, double q) {
  return std::min(n - 1, static_cast<std::size_t>(q * static_cast<double>(n - 1) + 0.5));
}

double pct(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[rank(v.size(), q)];
}

void timeline(const char* what, const Sample& s) {
  std::printf("  %s sample: submitter on CPU %d, worker on CPU %d%s\n", what, s.submit_cpu, s.worker_cpu,
              s.submit_cpu == s.worker_cpu ? " (the same CPU)" : "");
  std::printf("    +%8.1f us  spawn_external returns (push, notify, futex wake)\n", us(s.returned - s.submit));
  if (s.via_park)
    std::printf("    +%8.1f us  the worker's park() returns\n", us(s.unparked - s.submit));
  else
    std::printf("               (the worker was not parked: it found the task while polling)\n");
  std::printf("    +%8.1f us  the task starts\n", us(s.started - s.submit));
}

void report(std::size_t workers, bool pin, const std::vector<Sample>& v) {
  std::vector<double> call, sched, run, total;
  int parked = 0;
  for (const Sample& s : v) {
    call.push_back(us(s.returned - s.submit));
    total.push_back(us(s.started - s.submit));
    if (s.via_park) {
      ++parked;
      sched.push_back(us(s.unparked - s.submit));
      run.push_back(us(s.started - s.unparked));
    }
  }
  // By time to the task's start; then the same order split by where the
  // worker ran: a wake-up that crosses to the other CPU pays for that CPU's
  // wake-up too (docs/wakeup.md, "The tail").
  std::vector<Sample> sorted = v;
  std::sort(sorted.begin(), sorted.end(),
            [](const Sample& a, const Sample& b) { return a.started - a.submit < b.started - b.submit; });
  std::vector<Sample> same, other;
  for (const Sample& s : sorted) (s.submit_cpu == s.worker_cpu ? same : other).push_back(s);

  std::printf("\n%zu worker(s), %s: %zu samples, %d woken from park, %zu on the submitter's CPU\n", workers,
              pin ? "pinned" : "not pinned", v.size(), parked, same.size());
  std::printf("  %-44s %8s %8s %8s\n", "us from submit", "p50", "p90", "p99");
  std::printf("  %-44s %8.1f %8.1f %8.1f\n", "spawn_external returns", pct(call, .5), pct(call, .9), pct(call, .99));
  if (!sched.empty()) {
    std::printf("  %-44s %8.1f %8.1f %8.1f\n", "worker's park() returns", pct(sched, .5), pct(sched, .9),
                pct(sched, .99));
    std::printf("  %-44s %8.1f %8.1f %8.1f\n", "  then to the task's start (not from submit)", pct(run, .5),
                pct(run, .9), pct(run, .99));
  }
  std::printf("  %-44s %8.1f %8.1f %8.1f\n", "task starts", pct(total, .5), pct(total, .9), pct(total, .99));
  for (const auto& part : {std::pair{&same, "on the submitter's CPU"}, std::pair{&other, "on another CPU"}}) {
    const std::vector<Sample>& subset = *part.first;
    if (subset.empty()) continue;
    auto at = [&subset](double q) {
      const Sample& s = subset[rank(subset.size(), q)];
      return us(s.started - s.submit);
    };
    char label[64];
    std::snprintf(label, sizeof label, "  worker %s (%zu)", part.second, subset.size());
    std::printf("  %-44s %8.1f %8.1f %8.1f\n", label, at(.5), at(.9), at(.99));
  }
  timeline("median", sorted[sorted.size() / 2]);
  timeline("slowest", sorted.back());
  // The p99 of the wake-ups that stayed on the submitter's CPU: what is slow
  // when no second CPU has to be woken.
  if (same.size() >= 100) timeline("p99 same-CPU", same[rank(same.size(), .99)]);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t workers = 1;
  int samples = 300;
  std::string pin = "both";
  Knobs knobs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--workers" && i + 1 < argc) workers = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--samples" && i + 1 < argc) samples = std::atoi(argv[++i]);
    else if (a == "--pin" && i + 1 < argc) pin = argv[++i];
    else if (a == "--gap-us" && i + 1 < argc) knobs.gap = std::chrono::microseconds(std::atol(argv[++i]));
    else if (a == "--park-timeout-us" && i + 1 < argc) {
      const long t = std::atol(argv[++i]);
      knobs.park_timeout = t <= 0 ? std::chrono::nanoseconds::max() : std::chrono::nanoseconds(t * 1000);  // max: Parker::kForever
    } else if (a == "--spin-iters" && i + 1 < argc) {
      knobs.spin_iters = static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else {
      std::fprintf(stderr,
                   "usage: wake_trace [--workers N] [--samples N] [--pin 0|1|both] [--gap-us N] "
                   "[--park-timeout-us N] [--spin-iters N] (bad argument '%s')\n",
                   argv[i]);
      return 2;
    }
  }
  if (workers == 0 || samples < 1 || (pin != "0" && pin != "1" && pin != "both")) {
    std::fprintf(stderr, "wake_trace: --workers and --samples must be >= 1, --pin 0, 1 or both\n");
    return 2;
  }
  if (pin != "1") report(workers, false, measure(workers, false, samples, knobs));
  if (pin != "0") report(workers, true, measure(workers, true, samples, knobs));
  return 0;
}

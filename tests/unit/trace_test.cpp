// Tracing (ExecutorConfig::trace, TraceRecorder): what the workers report agrees
// exactly with what their metrics count, on the executor and on a fork-join
// pool; the recorder's bounds and its Chrome JSON.
//
// Seen to fail: with SinkTrace::on_pop's forwarding removed, the task totals
// disagree (0 against 39,999); with sleep_on's on_unpark removed, every park is
// left without its wake-up and the park/unpark pairing check fails.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "../support/test_support.hpp"
#include "../support/tree_workload.hpp"
#include "stealpool/forkjoin.hpp"
#include "stealpool/trace_recorder.hpp"

namespace sp = stealpool;
using Kind = sp::TraceRecorder::Kind;

namespace {

struct Tally {
  std::uint64_t tasks = 0, steals = 0, parks = 0, notified = 0, timeouts = 0, runs_open = 0;
};

// Reads one worker's events back, checking their grammar on the way: run slices
// open and close alternately, and every park is followed by exactly one wake-up.
Tally tally(const sp::TraceRecorder& rec, std::size_t w) {
  Tally t;
  bool running = false, parked = false;
  std::int64_t last = 0;
  for (const auto& e : rec.events(w)) {
    EXPECT_GE(e.ns, last) << "worker " << w << ": events out of time order";
    last = e.ns;
    switch (e.kind) {
      case Kind::run_begin:
        EXPECT_FALSE(running) << "worker " << w;
        running = true;
        break;
      case Kind::run_end:
        EXPECT_TRUE(running) << "worker " << w;
        running = false;
        t.tasks += e.arg;
        break;
      case Kind::steal:
        EXPECT_TRUE(running) << "worker " << w << ": a steal outside a run slice";
        ++t.steals;
        break;
      case Kind::park:
        EXPECT_FALSE(parked) << "worker " << w << ": parked twice without a wake-up";
        EXPECT_FALSE(running) << "worker " << w << ": parked inside a run slice";
        parked = true;
        ++t.parks;
        break;
      case Kind::unpark_notified:
      case Kind::unpark_timeout:
        EXPECT_TRUE(parked) << "worker " << w << ": woken without a park";
        parked = false;
        ++(e.kind == Kind::unpark_notified ? t.notified : t.timeouts);
        break;
    }
  }
  EXPECT_FALSE(parked) << "worker " << w << ": still parked at the end";
  t.runs_open = running ? 1 : 0;
  return t;
}

TEST(Trace, ExecutorEventsAgreeWithItsMetricsWorkerByWorker) {
  for (std::size_t workers : {1u, 2u, 8u}) {
    sp::TraceRecorder rec(workers);
    sp::ExecutorConfig cfg = sptest::config_with(workers);
    cfg.trace = &rec;
    const sptest::TreeResult r = sptest::run_tree(cfg, 20'000);
    ASSERT_EQ(r.metrics.tasks_executed, 39'999u);
    ASSERT_EQ(rec.dropped(), 0u);
    std::uint64_t tasks = 0;
    for (std::size_t w = 0; w < workers; ++w) {
      const Tally t = tally(rec, w);
      const sp::WorkerMetrics& m = r.metrics.per_worker[w];
      EXPECT_EQ(t.runs_open, 0u) << "worker " << w << ": its last run slice was not closed at exit";
      EXPECT_EQ(t.tasks, m.tasks_executed) << "worker " << w;
      EXPECT_EQ(t.steals, m.tasks_from_steal) << "worker " << w;
      EXPECT_EQ(t.parks, m.parks) << "worker " << w;
      EXPECT_EQ(t.notified, m.unparks) << "worker " << w;
      tasks += t.tasks;
    }
    EXPECT_EQ(tasks, 39'999u);
  }
}

long fib(long n) {
  if (n < 2) return n;
  auto [a, b] = sp::join([n] { return fib(n - 1); }, [n] { return fib(n - 2); });
  return a + b;
}

TEST(Trace, AForkJoinPoolReportsItsStealsAndSleeps) {
  sp::TraceRecorder rec(4);
  sp::ExecutorConfig cfg = sptest::config_with(4);
  cfg.trace = &rec;
  {
    sp::ThreadPool pool(cfg);
    for (int round = 0; round < 3; ++round) {
      EXPECT_EQ(pool.run([] { return fib(22); }), 17711);
      // Until some worker has gone to sleep (on a loaded machine the spin and
      // yield tiers can outlast any fixed pause), then a little longer for it
      // to reach the park itself.
      for (int i = 0; i < 10'000 && pool.shared().sleep.sleeping_hint() == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }  // joined: the recorder may be read
  Tally all;
  for (std::size_t w = 0; w < 4; ++w) {
    const Tally t = tally(rec, w);
    all.tasks += t.tasks + t.runs_open;
    all.steals += t.steals;
    all.parks += t.parks;
  }
  EXPECT_GE(all.tasks, 3u) << "each pool.run() is a task some worker found";
  EXPECT_GT(all.parks, 0u) << "idle 5 ms between rounds, the workers park";
  EXPECT_EQ(rec.dropped(), 0u);
}

TEST(TraceRecorder, AFullWorkerBufferDropsAndCountsInsteadOfGrowing) {
  sp::TraceRecorder rec(2, 3);
  for (int i = 0; i < 5; ++i) {
    rec.on_task(0, sp::TaskSource::steal, 1);  // run_begin once, then a steal each
    rec.on_idle(0);
  }
  EXPECT_EQ(rec.events(0).size(), 3u);
  EXPECT_EQ(rec.events(0).capacity(), 3u) << "the buffer never grows past its reservation";
  EXPECT_EQ(rec.dropped(), 12u);  // 5 x (run_begin, steal, run_end) = 15 events, 3 kept
  EXPECT_TRUE(rec.events(1).empty());
}

TEST(TraceRecorder, WritesChromeTraceEventsForRunsStealsAndSleeps) {
  sp::TraceRecorder rec(2);
  rec.on_park(1);
  rec.on_unpark(1, true);
  rec.on_task(1, sp::TaskSource::injector, 0);
  rec.on_task(1, sp::TaskSource::steal, 0);
  rec.on_idle(1);
  std::ostringstream out;
  rec.write_chrome_json(out, "pool");
  const std::string json = out.str();
  EXPECT_NE(json.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(json.find("\"name\": \"worker 1\""), std::string::npos);
  EXPECT_NE(json.find("\"name\": \"sleep\""), std::string::npos);
  EXPECT_NE(json.find("\"woken_by\": \"notify\""), std::string::npos);
  EXPECT_NE(json.find("\"name\": \"steal\""), std::string::npos);
  EXPECT_NE(json.find("\"victim\": 0"), std::string::npos);
  EXPECT_NE(json.find("\"tasks\": 2"), std::string::npos) << json;
}

TEST(TraceRecorder, RejectsZeroWorkersOrZeroCapacityNamingTheValue) {
  EXPECT_THROW(sp::TraceRecorder(0), std::invalid_argument);
  try {
    sp::TraceRecorder rec(1, 0);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("max_events_per_worker"), std::string::npos) << e.what();
  }
}

}  // namespace

// stealbench --trace FILE: one traced run of the fork-join workloads on a
// ThreadPool whose ExecutorConfig::trace is a stealpool::TraceRecorder, written
// as a Chrome/Perfetto trace (stealpool/trace_recorder.hpp says what is in it).
// The workloads run one after another with 20 ms of idleness between them, so
// that the timeline shows the workers running, stealing, parking and waking:
//   fib(n) (the first --fib value; 25 with --quick), nqueens, UTS T3.
// Results are checked as in the fork-join suite.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "../forkjoin/workloads.hpp"
#include "stealpool/executor_config.hpp"
#include "stealpool/trace_recorder.hpp"
#include "trace_run.hpp"

namespace stealbench {

void write_trace(const std::string& path, const Config& config) {
  const std::size_t workers = config.workers.back();
  stealpool::TraceRecorder rec(workers);
  stealpool::ExecutorConfig cfg;
  cfg.workers = workers;
  cfg.trace = &rec;
  const int fib_n = config.quick ? 25 : config.fib.front();
  const int queens = config.quick ? 9 : 12;
  {
    const auto rt = fj::make_stealpool_runtime(cfg, false);
    auto gap = [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
    gap();
    if (rt->fib(fib_n) != fj::fib_expected(fib_n)) throw WrongResult("--trace: wrong fib");
    gap();
    if (rt->nqueens(queens) != fj::kQueensSolutions[static_cast<std::size_t>(queens)])
      throw WrongResult("--trace: wrong nqueens");
    gap();
    if (rt->uts(fj::kUtsT3) != fj::kUtsT3.nodes) throw WrongResult("--trace: wrong UTS T3 node count");
    gap();
  }  // the pool's threads are joined here: the recorder may be read
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  rec.write_chrome_json(out, "stealpool ThreadPool");
  if (!out) throw std::runtime_error("error writing '" + path + "'");

  std::size_t events = 0, steals = 0, parks = 0;
  for (std::size_t w = 0; w < workers; ++w)
    for (const auto& e : rec.events(w)) {
      ++events;
      steals += e.kind == stealpool::TraceRecorder::Kind::steal;
      parks += e.kind == stealpool::TraceRecorder::Kind::park;
    }
  std::printf("wrote %s: %zu workers; fib(%d), nqueens(%d), UTS T3 with 20 ms idle between; %zu events (%zu steals, "
              "%zu parks, %zu dropped); open it in ui.perfetto.dev or chrome://tracing\n",
              path.c_str(), workers, fib_n, queens, events, steals, parks, rec.dropped());
}

}  // namespace stealbench

// scan.cpp: run_scan() (scan.hpp): the search's settings, scratch and runner
// (scan/search_setup.hpp) given to feed_files() (scan/file_feed.hpp), then the
// output flushed.
#include "scan.hpp"

#include <chrono>

#include "scan/file_feed.hpp"
#include "scan/scan_task.hpp"
#include "scan/search_setup.hpp"
#include "walk/in_flight_budget.hpp"

namespace stealscan {

ScanReport run_scan(const ScanConfig& config, const Matcher& matcher, Diagnostics& diag) {
  const auto start = std::chrono::steady_clock::now();
  Stdout out;
  const SearchSetup setup(config, matcher);
  InFlightBudget budget(config.max_in_flight);
  std::vector<Tally> tallies(config.workers + 1);  // the last one is the main thread's
  std::vector<WorkerOutput> outputs(config.workers, WorkerOutput(out, setup.grouped(), config.flush_per_file));
  const ScanShared shared{setup.settings(), matcher, setup.format(), budget, diag};

  ScanReport report;
  report.metrics = feed_files<WorkerScratch>(
      FeedSettings{config.paths, config.walk, config.workers, config.progress}, budget, tallies, diag,
      [&](std::size_t id) { return setup.scratch(outputs[id], tallies[id]); },
      [&shared](ScanTask task, ScanCtx& ctx) { run_scan_task(shared, task, ctx); });
  for (WorkerOutput& o : outputs) o.flush();
  report.totals = sum(tallies);
  report_stopped_scan(report.metrics, diag, report.totals);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace stealscan

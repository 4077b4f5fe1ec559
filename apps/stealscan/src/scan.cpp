// scan.cpp: run_scan() (scan.hpp): the search's settings, scratch and runner
// given to feed_files() (scan/file_feed.hpp), then the output flushed.
#include "scan.hpp"

#include <algorithm>
#include <chrono>

#include "scan/file_feed.hpp"
#include "scan/scan_task.hpp"
#include "walk/in_flight_budget.hpp"

namespace stealscan {
namespace {

ScanMode scan_mode(OutputMode m) {
  switch (m) {
    case OutputMode::count: return ScanMode::count;
    case OutputMode::list: return ScanMode::list;
    case OutputMode::lines: return ScanMode::lines;
    case OutputMode::json: return ScanMode::matches;
  }
  return ScanMode::lines;
}

}  // namespace

ScanReport run_scan(const ScanConfig& config, const Matcher& matcher, Diagnostics& diag) {
  const auto start = std::chrono::steady_clock::now();
  Stdout out;
  const bool context = config.output == OutputMode::lines && (config.before > 0 || config.after > 0);
  const HitFormat format(config.output,
                         FormatOptions{config.with_filename, config.line_numbers, config.only_matching, context},
                         matcher);
  InFlightBudget budget(config.max_in_flight);
  std::vector<Tally> tallies(config.workers + 1);  // the last one is the walker's
  std::vector<WorkerOutput> outputs(config.workers, WorkerOutput(out, context, config.flush_per_file));

  const ScanMode mode = scan_mode(config.output);
  ScanSettings settings;
  settings.scan.mode = mode;
  settings.scan.number_lines = (mode == ScanMode::lines && config.line_numbers) || mode == ScanMode::matches;
  settings.scan.invert = config.invert;
  settings.scan.only_matching = mode == ScanMode::lines && config.only_matching;
  settings.scan.max_count = config.max_count;
  if (mode == ScanMode::lines) {
    settings.scan.before = config.before;
    settings.scan.after = config.after;
  }
  settings.chunk_size = config.chunk_size;
  // Enough chunks of one file in flight for every worker to take one, and one more each.
  settings.chunk_window = static_cast<std::uint32_t>(std::max<std::size_t>(2, 2 * config.workers));
  settings.binary_as_text = config.binary_as_text;
  settings.max_filesize = config.max_filesize;
  const ScanShared shared{settings, matcher, format, budget, diag};

  const auto longest = matcher.max_match_length();
  const std::size_t overlap = longest && *longest > 0 ? *longest - 1 : 0;

  ScanReport report;
  report.metrics = feed_files<WorkerScratch>(
      FeedSettings{config.paths, config.walk, config.workers, config.progress}, budget, tallies, diag,
      [&](std::size_t id) {
        return WorkerScratch{matcher.clone(), ScanWindow(config.chunk_size, overlap), LineScratch{}, &outputs[id],
                             &tallies[id]};
      },
      [&shared](ScanTask task, ScanCtx& ctx) { run_scan_task(shared, task, ctx); });
  for (WorkerOutput& o : outputs) o.flush();
  report.totals = sum(tallies);
  report_stopped_scan(report.metrics, diag, report.totals);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace stealscan

// scan.cpp: run_scan() (scan.hpp), and Discovery, the walker's visitor that turns
// files into batches of tasks under the budget.
#include "scan.hpp"

#include <algorithm>
#include <chrono>

#include <stealpool/executor.hpp>

#include "walk/in_flight_budget.hpp"
#include "walk/path_arena.hpp"
#include "output/progress.hpp"
#include "scan/scan_task.hpp"

namespace stealscan {
namespace {

using ScanExecutor = stealpool::Executor<ScanTask, WorkerScratch>;

// Files are injected in batches: one spawn_external_batch (one CAS on the
// injector, one wake-up) per kBatch files instead of per file. A directory's
// files go out when it is done if there are a few, so that workers do not wait
// for a batch to fill while the walker reads a slow directory.
class Discovery final : public WalkVisitor {
 public:
  static constexpr std::size_t kBatch = 64;
  static constexpr std::size_t kDirectoryBatch = 8;

  Discovery(ScanExecutor& ex, InFlightBudget& budget)
      : ex_(ex), budget_(budget), batch_limit_(std::clamp<std::size_t>(budget.limit() / 2, 1, kBatch)) {
    batch_.reserve(batch_limit_);
  }

  void on_file(std::string_view path) override { add(ScanTask::Kind::file, path); }
  void on_operand(std::string_view path) override { add(ScanTask::Kind::operand, path); }
  // `-`: standard input, shown as <stdin>.
  void on_standard_input() { add(ScanTask::Kind::standard_input, "<stdin>"); }
  void on_directory_done() override {
    if (batch_.size() >= kDirectoryBatch) flush();
  }

  // Hands over what is batched (the budget first: this may wait).
  void flush() {
    if (batch_.empty()) return;
    const bool taken = budget_.acquire(batch_.size(), [this] { return !ex_.handle().is_accepting(); });
    if (!taken || !ex_.spawn_external_batch(batch_)) {
      // The executor stopped (a task failed): nothing more will run.
      for (const ScanTask& t : batch_) PathBlock::release(t.block);
      stopped_ = true;
    }
    batch_.clear();
  }

  void finish() {
    flush();
    arena_.seal();
  }

 private:
  void add(ScanTask::Kind kind, std::string_view path) {
    if (stopped_) return;
    batch_.push_back(ScanTask::file(arena_.add(path), kind));
    if (batch_.size() >= batch_limit_) flush();
  }

  ScanExecutor& ex_;
  InFlightBudget& budget_;
  const std::size_t batch_limit_;
  PathArena arena_;
  std::vector<ScanTask> batch_;
  bool stopped_ = false;
};

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

  stealpool::ExecutorConfig ec;
  ec.workers = config.workers;
  // Not pinned: a scanner shares the machine (and waits on I/O); letting the
  // kernel move a worker off a busy core beats keeping it there.
  ec.pin_threads = false;
  stealpool::ThreadOptions threads;
  threads.name = "stealscan";

  ScanReport report;
  {
    ScanExecutor ex(
        ec, threads,
        [&](std::size_t id) {
          return WorkerScratch{matcher.clone(), ScanWindow(config.chunk_size, overlap), LineScratch{}, &outputs[id],
                               &tallies[id]};
        },
        [&shared](ScanTask task, ScanCtx& ctx) { run_scan_task(shared, task, ctx); });
    Progress progress(diag, tallies, config.progress);
    Discovery discovery(ex, budget);
    Walker walker(config.walk, diag, tallies.back());
    for (const std::string& root : config.paths) {
      if (root == "-") {
        discovery.on_standard_input();
      } else {
        walker.walk(root, discovery);
      }
    }
    discovery.finish();
    report.metrics = ex.join(std::nothrow);
    progress.stop();
  }
  for (WorkerOutput& o : outputs) o.flush();
  report.totals = sum(tallies);
  if (report.metrics.first_exception) {
    try {
      std::rethrow_exception(report.metrics.first_exception);
    } catch (const std::exception& e) {
      diag.message(std::string("internal error, the scan stopped early: ") + e.what());
    } catch (...) {
      diag.message("internal error, the scan stopped early");
    }
    ++report.totals.errors;
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace stealscan

// file_feed.hpp: feed_files(), the part of a scan that does not depend on what
// is done with a file: it starts an Executor<ScanTask, Scratch>, walks the
// operands on the calling thread, hands the files to the workers in batches
// under the in-flight budget (Discovery), and joins. The search (scan.cpp) and
// `stealscan secrets` (secrets/run_secrets.cpp) each bring their Scratch and
// runner; the runner gives a budget unit back per file task (docs/design.md,
// "Layout", "Bounded memory").
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include <stealpool/executor.hpp>

#include "output/diagnostics.hpp"
#include "output/progress.hpp"
#include "scan/scan_task.hpp"
#include "scan/tally.hpp"
#include "walk/in_flight_budget.hpp"
#include "walk/path_arena.hpp"
#include "walk/walker.hpp"

namespace stealscan {

// Files are injected in batches: one spawn_external_batch (one CAS on the
// injector, one wake-up) per kBatch files instead of per file. A directory's
// files go out when it is done if there are a few, so that workers do not wait
// for a batch to fill while the walker reads a slow directory.
template <class Scratch>
class Discovery final : public WalkVisitor {
 public:
  using Exec = stealpool::Executor<ScanTask, Scratch>;
  static constexpr std::size_t kBatch = 64;
  static constexpr std::size_t kDirectoryBatch = 8;

  Discovery(Exec& ex, InFlightBudget& budget)
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

  Exec& ex_;
  InFlightBudget& budget_;
  const std::size_t batch_limit_;
  PathArena arena_;
  std::vector<ScanTask> batch_;
  bool stopped_ = false;
};

// feed_files() could not start the workers (a thread limit, no memory for the
// stacks); what() says so to the user, naming -j.
struct ThreadStartError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct FeedSettings {
  const std::vector<std::string>& paths;  // "-" is standard input
  const WalkOptions& walk;
  std::size_t workers;
  bool progress;
};

// Runs the scan; `tallies` has workers + 1 entries (the last is the walker's).
// Returns the executor's metrics (first_exception set if a task threw). Throws
// ThreadStartError if the workers cannot be started (nothing was scanned).
template <class Scratch, class ScratchInit, class Runner>
stealpool::MetricsSnapshot feed_files(const FeedSettings& s, InFlightBudget& budget, std::vector<Tally>& tallies,
                                      Diagnostics& diag, ScratchInit scratch_init, Runner runner) {
  stealpool::ExecutorConfig ec;
  ec.workers = s.workers;
  // Not pinned: a scanner shares the machine (and waits on I/O); letting the
  // kernel move a worker off a busy core beats keeping it there.
  ec.pin_threads = false;
  stealpool::ThreadOptions threads;
  threads.name = "stealscan";
  auto ex = [&] {
    try {
      return stealpool::Executor<ScanTask, Scratch>(ec, threads, std::move(scratch_init), std::move(runner));
    } catch (const std::system_error& e) {
      throw ThreadStartError("cannot start " + std::to_string(s.workers) + " worker threads (-j): " +
                             e.code().message() + "; try fewer");
    }
  }();
  Progress progress(diag, tallies, s.progress);
  Discovery<Scratch> discovery(ex, budget);
  Walker walker(s.walk, diag, tallies.back());
  for (const std::string& root : s.paths) {
    if (root == "-") {
      discovery.on_standard_input();
    } else {
      walker.walk(root, discovery);
    }
  }
  discovery.finish();
  stealpool::MetricsSnapshot metrics = ex.join(std::nothrow);
  progress.stop();
  return metrics;
}

// A task that threw stopped the scan early: said on stderr, counted as an error.
inline void report_stopped_scan(const stealpool::MetricsSnapshot& metrics, Diagnostics& diag, Totals& totals) {
  if (!metrics.first_exception) return;
  try {
    std::rethrow_exception(metrics.first_exception);
  } catch (const std::exception& e) {
    diag.message(std::string("internal error, the scan stopped early: ") + e.what());
  } catch (...) {
    diag.message("internal error, the scan stopped early");
  }
  ++totals.errors;
}

}  // namespace stealscan

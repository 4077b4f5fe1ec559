// file_feed.hpp: feed_files(), the part of a scan that does not depend on what
// is done with a file: it starts an Executor<ScanTask, Scratch>, hands the
// command line's paths to the workers, runs the walk as directory tasks on the
// same workers (run_directory_task), and joins. The search (scan.cpp) and
// `stealscan secrets` (secrets/run_secrets.cpp) each bring their Scratch (with a
// `WalkScratch walk` and a `Tally* tally`) and runner; the runner gives a budget
// unit back per file task (docs/design.md, "The walk as tasks", "Bounded memory").
#pragma once

#include <cstddef>
#include <memory>
#include <span>
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

// Entries a directory task hands out per run: the rest wait in its continuation.
inline constexpr std::size_t kWalkBatch = 64;

// Runs one directory task on a worker ([SCAN-directory-handoff] in
// docs/design.md). The task owns its Directory. The first run reads it; each run
// then takes its next kWalkBatch entries and
//   1. makes their tasks first: a new Directory per subdirectory, each file's
//      path copied into this worker's arena, and units from the budget for as
//      many files as fit (the first in listing order);
//   2. queues the continuation if entries remain. From that spawn on, the
//      Directory is the continuation's (a thief may run it at once): it is not
//      touched again here. With none left, it is deleted;
//   3. queues the batch's tasks in reverse, so that this worker pops them in
//      listing order, above the continuation: subdirectories are walked depth
//      first, and thieves, who take the oldest task, take the continuation;
//   4. scans here, in order, the files the budget had no unit for (a full
//      budget makes the walking worker scan rather than wait).
// The tasks queued by one run are at most kWalkBatch, and a continuation is
// popped by its owner only after them, so the queues stay bounded however large
// a directory is.
template <class Scratch, class Runner>
void run_directory_task(const Walker& walker, InFlightBudget& budget, Directory* dir,
                        stealpool::WorkerCtx<ScanTask, Scratch>& ctx, const Runner& runner) {
  Scratch& s = ctx.scratch();
  WalkScratch& w = s.walk;
  if (!dir->is_read() && !walker.read(*dir, w, *s.tally)) {
    delete dir;
    return;
  }
  const std::span<const Directory::Entry> entries = dir->take(kWalkBatch);
  std::size_t files = 0;
  for (const Directory::Entry& e : entries) files += e.is_dir ? 0 : 1;
  std::size_t units = budget.take_up_to(files);
  std::vector<ScanTask> queue;  // in listing order
  std::vector<ScanTask> here;   // files without a unit
  queue.reserve(entries.size());
  for (const Directory::Entry& e : entries) {
    if (e.is_dir) {
      queue.push_back(ScanTask::directory(dir->child(e).release()));
    } else if (units > 0) {
      --units;
      queue.push_back(ScanTask::file(w.paths.add(dir->entry_path(e, w.path))));
    } else {
      here.push_back(ScanTask::file(w.paths.add(dir->entry_path(e, w.path))));
    }
  }
  if (dir->remaining() > 0) {
    ctx.spawn_local(ScanTask::directory(dir));  // the Directory is the continuation's now
  } else {
    delete dir;
  }
  for (std::size_t i = queue.size(); i-- > 0;) ctx.spawn_local(queue[i]);
  for (const ScanTask& t : here) {
    budget.take(1);
    runner(t, ctx);
  }
}

// The command line's paths, handed to the executor from the calling thread in
// batches (one spawn_external_batch, one CAS on the injector and one wake-up,
// per kBatch): file operands (a unit each, taken whatever the count: the
// command line is already in memory) and directories to walk.
template <class Scratch>
class OperandFeed final : public WalkVisitor {
 public:
  using Exec = stealpool::Executor<ScanTask, Scratch>;
  static constexpr std::size_t kBatch = 64;

  OperandFeed(Exec& ex, InFlightBudget& budget) : ex_(ex), budget_(budget) {}

  void on_file(std::string_view path) override { add(ScanTask::file(arena_.add(path), ScanTask::Kind::file)); }
  void on_operand(std::string_view path) override { add(ScanTask::file(arena_.add(path), ScanTask::Kind::operand)); }
  // `-`: standard input, shown as <stdin>.
  void on_standard_input() { add(ScanTask::file(arena_.add("<stdin>"), ScanTask::Kind::standard_input)); }
  void on_directory(std::unique_ptr<Directory> dir) { add(ScanTask::directory(dir.release())); }

  // Hands over what is batched.
  void flush() {
    if (batch_.empty()) return;
    std::size_t files = 0;
    for (const ScanTask& t : batch_) files += t.kind != ScanTask::Kind::directory ? 1 : 0;
    budget_.take(files);
    if (!ex_.spawn_external_batch(batch_)) {
      // The executor stopped (a task failed): nothing more will run.
      for (const ScanTask& t : batch_) {
        if (t.kind != ScanTask::Kind::directory) budget_.release();
        let_go(t);
      }
      stopped_ = true;
    }
    batch_.clear();
  }

  void finish() {
    flush();
    arena_.seal();
  }

 private:
  // A task that will not run: what it owns goes (its Directory, or its
  // reference to its path's block).
  static void let_go(const ScanTask& t) noexcept {
    if (t.kind == ScanTask::Kind::directory) {
      delete t.dir;
    } else {
      PathBlock::release(t.block);
    }
  }

  void add(ScanTask t) {
    if (stopped_) {
      let_go(t);
      return;
    }
    batch_.push_back(t);
    if (batch_.size() >= kBatch) flush();
  }

  Exec& ex_;
  InFlightBudget& budget_;
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

// Runs the scan; `tallies` has workers + 1 entries (the last is the calling
// thread's: errors on the command line's paths).
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
  Walker walker(s.walk, diag);  // before the executor: its directory tasks read it
  auto run = [&walker, &budget, runner = std::move(runner)](ScanTask t, stealpool::WorkerCtx<ScanTask, Scratch>& ctx) {
    if (t.kind == ScanTask::Kind::directory) {
      run_directory_task(walker, budget, t.dir, ctx, runner);
    } else {
      runner(t, ctx);
    }
  };
  auto ex = [&] {
    try {
      return stealpool::Executor<ScanTask, Scratch>(ec, threads, std::move(scratch_init), std::move(run));
    } catch (const std::system_error& e) {
      throw ThreadStartError("cannot start " + std::to_string(s.workers) + " worker threads (-j): " +
                             e.code().message() + "; try fewer");
    }
  }();
  Progress progress(diag, tallies, s.progress);
  OperandFeed<Scratch> operands(ex, budget);
  for (const std::string& root : s.paths) {
    if (root == "-") {
      operands.on_standard_input();
    } else if (std::unique_ptr<Directory> dir = walker.operand(root, operands, tallies.back())) {
      operands.on_directory(std::move(dir));
    }
  }
  operands.finish();
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

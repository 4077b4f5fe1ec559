// dist_scan.cpp: run_dist_scan() (dist_scan.hpp; the design is README.md's).
#include "mpi/dist_scan.hpp"

#include <unistd.h>

#include <cstdint>
#include <deque>
#include <exception>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <stealpool/mpi/dist_executor.hpp>

#include "mpi/file_task.hpp"
#include "mpi/frames.hpp"
#include "mpi/rank_bytes.hpp"
#include "mpi/split_file.hpp"
#include "scan/scan_task.hpp"
#include "scan/search_setup.hpp"
#include "sources/read_all.hpp"
#include "walk/in_flight_budget.hpp"
#include "walk/walker.hpp"

namespace stealscan::mpi {
namespace {

// What one rank's scan leaves: its messages, in memory until rank 0 writes
// them, and its counts. (Its records went to rank 0 as the files were done.)
struct RankScan {
  std::string err;
  Totals totals;
};

// The walk as tasks (README.md, "The walk"). Each rank has its Walker (the
// same rules as stealscan's) and, per operand that is a directory, the
// operand's Directory as the walk starts it: the `top` a directory task that
// came from another rank is rebuilt below. Built on the rank's main thread
// before the run; the workers only read it. Its diagnostics go to `diag`.
class RankWalk {
 public:
  RankWalk(const ScanConfig& config, Diagnostics& diag) : paths_(config.paths), walker_(config.walk, diag) {
    tops_.reserve(paths_.size());
    for (const std::string& root : paths_) tops_.push_back(walker_.directory_operand(root));
  }

  // Rank 0's first task: a directory task per directory operand (with its
  // Directory), a file task per other operand; a path that cannot be stat'ed
  // is reported and counted (Walker::operand).
  void start(Tally& tally, FileCtx& ctx) {
    OperandSpawner spawner(ctx);
    for (std::uint32_t i = 0; i < paths_.size(); ++i) {
      std::unique_ptr<Directory> dir =
          tops_[i] ? walker_.rebuild(*tops_[i], paths_[i], tally) : walker_.operand(paths_[i], spawner, tally);
      if (dir) spawn_directory(ctx, i, std::move(dir));
    }
  }

  // A directory task: reads its directory and spawns a task per entry kept,
  // subdirectories first (oldest: what a thief takes), then the files, each in
  // reverse so that this worker pops them in listing order.
  void run(FileTask t, FileCtx& ctx, WalkScratch& scratch, Tally& tally) const {
    std::shared_ptr<Directory> dir = std::move(t.dir);
    if (!dir) {
      if (t.root >= tops_.size() || !tops_[t.root])
        throw std::runtime_error("stealscan-mpi: a directory task for operand " + std::to_string(t.root) +
                                 ", which is not a directory here ('" + t.path + "')");
      dir = walker_.rebuild(*tops_[t.root], t.path, tally);
      if (!dir) return;
    }
    if (!walker_.read(*dir, scratch, tally)) return;
    const std::span<const Directory::Entry> entries = dir->take(dir->remaining());
    for (std::size_t i = entries.size(); i-- > 0;)
      if (entries[i].is_dir) spawn_directory(ctx, t.root, dir->child(entries[i]));
    for (std::size_t i = entries.size(); i-- > 0;)
      if (!entries[i].is_dir) spawn_file(ctx, ScanTask::Kind::file, dir->entry_path(entries[i], scratch.path));
  }

 private:
  class OperandSpawner final : public WalkVisitor {
   public:
    explicit OperandSpawner(FileCtx& ctx) : ctx_(ctx) {}
    void on_file(std::string_view path) override { spawn_file(ctx_, ScanTask::Kind::file, path); }
    void on_operand(std::string_view path) override { spawn_file(ctx_, ScanTask::Kind::operand, path); }

   private:
    FileCtx& ctx_;
  };

  static void spawn_file(FileCtx& ctx, ScanTask::Kind kind, std::string_view path) {
    ctx.spawn(FileTask{kind, std::string(path)});
  }
  static void spawn_directory(FileCtx& ctx, std::uint32_t root, std::unique_ptr<Directory> dir) {
    FileTask t{ScanTask::Kind::directory, dir->path()};
    t.root = root;
    t.dir = std::move(dir);
    ctx.spawn(std::move(t));
  }

  const std::vector<std::string>& paths_;
  Walker walker_;
  std::vector<std::unique_ptr<Directory>> tops_;  // per operand: null if not a directory
};

// One worker's records: its own Stdout captures a file's records (flushed at
// the file's end), and after the file they leave as one records frame for rank
// 0 (Context::emit, frames.hpp). With context lines each file is a group; the
// worker's Stdout puts "--" before each group but its first, and rank 0 puts
// its own. A split file's chunks go as chunk frames (`chunks`).
struct WorkerRecords {
  // The records frame being built: its kind byte, then the file's records,
  // which the worker's Stdout appends; sent as it stands (no copy to a frame).
  std::string captured = std::string(1, static_cast<char>(FrameKind::records));
  Stdout sink{captured};
  bool grouped = false;
  bool emitted = false;  // a group of this worker's went out before
  ChunkSender chunks;

  void send(FileCtx& ctx) {
    if (captured.size() == 1) return;
    if (grouped && emitted && std::string_view(captured).substr(1).starts_with(kGroupSeparator))
      captured.erase(1, kGroupSeparator.size());
    ctx.emit(captured);
    emitted = true;
    captured.resize(1);
  }
  static constexpr std::string_view kGroupSeparator = "--\n";
};

// Rank 0: each records frame on stdout as it arrives, "--" between two
// groups; each chunk frame to the assembly of its file.
class FrameWriter {
 public:
  FrameWriter(bool grouped, const HitFormat& format, Diagnostics& diag, Tally& tally)
      : grouped_(grouped), split_(format, out_, diag, tally) {}
  void write(std::span<const std::byte> frame) {
    if (frame.empty()) throw std::runtime_error("stealscan-mpi: a frame of 0 bytes");
    const auto kind = static_cast<FrameKind>(frame[0]);
    frame = frame.subspan(1);
    if (kind == FrameKind::chunk) return split_.add(read_chunk_frame(frame));
    if (kind != FrameKind::records)
      throw std::runtime_error("stealscan-mpi: a frame of unknown kind " + std::to_string(static_cast<int>(kind)));
    const std::string_view text(reinterpret_cast<const char*>(frame.data()), frame.size());
    if (text.empty()) return;
    if (grouped_ && any_) out_.write(WorkerRecords::kGroupSeparator);
    out_.write(text);
    any_ = true;
  }
  [[nodiscard]] std::size_t unfinished_files() const noexcept { return split_.open_files(); }

 private:
  Stdout out_;  // descriptor 1
  bool grouped_;
  bool any_ = false;
  SplitAssembler split_;
};

RankScan scan_share(const ScanConfig& config, const Matcher& matcher, Diagnostics& diag, Tally& walk_tally,
                    MPI_Comm comm) {
  RankScan r;
  Diagnostics errors(r.err);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // Rank 0 reports what its walk meets at once; the others with their scan's
  // messages, which rank 0 writes at the end.
  RankWalk walk(config, rank == 0 ? diag : errors);
  const SearchSetup setup(config, matcher);
  InFlightBudget budget(1);  // never taken: scan_one_file() leaves the budget alone
  const ScanShared shared{setup.settings(), matcher, setup.format(), budget, errors};
  std::vector<Tally> tallies(config.workers);
  std::deque<WorkerRecords> records(config.workers);  // not movable (a Stdout holds a mutex)
  std::vector<WorkerOutput> outputs;
  outputs.reserve(config.workers);
  for (WorkerRecords& w : records) {
    w.grouped = setup.grouped();
    outputs.emplace_back(w.sink, setup.grouped(), /*per_file=*/true);  // each file's records when it is done
  }
  Tally split_tally;  // rank 0's assembly of split files: matched files, --json's figures, reopening errors
  FrameWriter writer(setup.grouped(), setup.format(), errors, split_tally);

  stealpool::mpi::DistConfig dc;
  dc.workers = config.workers;
  dc.comm = comm;
  std::uint64_t failures = 0;
  try {
    stealpool::mpi::DistExecutor<FileTask, WorkerScratch> ex(
        dc, [&](std::size_t id) { return setup.scratch(outputs[id], tallies[id]); },
        [&](FileTask t, FileCtx& ctx) {
          WorkerRecords& mine = records[ctx.worker_id()];
          if (t.kind == ScanTask::Kind::directory) {
            if (t.path.empty()) return walk.start(walk_tally, ctx);
            return walk.run(std::move(t), ctx, ctx.scratch().walk, *ctx.scratch().tally);
          }
          if (t.kind == ScanTask::Kind::chunk) return run_chunk_task(shared, std::move(t), ctx, mine.chunks);
          ChunkSplitter splitter(ctx, mine.chunks);
          scan_one_file(shared, ctx.scratch(), t.kind, t.path.c_str(), static_cast<std::uint32_t>(t.path.size()),
                        &splitter);
          mine.send(ctx);
        });
    ex.on_data([&writer](int, std::span<const std::byte> frame) { writer.write(frame); });
    if (ex.rank() == 0) ex.seed(FileTask{ScanTask::Kind::directory, {}});
    ex.run();
    if (writer.unfinished_files() != 0) {
      errors.message("internal error: " + std::to_string(writer.unfinished_files()) +
                     " split files have chunks missing at the end");
      failures = 1;
    }
  } catch (const stealpool::mpi::RemoteTaskFailure&) {
    failures = 1;  // the rank where it failed says why
  } catch (const std::exception& e) {
    errors.message(std::string("internal error, the scan stopped early: ").append(e.what()));
    failures = 1;
  }
  r.totals = sum(tallies) + split_tally.read();
  r.totals.errors += failures;
  return r;
}

// Collective: every rank's totals added up, on every rank.
Totals sum_over_ranks(MPI_Comm comm, const Totals& mine) {
  static_assert(std::is_trivially_copyable_v<Totals>, "Totals travel between ranks as bytes");
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  std::vector<Totals> all(static_cast<std::size_t>(ranks));
  MPI_Allgather(&mine, static_cast<int>(sizeof(Totals)), MPI_BYTE, all.data(), static_cast<int>(sizeof(Totals)),
                MPI_BYTE, comm);
  Totals total;
  for (const Totals& t : all) total = total + t;
  return total;
}

}  // namespace

Totals run_dist_scan(const ScanConfig& config, const Matcher& matcher, Diagnostics& diag, MPI_Comm comm) {
  Tally walk_tally;  // rank 0's walk: unreadable directories, link loops; read after run() joined it
  const RankScan scan = scan_share(config, matcher, diag, walk_tally, comm);
  const Totals total = sum_over_ranks(comm, scan.totals + walk_tally.read());
  const std::vector<std::string> messages = gather_bytes(comm, scan.err);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0)
    for (const std::string& m : messages) (void)write_all(STDERR_FILENO, m);  // stderr gone: nothing left to do
  return total;
}

}  // namespace stealscan::mpi

// dist_scan.cpp: run_dist_scan() (dist_scan.hpp; the design is README.md's).
#include "mpi/dist_scan.hpp"

#include <unistd.h>

#include <cstdint>
#include <deque>
#include <exception>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <stealpool/mpi/dist_executor.hpp>

#include "mpi/file_table.hpp"
#include "mpi/rank_bytes.hpp"
#include "scan/scan_task.hpp"
#include "scan/search_setup.hpp"
#include "sources/read_all.hpp"
#include "walk/in_flight_budget.hpp"

namespace stealscan::mpi {
namespace {

// A task: a file's number in the FileTable (trivially copyable: it travels
// between ranks as its 8 bytes and sits in the deques by value).
using FileNumber = std::uint64_t;
using FileCtx = stealpool::mpi::Context<FileNumber, WorkerScratch>;

// What one rank's scan leaves: its messages, in memory until rank 0 writes
// them, and its counts. (Its records went to rank 0 as the files were done.)
struct RankScan {
  std::string err;
  Totals totals;
};

// The files a rank starts with: rank, rank + ranks, rank + 2 ranks, ... Every
// rank gets a spread of the walk (a directory's files, often alike in size, are
// dealt round), and stealing evens out the rest.
std::vector<FileNumber> starting_share(std::size_t files, int rank, int ranks) {
  std::vector<FileNumber> mine;
  mine.reserve(files / static_cast<std::size_t>(ranks) + 1);
  for (auto i = static_cast<std::size_t>(rank); i < files; i += static_cast<std::size_t>(ranks)) mine.push_back(i);
  return mine;
}

// One worker's records: its own Stdout captures a file's records (flushed at
// the file's end), and after the file they leave as one frame for rank 0
// (Context::emit). With context lines each file is a group; the worker's
// Stdout puts "--" before each group but its first, and rank 0 puts its own.
struct WorkerRecords {
  std::string captured;
  Stdout sink{captured};
  bool grouped = false;
  bool emitted = false;  // a group of this worker's went out before

  void send(FileCtx& ctx) {
    if (captured.empty()) return;
    std::string_view frame = captured;
    if (grouped && emitted && frame.starts_with(kGroupSeparator)) frame.remove_prefix(kGroupSeparator.size());
    ctx.emit(frame);
    emitted = true;
    captured.clear();
  }
  static constexpr std::string_view kGroupSeparator = "--\n";
};

// Rank 0: each frame on stdout as it arrives, "--" between two groups.
class RecordWriter {
 public:
  explicit RecordWriter(bool grouped) : grouped_(grouped) {}
  void write(std::span<const std::byte> frame) {
    const std::string_view text(reinterpret_cast<const char*>(frame.data()), frame.size());
    if (text.empty()) return;
    if (grouped_ && any_) out_.write(WorkerRecords::kGroupSeparator);
    out_.write(text);
    any_ = true;
  }

 private:
  Stdout out_;  // descriptor 1
  bool grouped_;
  bool any_ = false;
};

RankScan scan_share(const ScanConfig& config, const Matcher& matcher, const FileTable& table, MPI_Comm comm) {
  RankScan r;
  Diagnostics errors(r.err);
  const SearchSetup setup(config, matcher);
  InFlightBudget budget(1);  // never taken: scan_file_unsplit() leaves the budget alone
  const ScanShared shared{setup.settings(), matcher, setup.format(), budget, errors};
  std::vector<Tally> tallies(config.workers);
  std::deque<WorkerRecords> records(config.workers);  // not movable (a Stdout holds a mutex)
  std::vector<WorkerOutput> outputs;
  outputs.reserve(config.workers);
  for (WorkerRecords& w : records) {
    w.grouped = setup.grouped();
    outputs.emplace_back(w.sink, setup.grouped(), /*per_file=*/true);  // each file's records when it is done
  }
  RecordWriter writer(setup.grouped());

  stealpool::mpi::DistConfig dc;
  dc.workers = config.workers;
  dc.comm = comm;
  std::uint64_t failures = 0;
  try {
    stealpool::mpi::DistExecutor<FileNumber, WorkerScratch> ex(
        dc, [&](std::size_t id) { return setup.scratch(outputs[id], tallies[id]); },
        [&](FileNumber i, FileCtx& ctx) {
          const FileTable::Entry e = table[static_cast<std::size_t>(i)];
          scan_file_unsplit(shared, ctx.scratch(), e.kind, e.path, e.length);
          records[ctx.worker_id()].send(ctx);
        });
    ex.on_data([&writer](int, std::span<const std::byte> frame) { writer.write(frame); });
    const std::vector<FileNumber> mine = starting_share(table.size(), ex.rank(), ex.size());
    ex.seed(std::span<const FileNumber>(mine));
    ex.run();
  } catch (const stealpool::mpi::RemoteTaskFailure&) {
    failures = 1;  // the rank where it failed says why
  } catch (const std::exception& e) {
    errors.message(std::string("internal error, the scan stopped early: ").append(e.what()));
    failures = 1;
  }
  r.totals = sum(tallies);
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
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  Tally walk_tally;  // rank 0's walk: unreadable directories, link loops
  FileTable table;
  if (rank == 0) {
    try {
      table = FileTable::walk(config.paths, config.walk, diag, walk_tally);
    } catch (const std::exception& e) {
      // Nothing is scanned, and every rank ends with status 2 (the totals say so).
      diag.message(std::string("walking the paths: ").append(e.what()));
      Tally::add(walk_tally.errors, 1);
      table = FileTable{};
    }
  }
  table = FileTable::broadcast(comm, std::move(table));
  const RankScan scan = scan_share(config, matcher, table, comm);
  const Totals total = sum_over_ranks(comm, scan.totals + walk_tally.read());
  const std::vector<std::string> messages = gather_bytes(comm, scan.err);
  if (rank == 0)
    for (const std::string& m : messages) (void)write_all(STDERR_FILENO, m);  // stderr gone: nothing left to do
  return total;
}

}  // namespace stealscan::mpi

// scan_task.hpp: the executor's task and scratch types, and the runner that scans
// a file or a chunk (scan_task.cpp). scan.cpp builds the Executor from them.
//
//   ScanTask       24 bytes, trivially copyable: travels through the deques and
//                  the injector by value (no allocation per task)
//   WorkerScratch  per worker: its matcher clone, read window, line scratch,
//                  output buffer and tally; reused for every file
//   ScanShared     what every task reads: the settings, the budget, the output
//                  format, stderr
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <stealpool/executor.hpp>

#include "output/diagnostics.hpp"
#include "walk/in_flight_budget.hpp"
#include "scan/line_scanner.hpp"
#include "match/matcher.hpp"
#include "output/output.hpp"
#include "walk/path_arena.hpp"
#include "walk/walker.hpp"
#include "sources/scan_window.hpp"
#include "scan/tally.hpp"

namespace stealscan {

class FileJob;
class Directory;

struct ScanTask {
  enum class Kind : std::uint8_t {
    file,            // found by the walk: scanned only if it is a regular file
    operand,         // named on the command line: also a FIFO or device, read as a stream
    standard_input,  // `-`, or no path with input piped in: descriptor 0, shown as `path`
    chunk,           // a piece of a FileJob's file
    directory,       // a directory to walk (scan/file_feed.hpp runs these; runners never see one)
  };
  Kind kind;
  std::uint32_t number;  // file kinds: the path's length; chunk: the chunk's index; directory: unused
  union {
    const char* path;  // file kinds: NUL-terminated, in `block`
    FileJob* job;      // chunk
    Directory* dir;    // directory: owned by the task
  };
  PathBlock* block;  // file kinds: the block holding the path; else unused

  static ScanTask file(const PathRef& p, Kind kind = Kind::file) {
    ScanTask t{kind, p.length, {}, p.block};
    t.path = p.path;
    return t;
  }
  static ScanTask chunk(FileJob* j, std::uint32_t k) {
    ScanTask t{Kind::chunk, k, {}, nullptr};
    t.job = j;
    return t;
  }
  static ScanTask directory(Directory* d) {
    ScanTask t{Kind::directory, 0, {}, nullptr};
    t.dir = d;
    return t;
  }
};
static_assert(sizeof(ScanTask) <= 32 && std::is_trivially_copyable_v<ScanTask>,
              "ScanTask must travel by value through the executor's queues");

struct ScanSettings {
  ScanOptions scan;           // line_scanner.hpp: mode and line numbering
  std::size_t chunk_size;     // bytes per read, and per chunk of a split file
  std::uint32_t chunk_window; // chunks of one file in flight at once
  bool binary_as_text;        // -a: do not skip files with a NUL in the first block
  std::optional<std::uint64_t> max_filesize;
};

struct ScanShared {
  ScanSettings settings;
  const Matcher& matcher;
  const HitFormat& format;
  InFlightBudget& budget;
  Diagnostics& diag;
};

struct WorkerScratch {
  std::unique_ptr<Matcher> matcher;  // this worker's clone
  ScanWindow window;
  LineScratch line;
  WorkerOutput* out;  // owned by the scan, flushed after join()
  Tally* tally;
  WalkScratch walk = {};  // for the directory tasks it runs
};

using ScanCtx = stealpool::WorkerCtx<ScanTask, WorkerScratch>;

// The executor's runner: scans one file (small ones whole, large ones by
// spawning chunk tasks) or one chunk. Never throws: a file that cannot be read is
// reported and counted.
void run_scan_task(const ScanShared& shared, ScanTask task, ScanCtx& ctx);

// Scans one file (`kind`: file or operand; `path`: NUL-terminated, `length`
// bytes) from start to end on the calling thread, never split into chunks: the
// runner of an executor other than ScanCtx's (stealscan-mpi, src/mpi/). Output,
// tallies and errors as run_scan_task's file task; the budget is not touched.
// Never throws but for running out of memory.
void scan_file_unsplit(const ScanShared& shared, WorkerScratch& scratch, ScanTask::Kind kind, const char* path,
                       std::uint32_t length);

}  // namespace stealscan

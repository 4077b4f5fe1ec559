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
#include <string_view>
#include <vector>

#include <stealpool/executor.hpp>

#include "output/diagnostics.hpp"
#include "walk/in_flight_budget.hpp"
#include "scan/line_scanner.hpp"
#include "match/matcher.hpp"
#include "output/output.hpp"
#include "walk/path_arena.hpp"
#include "walk/walker.hpp"
#include "scan/fragment.hpp"
#include "sources/byte_source.hpp"
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

// Where a file larger than a chunk goes when the caller is not ScanCtx's
// executor (stealscan-mpi spreads its chunks over ranks, src/mpi/split_file.hpp).
class FileSplitter {
 public:
  virtual ~FileSplitter() = default;
  // `source` reads the open file of `size` bytes, shown as `shown`; its first
  // block is in `scratch.window`. Scans the file (chunk 0 from that window,
  // scan_chunk(..., loaded = true)), or hands its chunks on, before returning:
  // the descriptor is closed then. Counts and reports as the file task would.
  virtual void split(const ScanShared& shared, WorkerScratch& scratch, std::string_view shown, ByteSource& source,
                     std::uint64_t size) = 0;
};

// Scans one file (`kind`: file or operand; `path`: NUL-terminated, `length`
// bytes) on the calling thread: the runner of an executor other than
// ScanCtx's (stealscan-mpi, src/mpi/). A file that one-process stealscan would
// split into chunks goes to `splitter`, or, with none, is scanned whole.
// Output, tallies and errors as run_scan_task's file task; the budget is not
// touched. Never throws but for running out of memory.
void scan_one_file(const ScanShared& shared, WorkerScratch& scratch, ScanTask::Kind kind, const char* path,
                   std::uint32_t length, FileSplitter* splitter);

// The chunks of a file of `size` bytes split at `chunk_size`, and chunk k's
// range: the last one runs to the end of the file, also if it grew since the stat.
[[nodiscard]] std::uint32_t chunk_count(std::uint64_t size, std::uint64_t chunk_size) noexcept;
[[nodiscard]] ScanRange chunk_range(std::uint64_t chunk_size, std::uint32_t chunks, std::uint32_t k) noexcept;

// Scans `range` of a split file, its matching lines into `fragment` when the
// mode prints lines; `loaded`: the window holds the range's first block. Counts
// the bytes read. Throws what the read throws (a file that cannot be read).
ScanResult scan_chunk(const ScanShared& shared, WorkerScratch& scratch, ByteSource& source, ScanRange range,
                      bool loaded, Fragment& fragment);

// A file's last step, once its lines are out (a split file's: once every
// chunk is in): its record in the counting modes (its "end" message in mode
// json, `bytes_searched` in it) into `out`, and its match tallies into `tally`.
void finish_file(const HitFormat& format, WorkerOutput& out, Tally& tally, std::string_view path,
                 std::uint64_t matching_lines, JsonFile& json, std::uint64_t bytes_searched);

}  // namespace stealscan

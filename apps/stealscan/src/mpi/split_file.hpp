// split_file.hpp: a file larger than a chunk, scanned by chunk tasks on any
// rank, its output put together in order on rank 0 (README.md, "Large files").
//
// Workers: the worker whose file task meets a large file (scan_one_file hands
// it to a ChunkSplitter) names it by a FileKey, spawns one chunk task for
// chunks [1, n) and scans chunk 0 from the block already read. A chunk task
// for [first, end) spawns its upper half while more than one chunk is left,
// halving down to one chunk, which it scans: the owner then runs the chunks in
// file order, and a thief, in this rank or another, takes the largest range
// left. Each chunk leaves a ChunkResult, sent to rank 0 as a chunk frame.
//
// Rank 0 (SplitAssembler, on its progress thread, from DistExecutor::on_data):
// the frames of a file arrive in any order. Its lines are numbered from the
// lines owned by the chunks before, so a chunk's lines are printed when every
// chunk before it is in; those that come early wait. The file's lines are held
// and written together when its last chunk is in (past WorkerOutput's hard
// limit, in order but in parts), as one-process stealscan writes a split file;
// then its counting record or --json "end" and its tallies.
//
// Memory: rank 0 holds the lines of the chunks that arrive before an earlier
// one, at most a file's output. With -l the splitting worker scans chunk 0
// before it spawns the others, and a match there settles the file (its frame
// then says the file has one chunk); past chunk 0 every chunk is scanned (each
// stops at its first match), where one process stops them all at the first.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "mpi/file_task.hpp"
#include "mpi/frames.hpp"
#include "scan/scan_task.hpp"

namespace stealscan::mpi {

// One worker's part: the serial of the next file it splits, and the buffer its
// chunk frames are built in.
struct ChunkSender {
  std::uint64_t splits = 0;
  std::string frame;
};

// Takes a large file from scan_one_file() on the worker running `ctx`'s task.
class ChunkSplitter final : public FileSplitter {
 public:
  ChunkSplitter(FileCtx& ctx, ChunkSender& sender) : ctx_(ctx), sender_(sender) {}
  void split(const ScanShared& shared, WorkerScratch& scratch, std::string_view shown, ByteSource& source,
             std::uint64_t size) override;

 private:
  FileCtx& ctx_;
  ChunkSender& sender_;
};

// Runs a chunk task (kind chunk). Never throws but for running out of memory:
// a file that cannot be opened or read is reported here and its chunk sent as
// failed.
void run_chunk_task(const ScanShared& shared, FileTask task, FileCtx& ctx, ChunkSender& sender);

// Rank 0's assembly of split files' output, on one thread.
class SplitAssembler {
 public:
  // Writes to `out`; matched files and --json's figures go to `tally`, and a
  // file rank 0 cannot reopen (for a long line's text) to `diag`.
  SplitAssembler(const HitFormat& format, Stdout& out, Diagnostics& diag, Tally& tally)
      : format_(format), out_(out), diag_(diag), tally_(tally) {}
  // A chunk frame's result. Throws std::runtime_error on a chunk received twice
  // or a chunk count that differs from the file's first frame.
  void add(ChunkResult chunk);
  // Files with chunks still to come (0 after a run that finished).
  [[nodiscard]] std::size_t open_files() const noexcept { return files_.size(); }

 private:
  struct File {
    explicit File(Stdout& out) : held(out) {}
    ~File();
    std::string path;
    std::uint32_t chunks = 0;
    std::uint64_t size = 0;
    std::uint32_t received = 0;
    std::uint32_t next = 0;        // chunks before it are printed
    std::uint64_t first_line = 1;  // the number of chunk `next`'s first line
    std::uint64_t matching_lines = 0;
    bool failed = false;
    int fd = -1;  // opened for the first long line
    JsonFile json;
    WorkerOutput held;  // the lines printed so far, not yet on stdout
    std::map<std::uint32_t, ChunkResult> early;  // in, not yet printed
  };
  void print(File& f, const ChunkResult& c);
  bool open_for_text(File& f);

  const HitFormat& format_;
  Stdout& out_;
  Diagnostics& diag_;
  Tally& tally_;
  std::map<FileKey, File> files_;
};

}  // namespace stealscan::mpi

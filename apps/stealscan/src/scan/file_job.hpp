// file_job.hpp: FileJob, a file larger than one chunk, split into chunk tasks
// that any worker may run (docs/design.md, "Large files"). Shared by its chunk tasks;
// holds the open descriptor (each chunk preads its range) and puts their results
// together:
//
// - Counting modes (-c, -l): the matching lines of all chunks are added up; the
//   last chunk to finish prints the file's record.
// - Line modes (default, --json): chunk k's lines are numbered from 1 + the lines
//   owned by chunks 0..k-1, which are known only once those have run. So each
//   chunk leaves a Fragment, and fragments are printed strictly in chunk order
//   ("committed") by whichever worker completes the chunk that unblocks them,
//   into the job's own output buffer, which the last chunk hands to its
//   worker's: a file's lines reach stdout together, after its last chunk
//   (or, past WorkerOutput::kHardLimit of them, in order but in parts).
//
// At most `window` chunks are spawned ahead of the first uncommitted chunk (line
// modes) or of the completed ones (counting modes), so a huge file neither floods
// the queues nor piles up fragments: memory per file is bounded by window chunks.
//
// All of it under one mutex per file, taken once per chunk (a chunk is 256 KiB of
// work by default, so the lock is cold). After complete() returns, the caller
// must not touch the job unless it was told `last`: other chunks may finish and
// the last one frees the job.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sources/byte_source.hpp"
#include "scan/fragment.hpp"
#include "scan/line_scanner.hpp"
#include "output/output.hpp"

namespace stealscan {

class FileJob {
 public:
  // `ordered`: line modes (fragments committed in order). The job owns `fd`.
  FileJob(std::string path, int fd, std::uint64_t size, std::uint64_t chunk_size, std::uint32_t window, bool ordered);
  ~FileJob();
  FileJob(const FileJob&) = delete;
  FileJob& operator=(const FileJob&) = delete;

  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] int fd() const noexcept { return fd_; }
  [[nodiscard]] ByteSource& source() noexcept { return source_; }
  [[nodiscard]] std::uint32_t chunks() const noexcept { return chunks_; }
  [[nodiscard]] ScanRange range(std::uint32_t k) const noexcept;
  // Chunks [1, first_spawn_end()) are spawned by the file task, which scans chunk 0.
  [[nodiscard]] std::uint32_t first_spawn_end() const noexcept { return first_spawn_end_; }

  // Set once nothing more is worth scanning (-l found its line, or a chunk
  // failed). Relaxed: a chunk that reads it late scans for nothing, harmlessly.
  void cancel() noexcept { cancelled_.store(true, std::memory_order_relaxed); }
  [[nodiscard]] bool cancelled() const noexcept { return cancelled_.load(std::memory_order_relaxed); }

  struct Completion {
    std::uint32_t spawn_begin = 0;  // chunks for the caller to spawn now
    std::uint32_t spawn_end = 0;
    bool last = false;  // every chunk is done: the caller finishes and deletes the job
  };
  // Records chunk k (its fragment: line modes; may be empty), prints the fragments
  // that are now in order into `out`, and says what to spawn next.
  Completion complete(std::uint32_t k, const ScanResult& result, Fragment fragment, const HitFormat& format,
                      WorkerOutput& out);

  // A chunk could not be read: the file is reported as an error and prints
  // nothing more. Relaxed, as cancel().
  void fail() noexcept {
    failed_.store(true, std::memory_order_relaxed);
    cancel();
  }

  // After the last completion (which ordered every chunk's writes before it).
  [[nodiscard]] std::uint64_t matching_lines() const noexcept { return matching_lines_; }
  // --json's state of the file (its messages are printed under the job's lock).
  [[nodiscard]] JsonFile& json() noexcept { return json_; }
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  [[nodiscard]] bool failed() const noexcept { return failed_.load(std::memory_order_relaxed); }

 private:
  const std::string path_;
  const int fd_;
  FdSource source_;
  const std::uint64_t size_;
  const std::uint64_t chunk_size_;
  const std::uint32_t chunks_;
  const std::uint32_t window_;
  const bool ordered_;
  const std::uint32_t first_spawn_end_;
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> failed_{false};

  std::mutex mu_;  // guards everything below
  std::uint32_t completed_ = 0;
  std::uint32_t next_spawn_;
  std::uint32_t next_commit_ = 0;   // ordered: chunks before it are printed
  std::uint64_t first_line_ = 1;    // ordered: the number of next_commit_'s first line
  std::uint64_t matching_lines_ = 0;
  JsonFile json_;
  std::unique_ptr<WorkerOutput> held_;  // ordered: the committed lines not yet handed over
  std::vector<std::unique_ptr<Fragment>> pending_;  // ordered: done, not yet printed (indexed by chunk)
  std::vector<std::uint64_t> pending_lines_;        // their owned-line counts
};

}  // namespace stealscan

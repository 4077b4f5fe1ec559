// git_scan.hpp: scan_git_history(), the executor work of `stealscan secrets
// --git` (../sources/git/README.md, "Tasks"). Two phases, each an
// Executor<GitTask, GitWorker> whose workers open their own repository handle:
//   1. diff tasks, kCommitsPerDiffTask commits each, list the blobs each
//      commit introduces (blob_index.hpp); the lists are merged into the
//      blob index, each blob once;
//   2. scan tasks, kBlobsPerScanTask blobs each, read each blob and run the
//      Detector on it; a task yields by GitYieldPolicy: it re-enqueues the rest
//      of its range with spawn_local (a cursor), split in two when the rest is
//      long, so that thieves get part of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "output/diagnostics.hpp"
#include "secrets/detect/detector.hpp"
#include "sources/git/history.hpp"
#include "sources/archive/archive_scanner.hpp"
#include "sources/git/pack_file.hpp"

namespace stealscan::secrets {

inline constexpr std::size_t kCommitsPerDiffTask = 64;
inline constexpr std::size_t kBlobsPerScanTask = 256;

// When a scan task gives its worker back (seed 000's GitYieldPolicy): after
// max_blobs blobs or max_bytes bytes of blob content, whichever comes first.
// Counted per run of a task, so a task of huge blobs yields after each.
struct GitYieldPolicy {
  std::size_t max_blobs = 32;
  std::uint64_t max_bytes = std::uint64_t{4} << 20;
  [[nodiscard]] bool should_yield(std::size_t blobs, std::uint64_t bytes) const noexcept {
    return blobs >= max_blobs || bytes >= max_bytes;
  }
};

struct GitScanSettings {
  std::string git_dir;      // each worker opens its own handle on it
  std::size_t workers = 1;
  bool binary_as_text = false;
  std::uint64_t max_filesize = std::uint64_t{64} << 20;
  bool redact = false;
  bool progress = false;  // the progress line on stderr (a terminal's)
  // Blob paths whose findings are not reported (the rule file in use, a
  // baseline: OwnFiles::inside()).
  std::vector<std::string> skip_paths;
  // Archives committed to the history are opened as on disk (their members
  // shown as BLOB_PATH!MEMBER); none: scanned as files (binary: skipped).
  std::optional<ArchiveSettings> archives;
  GitYieldPolicy yield;
};

// What the scan did; deterministic (the same at any -j) except for errors.
struct GitCounts {
  std::uint64_t diff_tasks = 0;
  std::uint64_t scan_tasks = 0;  // before yields and splits
  std::uint64_t yields = 0;      // a task re-enqueued the rest of its range
  std::uint64_t splits = 0;      // ... in two tasks
  std::uint64_t unique_blobs = 0;
  std::uint64_t scanned = 0;     // blobs run through the Detector
  std::uint64_t bytes = 0;       // blob bytes read (binary ones too)
  std::uint64_t binary = 0;
  std::uint64_t too_large = 0;
  std::uint64_t matched = 0;     // blobs with a finding
  std::uint64_t archives = 0;    // blobs opened as archives
  std::uint64_t members = 0;     // archive members scanned in them
  std::uint64_t errors = 0;
  GitCounts& operator+=(const GitCounts& o) noexcept;
};

struct GitScanResult {
  std::vector<Finding> findings;  // `commit` and `file` set; the other git fields empty; unsorted
  GitCounts counts;
};

// Throws ThreadStartError (scan/file_feed.hpp) if the workers cannot start.
// Unreadable objects are reported on `diag` and counted in errors.
// `packs`: the repository's (PackSet::open), read by every worker.
GitScanResult scan_git_history(const GitScanSettings& s, const git::PackSet& packs, const git::History& history,
                               const Detector& detector, Diagnostics& diag);

// The progress line of a history scan: while diffing (index_size 0),
// "stealscan: 10 / 100 commits diffed"; then "stealscan: 100 commits,
// 5 / 20 blobs, 1.5 MiB, 1.5 MiB/s" (bytes of blob content, over `secs`).
std::string history_progress_line(std::uint64_t diffed, std::size_t commits, std::uint64_t blobs,
                                  std::uint64_t index_size, std::uint64_t bytes, double secs);

}  // namespace stealscan::secrets

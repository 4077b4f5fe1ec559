// scan.hpp: run_scan(), one scan from start to end: builds the Executor (seed 000's
// scan_local_with_progress), walks the paths on the calling thread and injects
// the files in batches under the in-flight budget, joins, flushes the output.
//
// Threads: `workers` executor workers scan; the calling thread walks (and mostly
// waits on the budget, since walking is much cheaper than scanning); one more
// thread draws the progress line when it is on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <stealpool/metrics.hpp>

#include "output/diagnostics.hpp"
#include "match/matcher.hpp"
#include "output/output.hpp"
#include "scan/tally.hpp"
#include "walk/walker.hpp"

namespace stealscan {

struct ScanConfig {
  std::vector<std::string> paths;
  OutputMode output = OutputMode::lines;
  bool with_filename = true;
  bool line_numbers = false;   // -n
  bool invert = false;         // -v
  bool only_matching = false;  // -o
  std::uint64_t max_count = ScanOptions::kNoLimit;  // -m
  std::uint32_t before = 0;    // -B (and -C)
  std::uint32_t after = 0;     // -A (and -C)
  std::size_t workers = 1;
  WalkOptions walk;
  bool binary_as_text = false;
  std::optional<std::uint64_t> max_filesize;
  std::size_t chunk_size = 256 * 1024;
  bool mmap = true;              // --no-mmap: a very long line is read, never mapped
  std::size_t max_in_flight = 1024;
  bool progress = false;
  bool flush_per_file = false;  // stdout is a pipe or a terminal: output.hpp
};

struct ScanReport {
  Totals totals;
  stealpool::MetricsSnapshot metrics;
  double seconds = 0;
};

// Errors on the way (unreadable files...) are reported on `diag` and counted in
// the totals; run_scan() itself throws only ThreadStartError (scan/file_feed.hpp),
// if the workers cannot be started.
ScanReport run_scan(const ScanConfig& config, const Matcher& matcher, Diagnostics& diag);

}  // namespace stealscan

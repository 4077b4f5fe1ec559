// tally.hpp: Tally, one thread's running counts (files, bytes, matches, skips,
// errors). Each worker and the walker own one, padded to its own cache line.
// Written only by its owner, as a relaxed load and store (no read-modify-write:
// nobody else writes it); read by the progress thread while the scan runs, where
// a slightly stale figure is fine, and summed by main after join(), when the
// threads' ends order every write before the read.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>

namespace stealscan {

struct Totals {
  std::uint64_t files = 0;           // files scanned (binary and too-large ones not included)
  std::uint64_t bytes = 0;           // bytes read
  std::uint64_t matched_files = 0;   // files with at least one matching line
  std::uint64_t matching_lines = 0;
  std::uint64_t binary = 0;          // files skipped as binary
  std::uint64_t too_large = 0;       // files skipped by --max-filesize
  std::uint64_t errors = 0;          // unreadable files, broken links, unreadable directories
  std::uint64_t loops = 0;           // symbolic links to an ancestor directory, not followed
  // `stealscan secrets` only (sources/archive/): archives opened (nested ones
  // too), members scanned (also in `files`), bytes decompressed, warnings
  // (corrupt archives, limits reached: skipped members).
  std::uint64_t archives = 0;
  std::uint64_t archive_members = 0;
  std::uint64_t archive_bytes = 0;
  std::uint64_t archive_warnings = 0;
};

struct alignas(64) Tally {
  std::atomic<std::uint64_t> files{0};
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> matched_files{0};
  std::atomic<std::uint64_t> matching_lines{0};
  std::atomic<std::uint64_t> binary{0};
  std::atomic<std::uint64_t> too_large{0};
  std::atomic<std::uint64_t> errors{0};
  std::atomic<std::uint64_t> loops{0};
  std::atomic<std::uint64_t> archives{0};
  std::atomic<std::uint64_t> archive_members{0};
  std::atomic<std::uint64_t> archive_bytes{0};
  std::atomic<std::uint64_t> archive_warnings{0};

  // Owner only: relaxed, and no RMW needed (see the header comment).
  static void add(std::atomic<std::uint64_t>& field, std::uint64_t n) noexcept {
    field.store(field.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  // Any thread; relaxed: a progress figure may lag, the final sum is taken after join().
  Totals read() const noexcept {
    Totals t;
    t.files = files.load(std::memory_order_relaxed);
    t.bytes = bytes.load(std::memory_order_relaxed);
    t.matched_files = matched_files.load(std::memory_order_relaxed);
    t.matching_lines = matching_lines.load(std::memory_order_relaxed);
    t.binary = binary.load(std::memory_order_relaxed);
    t.too_large = too_large.load(std::memory_order_relaxed);
    t.errors = errors.load(std::memory_order_relaxed);
    t.loops = loops.load(std::memory_order_relaxed);
    t.archives = archives.load(std::memory_order_relaxed);
    t.archive_members = archive_members.load(std::memory_order_relaxed);
    t.archive_bytes = archive_bytes.load(std::memory_order_relaxed);
    t.archive_warnings = archive_warnings.load(std::memory_order_relaxed);
    return t;
  }
};

// Field by field: two threads' (or two ranks') counts together.
inline Totals operator+(Totals s, const Totals& x) noexcept {
  s.files += x.files;
  s.bytes += x.bytes;
  s.matched_files += x.matched_files;
  s.matching_lines += x.matching_lines;
  s.binary += x.binary;
  s.too_large += x.too_large;
  s.errors += x.errors;
  s.loops += x.loops;
  s.archives += x.archives;
  s.archive_members += x.archive_members;
  s.archive_bytes += x.archive_bytes;
  s.archive_warnings += x.archive_warnings;
  return s;
}

inline Totals sum(std::span<const Tally> tallies) noexcept {
  Totals s;
  for (const Tally& t : tallies) s = s + t.read();
  return s;
}

}  // namespace stealscan

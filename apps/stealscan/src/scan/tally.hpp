// tally.hpp: Tally, one thread's running counts (files, bytes, matches, skips,
// errors). Each worker and the main thread own one, padded to its own cache line.
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
  // --json's figures: matches reported, bytes of messages, and the files'
  // search times added up (ripgrep's "stats").
  std::uint64_t matches = 0;
  std::uint64_t bytes_printed = 0;
  std::uint64_t search_ns = 0;
  std::uint64_t matched_bytes = 0;  // bytes searched in the files with a selected line
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
  std::atomic<std::uint64_t> matches{0};
  std::atomic<std::uint64_t> bytes_printed{0};
  std::atomic<std::uint64_t> search_ns{0};
  std::atomic<std::uint64_t> matched_bytes{0};

  // Owner only: relaxed, and no RMW needed (see the header comment).
  static void add(std::atomic<std::uint64_t>& field, std::uint64_t n) noexcept {
    field.store(field.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  // Any thread; relaxed: a progress figure may lag, the final sum is taken after join().
  Totals read() const noexcept;
};

// Each counter once, as the pair of its Totals and Tally members: read() and
// operator+ go through this list, so a new counter is added to the two structs
// and here, and nowhere else.
struct TallyCounter {
  std::uint64_t Totals::*total;
  std::atomic<std::uint64_t> Tally::*live;
};
inline constexpr TallyCounter kCounters[] = {
    {&Totals::files, &Tally::files},
    {&Totals::bytes, &Tally::bytes},
    {&Totals::matched_files, &Tally::matched_files},
    {&Totals::matching_lines, &Tally::matching_lines},
    {&Totals::binary, &Tally::binary},
    {&Totals::too_large, &Tally::too_large},
    {&Totals::errors, &Tally::errors},
    {&Totals::loops, &Tally::loops},
    {&Totals::archives, &Tally::archives},
    {&Totals::archive_members, &Tally::archive_members},
    {&Totals::archive_bytes, &Tally::archive_bytes},
    {&Totals::archive_warnings, &Tally::archive_warnings},
    {&Totals::matches, &Tally::matches},
    {&Totals::bytes_printed, &Tally::bytes_printed},
    {&Totals::search_ns, &Tally::search_ns},
    {&Totals::matched_bytes, &Tally::matched_bytes},
};
static_assert(sizeof(kCounters) / sizeof(kCounters[0]) * sizeof(std::uint64_t) == sizeof(Totals),
              "every Totals field must be in kCounters");

inline Totals Tally::read() const noexcept {
  Totals t;
  for (const TallyCounter& c : kCounters) t.*c.total = (this->*c.live).load(std::memory_order_relaxed);
  return t;
}

// Field by field: two threads' (or two ranks') counts together.
inline Totals operator+(Totals s, const Totals& x) noexcept {
  for (const TallyCounter& c : kCounters) s.*c.total += x.*c.total;
  return s;
}

inline Totals sum(std::span<const Tally> tallies) noexcept {
  Totals s;
  for (const Tally& t : tallies) s = s + t.read();
  return s;
}

}  // namespace stealscan

// whole_file_task.hpp: the runner for scans that need each file whole in
// memory (`stealscan secrets`: a rule's match may span lines). It opens the
// task's file, skips what is not to be read (too large, binary), reads it into
// the worker's buffer, turns UTF-16 text into UTF-8 (sources/utf16.hpp) and
// hands the bytes to the worker's FileWork (an archive's members instead,
// through the worker's ArchiveScanner). Walking,
// batching, the budget and the threads are feed_files()'s (file_feed.hpp), as
// for the search; the search itself keeps its chunked runner (scan_task.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <stealpool/executor.hpp>

#include "output/diagnostics.hpp"
#include "scan/scan_task.hpp"
#include "scan/tally.hpp"
#include "sources/archive/archive_scanner.hpp"
#include "walk/in_flight_budget.hpp"
#include "walk/walker.hpp"

namespace stealscan {

// What a scan does with one file's bytes; one per worker, called only by it.
class FileWork {
 public:
  virtual ~FileWork() = default;
  // `path` as shown; returns the number of hits (counted in matched_files and
  // matching_lines). May throw: the file is then reported as an error.
  virtual std::uint64_t on_file(std::string_view path, std::string_view bytes) = 0;
};

struct WholeFileSettings {
  bool binary_as_text = false;  // -a: do not skip files with a NUL in the first block
  std::uint64_t max_filesize = std::uint64_t{64} << 20;
};

struct WholeFileShared {
  WholeFileSettings settings;
  InFlightBudget& budget;
  Diagnostics& diag;
};

struct WholeFileScratch {
  std::unique_ptr<FileWork> work;
  std::string buffer;   // the file being scanned; kept between files, trimmed when large
  Tally* tally;
  std::string decoded = {};  // a UTF-16 file's text as UTF-8; kept as the buffer is
  std::unique_ptr<ArchiveScanner> archives = {};  // null: archives are not opened (--no-archives)
  WalkScratch walk = {};  // for the directory tasks it runs
};

using WholeFileCtx = stealpool::WorkerCtx<ScanTask, WholeFileScratch>;

// The binary check looks at this many bytes from the start (as the search's first chunk).
inline constexpr std::size_t kBinaryProbe = 256 * 1024;
// Whether `bytes` read as binary: a NUL in the first kBinaryProbe bytes.
inline bool looks_binary(std::string_view bytes) {
  return bytes.substr(0, kBinaryProbe).find('\0') != std::string_view::npos;
}

// The last step for the bytes of a file or of an archive member, shown as
// `shown`: UTF-16 text is turned into UTF-8 (into `decoded`), a binary file
// (a NUL in the first kBinaryProbe bytes) is skipped unless `binary_as_text`,
// the rest goes to `work`; each outcome is counted in `tally`. Returns whether
// the bytes went to `work`.
bool hand_over_bytes(std::string_view shown, std::string_view bytes, bool binary_as_text, std::string& decoded,
                     Tally& tally, FileWork& work);

// Never throws for a file that cannot be read: it is reported and counted.
void run_whole_file_task(const WholeFileShared& shared, ScanTask task, WholeFileCtx& ctx);

}  // namespace stealscan

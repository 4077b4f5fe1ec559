// archive_scanner.hpp: ArchiveScanner, one worker's archive scanning for the
// whole-file runner (`stealscan secrets`). Given a file's bytes, it checks the
// magic (sniff_archive) and, for an archive, hands each regular member to the
// worker's FileWork as if it were a file named `archive!member`, opening
// nested archives up to the depth limit. Memory and work stay bounded by the
// limits in ArchiveSettings; what exceeds one, and a corrupt archive, is a
// warning naming the archive or member, and the scan goes on (../README.md,
// "Archives", gives the bounds). One per worker, in its scratch; its buffers
// are reused from archive to archive.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "output/diagnostics.hpp"
#include "scan/tally.hpp"

namespace stealscan {

class FileWork;
class ArchiveReader;

struct ArchiveSettings {
  unsigned max_depth = 3;                              // archive levels opened; 0: none
  std::uint64_t max_entry = std::uint64_t{64} << 20;   // decompressed bytes of one member
  std::uint64_t max_total = std::uint64_t{256} << 20;  // decompressed bytes per file on disk, all levels
  bool binary_as_text = false;                         // -a: members with a NUL are scanned too
};

class ArchiveScanner {
 public:
  ArchiveScanner(const ArchiveSettings& settings, Diagnostics& diag, Tally& tally);

  // If `bytes` (the file shown as `shown`) is an archive, scans its members
  // with `work` and returns true; otherwise does nothing and returns false.
  // Throws only what `work` throws, or std::bad_alloc.
  bool scan_if_archive(std::string_view shown, std::string_view bytes, FileWork& work);

 private:
  enum class Stop { no, budget };  // budget: --archive-max-size reached, stop every level
  enum class EntryRead { whole, too_large, over_budget, entry_failed, archive_failed };

  Stop scan_archive(const std::string& shown, std::string_view bytes, unsigned depth, FileWork& work);
  Stop scan_member(const std::string& shown, std::string_view bytes, unsigned depth, FileWork& work);
  EntryRead read_entry(ArchiveReader& reader, std::string& buffer);
  EntryRead discard_rest(ArchiveReader& reader, std::string& buffer);
  std::uint64_t read_some(ArchiveReader& reader, char* dst, std::uint64_t want, EntryRead& failure);
  void warn(std::string_view shown, std::string_view what);

  ArchiveSettings settings_;
  Diagnostics& diag_;
  Tally& tally_;
  std::vector<std::string> levels_;  // levels_[d]: the member being read from the archive at depth d + 1
  std::string decoded_;              // a UTF-16 member as UTF-8 (a leaf: one buffer serves every level)
  std::uint64_t total_ = 0;          // decompressed bytes of the current file on disk; <= max_total + 1
  std::string_view top_;             // the file on disk being scanned, as shown
};

}  // namespace stealscan

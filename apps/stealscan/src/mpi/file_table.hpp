// file_table.hpp: FileTable, the files of one stealscan-mpi run, numbered: rank
// 0 walks the operands with stealscan's own Walker (so the ignore rules are the
// same) into a table, every rank receives a copy (MPI_Bcast), and a task is a
// file's number in it (README.md, "Why a file number").
//
// Bytes: per file, one byte of ScanTask::Kind (file or operand), the path, a
// NUL, so a path is ready for open(2) where it lies. The index keeps offsets,
// not pointers: a table may be moved (a short string's bytes move with it).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "output/diagnostics.hpp"
#include "scan/scan_task.hpp"
#include "scan/tally.hpp"
#include "walk/walker.hpp"

namespace stealscan::mpi {

class FileTable {
 public:
  struct Entry {
    ScanTask::Kind kind;
    std::uint32_t length;  // of the path, without the NUL
    const char* path;      // NUL-terminated, in the table's bytes
  };

  // Rank 0 only: walks `paths` (directories and files; not "-") with `walk`'s
  // rules, reporting unreadable directories and the like on `diag` and counting
  // them in `tally`, as stealscan's walk does.
  static FileTable walk(const std::vector<std::string>& paths, const WalkOptions& walk, Diagnostics& diag,
                        Tally& tally);

  // Collective on `comm`: rank 0's table (`root_table`; ignored elsewhere) on
  // every rank. Throws std::runtime_error if the bytes are malformed.
  static FileTable broadcast(MPI_Comm comm, FileTable root_table);

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  [[nodiscard]] Entry operator[](std::size_t i) const noexcept {
    const Slot& s = entries_[i];
    return Entry{s.kind, s.length, bytes_.data() + s.offset};
  }

 private:
  // Builds the entries from bytes_; throws std::runtime_error if malformed.
  void index();

  struct Slot {
    ScanTask::Kind kind;
    std::uint32_t length;
    std::size_t offset;  // of the path in bytes_
  };
  std::string bytes_;
  std::vector<Slot> entries_;
};

}  // namespace stealscan::mpi

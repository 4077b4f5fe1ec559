// file_table.cpp: FileTable (file_table.hpp).
#include "mpi/file_table.hpp"

#include <cstring>
#include <stdexcept>

#include "mpi/rank_bytes.hpp"

namespace stealscan::mpi {
namespace {

// Appends what the walk finds to the table's bytes.
class TableBuilder final : public WalkVisitor {
 public:
  explicit TableBuilder(std::string& bytes) : bytes_(bytes) {}
  void on_file(std::string_view path) override { add(ScanTask::Kind::file, path); }
  void on_operand(std::string_view path) override { add(ScanTask::Kind::operand, path); }

 private:
  void add(ScanTask::Kind kind, std::string_view path) {
    bytes_.push_back(static_cast<char>(kind));
    bytes_.append(path);
    bytes_.push_back('\0');
  }
  std::string& bytes_;
};

}  // namespace

FileTable FileTable::walk(const std::vector<std::string>& paths, const WalkOptions& walk, Diagnostics& diag,
                          Tally& tally) {
  FileTable table;
  TableBuilder builder(table.bytes_);
  Walker walker(walk, diag);
  for (const std::string& root : paths) walker.walk(root, builder, tally);
  table.index();
  return table;
}

FileTable FileTable::broadcast(MPI_Comm comm, FileTable root_table) {
  FileTable table = std::move(root_table);
  table.entries_.clear();
  broadcast_bytes(comm, table.bytes_);
  table.index();
  return table;
}

void FileTable::index() {
  entries_.clear();
  std::size_t at = 0;
  while (at < bytes_.size()) {
    const auto kind = static_cast<ScanTask::Kind>(bytes_[at]);
    if (kind != ScanTask::Kind::file && kind != ScanTask::Kind::operand)
      throw std::runtime_error("stealscan-mpi: the file table holds an unknown kind " +
                               std::to_string(static_cast<int>(kind)) + " at byte " + std::to_string(at));
    const char* path = bytes_.data() + at + 1;
    const void* nul = std::memchr(path, '\0', bytes_.size() - at - 1);
    if (nul == nullptr)
      throw std::runtime_error("stealscan-mpi: the file table's last path, at byte " + std::to_string(at) +
                               ", has no end");
    const auto length = static_cast<std::size_t>(static_cast<const char*>(nul) - path);
    if (length > UINT32_MAX)
      throw std::runtime_error("stealscan-mpi: a path of " + std::to_string(length) + " bytes is too long");
    entries_.push_back(Slot{kind, static_cast<std::uint32_t>(length), at + 1});
    at += length + 2;
  }
}

}  // namespace stealscan::mpi

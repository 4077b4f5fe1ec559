// file_task.hpp: FileTask, stealscan-mpi's task (README.md, "How a run goes"),
// and its Codec, the bytes it travels as between ranks.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <stealpool/mpi/codec.hpp>
#include <stealpool/mpi/context.hpp>

#include "scan/scan_task.hpp"

namespace stealscan::mpi {

// Names one split file of the whole run: the rank and worker that split it and
// that worker's count of files split before.
struct FileKey {
  std::uint32_t rank = 0;
  std::uint32_t worker = 0;
  std::uint64_t serial = 0;
  friend auto operator<=>(const FileKey&, const FileKey&) = default;
};
static_assert(std::has_unique_object_representations_v<FileKey>, "FileKey travels as its bytes");

// A task, by kind:
//   directory  (no path) the walk of every operand, rank 0's first task, which
//              spawns the files as it finds them;
//   file, operand  a file to scan, by path;
//   chunk      chunks [first, end) of the split file `key` (`chunks` chunks,
//              `size` bytes at the split), by path (split_file.hpp).
struct FileTask {
  ScanTask::Kind kind = ScanTask::Kind::file;
  std::string path;
  FileKey key{};
  std::uint32_t first = 0;
  std::uint32_t end = 0;
  std::uint32_t chunks = 0;
  std::uint64_t size = 0;
};

}  // namespace stealscan::mpi

// Between ranks: a kind byte; for a chunk task its key, range, chunk count and
// size (native byte order: ranks run the same build on the same architecture);
// then the path's bytes.
template <>
struct stealpool::mpi::Codec<stealscan::mpi::FileTask> {
  static void encode(const stealscan::mpi::FileTask& t, std::vector<std::byte>& out);
  static stealscan::mpi::FileTask decode(std::span<const std::byte> bytes);
};

namespace stealscan::mpi {
using FileCtx = stealpool::mpi::Context<FileTask, WorkerScratch>;
}  // namespace stealscan::mpi

// file_task.hpp: FileTask, stealscan-mpi's task (README.md, "How a run goes"),
// and its Codec, the bytes it travels as between ranks.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <stealpool/mpi/codec.hpp>
#include <stealpool/mpi/context.hpp>

#include "scan/scan_task.hpp"
#include "walk/walker.hpp"

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
//   directory  with no path: rank 0's first task, which looks at each operand
//              and spawns a directory task per directory, a file task per file;
//              with a path: a directory of operand number `root` to read, which
//              spawns a task per entry the walk keeps. `dir` is the Directory
//              as the walk made it, on the process that made it; a task that
//              came from another rank has none and rebuilds it from `path`
//              (Walker::rebuild);
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
  std::uint32_t root = 0;
  std::shared_ptr<Directory> dir = nullptr;  // not sent: process-local
};

}  // namespace stealscan::mpi

// Between ranks: a kind byte; for a chunk task its key, range, chunk count and
// size, for a directory task its operand number (native byte order: ranks run
// the same build on the same architecture); then the path's bytes. rank 0's
// first task (a directory task without a path) never travels: decode refuses
// it, as it refuses an unknown kind.
template <>
struct stealpool::mpi::Codec<stealscan::mpi::FileTask> {
  static void encode(const stealscan::mpi::FileTask& t, std::vector<std::byte>& out);
  static stealscan::mpi::FileTask decode(std::span<const std::byte> bytes);
};

namespace stealscan::mpi {
using FileCtx = stealpool::mpi::Context<FileTask, WorkerScratch>;
}  // namespace stealscan::mpi

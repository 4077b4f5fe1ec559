// fuzz_git_pack.cpp: the history scan's own pack reader (sources/git/
// pack_reader.hpp: entry headers, OFS and REF deltas, delta chains, libdeflate
// inflation, the per-worker object cache) over a pack file made of any bytes.
//
// The input: its first byte says how many objects the index lists (1 to 8),
// the next 4 bytes per object where each starts in the pack (taken modulo the
// pack's size), and the rest is the pack's data, after its 12-byte header. The
// target writes the pack and a version-2 index for it into a temporary
// directory (the reader maps real files), object i's id being i, 0xab, 0...
// (so that a REF_DELTA can name it), then reads every object twice. The
// directory is removed when the process exits.
//
// Checks: no crash, no read outside the mapping (ASan), no exception; an
// object read is a commit, tree, blob or tag no larger than the limit given;
// and reading it again (from the cache) gives the same answer.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "fuzz_check.hpp"
#include "sources/git/pack_file.hpp"
#include "sources/git/pack_reader.hpp"
#include "support/pack_index_writer.hpp"

namespace {

constexpr std::uint64_t kMaxObject = std::uint64_t{1} << 20;

void write_file(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  FUZZ_CHECK(f.good());
}

// A directory of this process's own, removed at exit.
class ObjectsDir {
 public:
  ObjectsDir()
      : path_(std::filesystem::temp_directory_path() / ("stealscan-fuzz-pack-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_ / "pack");
  }
  ObjectsDir(const ObjectsDir&) = delete;
  ObjectsDir& operator=(const ObjectsDir&) = delete;
  ~ObjectsDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

const std::filesystem::path& objects_dir() {
  static const ObjectsDir dir;
  return dir.path();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stealscan::git;
  if (size < 1) return 0;
  const std::uint32_t count = 1U + data[0] % 8U;
  if (size < 1 + 4 * std::size_t{count}) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1 + 4 * count, size - 1 - 4 * count);

  std::string pack = "PACK";
  stealscan::test::be32(pack, 2);
  stealscan::test::be32(pack, count);
  pack.append(body);
  pack.append(GIT_OID_RAWSZ, '\0');  // the trailing checksum: not verified by the reader

  // Object i's id starts with byte i (so the ids are sorted), then 0xab.
  std::vector<git_oid> ids(count);  // zeroed
  std::vector<std::uint64_t> offsets;
  for (std::uint32_t i = 0; i < count; ++i) {
    ids[i].id[0] = static_cast<unsigned char>(i);
    ids[i].id[1] = 0xab;
    const std::uint8_t* p = data + 1 + 4 * i;
    const std::uint32_t v = (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
    offsets.push_back(12 + (body.empty() ? 0 : v % body.size()));
  }
  const std::string idx = stealscan::test::make_idx(ids, offsets);

  write_file(objects_dir() / "pack" / "p.pack", pack);
  write_file(objects_dir() / "pack" / "p.idx", idx);
  const PackSet packs = PackSet::open(objects_dir().string());
  FUZZ_CHECK(packs.size() == 1);

  PackReader reader(packs);
  for (const std::uint64_t off : offsets) {
    const PackReader::Result first = reader.read(PackLocation{0, off}, kMaxObject);
    const std::string bytes(first.bytes);
    if (first.status == PackReader::Status::ok) {
      FUZZ_CHECK(first.type >= GIT_OBJECT_COMMIT && first.type <= GIT_OBJECT_TAG);
      FUZZ_CHECK(bytes.size() <= kMaxObject);
    }
    const PackReader::Result again = reader.read(PackLocation{0, off}, kMaxObject);
    FUZZ_CHECK(again.status == first.status);
    if (first.status == PackReader::Status::ok) {
      FUZZ_CHECK(again.type == first.type);
      FUZZ_CHECK(again.bytes == bytes);
    }
  }
  return 0;
}

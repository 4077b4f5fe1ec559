// pack_file.cpp: PackFile and PackSet (pack_file.hpp).
#include "sources/git/pack_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "sources/read_all.hpp"

namespace stealscan::git {
namespace {

constexpr std::size_t kHeader = 12;   // "PACK", version, object count
constexpr std::size_t kTrailer = 20;  // the SHA-1 of what comes before
constexpr std::uint64_t kIndexLimit = std::uint64_t{1} << 32;

std::uint32_t be32(const char* p) noexcept {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (std::uint32_t{u[0]} << 24) | (std::uint32_t{u[1]} << 16) | (std::uint32_t{u[2]} << 8) | u[3];
}

}  // namespace

PackFile::PackFile(const char* map, std::size_t map_size, PackIndex index) noexcept
    : map_(map), map_size_(map_size), data_size_(map_size - kTrailer), index_(std::move(index)) {}

PackFile::PackFile(PackFile&& o) noexcept
    : map_(std::exchange(o.map_, nullptr)), map_size_(o.map_size_), data_size_(o.data_size_),
      index_(std::move(o.index_)) {}

PackFile::~PackFile() {
  if (map_ != nullptr) ::munmap(const_cast<char*>(map_), map_size_);
}

std::optional<PackFile> PackFile::open(const std::string& pack, PackIndex index) {
  const int fd = ::open(pack.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  void* map = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) >= kHeader + kTrailer)
    map = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);  // the mapping keeps the file
  if (map == MAP_FAILED) return std::nullopt;
  PackFile f(static_cast<const char*>(map), static_cast<std::size_t>(st.st_size), std::move(index));
  const std::uint32_t version = be32(f.map_ + 4);
  if (std::memcmp(f.map_, "PACK", 4) != 0 || (version != 2 && version != 3) || be32(f.map_ + 8) != f.index_.size())
    return std::nullopt;  // not the pack its index describes
  return f;
}

PackSet PackSet::open(const std::string& objects_dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(objects_dir) / "pack", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".idx") names.push_back(it->path().string());
  std::sort(names.begin(), names.end());
  PackSet set;
  for (const std::string& name : names) {
    try {
      std::optional<PackIndex> idx = PackIndex::parse(read_named_file(name, "pack index", kIndexLimit));
      if (!idx) continue;
      std::string pack = name;
      pack.replace(pack.size() - 4, 4, ".pack");
      if (std::optional<PackFile> f = PackFile::open(pack, std::move(*idx))) set.packs_.push_back(std::move(*f));
    } catch (const std::runtime_error&) {  // unreadable .idx: libgit2 reads that pack
    }
  }
  return set;
}

std::optional<PackLocation> PackSet::locate(const git_oid& id) const {
  for (std::size_t p = 0; p < packs_.size(); ++p)
    if (const std::optional<std::uint64_t> off = packs_[p].index().offset(id))
      return PackLocation{static_cast<std::uint32_t>(p), *off};
  return std::nullopt;
}

}  // namespace stealscan::git

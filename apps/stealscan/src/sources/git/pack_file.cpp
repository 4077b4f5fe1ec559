// pack_file.cpp: PackFile and PackSet (pack_file.hpp).
#include "sources/git/pack_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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

// pread() until `len` bytes are in or the file ends. Bytes read; -1 on error.
ssize_t pread_full(int fd, char* out, std::size_t len, std::uint64_t offset) {
  std::size_t got = 0;
  while (got < len) {
    const ssize_t n = ::pread(fd, out + got, len - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(got);
}

}  // namespace

PackFile::PackFile(int fd, std::string name, std::uint64_t size, PackIndex index)
    : fd_(fd), name_(std::move(name)), data_end_(size - kTrailer), starts_(index.offsets()), index_(std::move(index)) {
  std::sort(starts_.begin(), starts_.end());
}

PackFile::PackFile(PackFile&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), name_(std::move(o.name_)), data_end_(o.data_end_),
      starts_(std::move(o.starts_)), index_(std::move(o.index_)) {}

PackFile::~PackFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<PackFile> PackFile::open(const std::string& pack, PackIndex index) {
  const int fd = ::open(pack.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  char header[kHeader];
  if (::fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) < kHeader + kTrailer ||
      pread_full(fd, header, kHeader, 0) != static_cast<ssize_t>(kHeader)) {
    ::close(fd);
    return std::nullopt;
  }
  PackFile f(fd, pack, static_cast<std::uint64_t>(st.st_size), std::move(index));  // owns fd from here
  const std::uint32_t version = be32(header + 4);
  if (std::memcmp(header, "PACK", 4) != 0 || (version != 2 && version != 3) || be32(header + 8) != f.index_.size())
    return std::nullopt;  // not the pack its index describes
  return f;
}

std::uint64_t PackFile::entry_end(std::uint64_t offset) const noexcept {
  if (offset < kHeader || offset >= data_end_) return 0;
  const auto next = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return next == starts_.end() ? data_end_ : std::min(*next, data_end_);
}

bool PackFile::read(std::uint64_t offset, std::size_t len, Bytes& out, std::string& why) const {
  out.resize_for_overwrite(len);
  const ssize_t got = pread_full(fd_, out.data(), len, offset);
  if (got == static_cast<ssize_t>(len)) return true;
  if (got < 0) {
    why = "cannot read " + name_ + ": " + std::strerror(errno);
  } else {
    why = name_ + " ends at " + std::to_string(offset + static_cast<std::uint64_t>(got)) + ", before its entry at " +
          std::to_string(offset) + " ends: the pack was cut short (rewritten or damaged while being read?)";
  }
  return false;
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

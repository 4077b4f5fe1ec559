// pack_file.hpp: PackSet, the packs of a repository's object database opened
// with their indexes (pack_index.hpp), and PackLocation, where an object is in
// them: what the history scan's own pack reader (pack_reader.hpp) reads and
// the read order (pack_order.hpp) sorts by. README.md, "Reading objects".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sources/git/bytes.hpp"
#include "sources/git/pack_index.hpp"

namespace stealscan::git {

// An object's place: which pack of a PackSet, and its offset in it.
struct PackLocation {
  std::uint32_t pack;
  std::uint64_t offset;
};

// PackLocation as an unordered_map's key.
struct PackLocationHash {
  std::size_t operator()(PackLocation at) const noexcept {
    return std::hash<std::uint64_t>()(at.offset) ^ (std::size_t{at.pack} << 1);
  }
};
struct SamePackLocation {
  bool operator()(PackLocation a, PackLocation b) const noexcept { return a.pack == b.pack && a.offset == b.offset; }
};

// One .pack file, read with pread() (never mapped: a pack that another
// process cuts short while we read it, `git gc` or `git repack`, must give
// an error, not a SIGBUS), with its index. Move-only (owns the descriptor).
// Reads are safe from any number of threads at once.
class PackFile {
 public:
  // nullopt if `pack` cannot be opened or is not the version 2 or 3 pack its
  // index describes; the caller then reads that pack's objects through libgit2.
  static std::optional<PackFile> open(const std::string& pack, PackIndex index);
  PackFile(PackFile&& o) noexcept;
  PackFile& operator=(PackFile&&) = delete;
  PackFile(const PackFile&) = delete;
  ~PackFile();

  [[nodiscard]] const PackIndex& index() const noexcept { return index_; }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

  // Where the entry at `offset` ends: the next entry's start, or the
  // trailing checksum's. 0 if `offset` is outside the object data (a corrupt
  // index or delta).
  [[nodiscard]] std::uint64_t entry_end(std::uint64_t offset) const noexcept;
  // Where the object data ends (the trailing checksum starts).
  [[nodiscard]] std::uint64_t data_end() const noexcept { return data_end_; }

  // Reads `len` bytes at `offset` into `out` (sized to them). False, with the
  // reason in `why`, if the file no longer holds them (cut short since it
  // was opened) or cannot be read.
  bool read(std::uint64_t offset, std::size_t len, Bytes& out, std::string& why) const;

 private:
  PackFile(int fd, std::string name, std::uint64_t size, PackIndex index);
  int fd_;
  std::string name_;
  std::uint64_t data_end_;              // where the trailing checksum starts
  std::vector<std::uint64_t> starts_;   // every entry's offset, sorted
  PackIndex index_;
};

// Every pack of `objects_dir`/pack that has a readable .idx next to it, in
// name order (so pack numbers do not depend on the directory's listing
// order). A pack that cannot be used is left out, silently: its objects are
// then read through libgit2, which reports them if they are unreadable.
class PackSet {
 public:
  static PackSet open(const std::string& objects_dir);
  [[nodiscard]] std::optional<PackLocation> locate(const git_oid& id) const;
  [[nodiscard]] const PackFile& pack(std::uint32_t i) const noexcept { return packs_[i]; }
  [[nodiscard]] std::size_t size() const noexcept { return packs_.size(); }

 private:
  std::vector<PackFile> packs_;
};

}  // namespace stealscan::git

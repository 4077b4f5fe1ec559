// pack_file.hpp: PackSet, the packs of a repository's object database mapped
// read-only with their indexes (pack_index.hpp), and PackLocation, where an
// object is in them: what the history scan's own pack reader (pack_reader.hpp)
// reads and the read order (pack_order.hpp) sorts by. README.md, "Reading objects".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sources/git/pack_index.hpp"

namespace stealscan::git {

// An object's place: which pack of a PackSet, and its offset in it.
struct PackLocation {
  std::uint32_t pack;
  std::uint64_t offset;
};

// One .pack file mapped read-only, with its index. Move-only (owns the mapping).
class PackFile {
 public:
  // nullopt if `pack` cannot be opened and mapped or is not a version 2 or 3
  // pack; the caller then reads that pack's objects through libgit2.
  static std::optional<PackFile> open(const std::string& pack, PackIndex index);
  PackFile(PackFile&& o) noexcept;
  PackFile& operator=(PackFile&&) = delete;
  PackFile(const PackFile&) = delete;
  ~PackFile();

  // The pack's object data: from the header to before the trailing checksum.
  // An offset outside it is a corrupt index or delta.
  [[nodiscard]] std::string_view data() const noexcept { return {map_, data_size_}; }
  [[nodiscard]] const PackIndex& index() const noexcept { return index_; }

 private:
  PackFile(const char* map, std::size_t map_size, PackIndex index) noexcept;
  const char* map_;
  std::size_t map_size_;
  std::size_t data_size_;
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

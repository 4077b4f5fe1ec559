// pack_index.hpp: PackIndex, one pack's .idx file (version 2) read whole:
// where each object starts in the pack (for the read order, pack_order.hpp,
// and the pack reader).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <git2.h>

namespace stealscan::git {

// A pack's index file, version 2 (gitformat-pack(5)), read whole. Only what
// the read order needs: an object's offset in its pack.
class PackIndex {
 public:
  // nullopt if `bytes` is not a well-formed version-2 index of SHA-1 ids
  // (version 1, a truncated or inconsistent file): the caller orders without it.
  static std::optional<PackIndex> parse(std::string bytes);

  // Where `id` starts in the pack; nullopt if the pack does not hold it.
  [[nodiscard]] std::optional<std::uint64_t> offset(const git_oid& id) const;
  [[nodiscard]] std::uint32_t size() const noexcept { return count_; }
  // Every object's offset, in index (id) order; an offset whose 64-bit table
  // entry is missing (a corrupt index) is left out.
  [[nodiscard]] std::vector<std::uint64_t> offsets() const;

 private:
  PackIndex(std::string bytes, std::uint32_t count, std::uint32_t large) noexcept
      : bytes_(std::move(bytes)), count_(count), large_(large) {}
  [[nodiscard]] std::uint32_t u32(std::size_t at) const noexcept;
  // The offset of the object at position `i` of the index.
  [[nodiscard]] std::optional<std::uint64_t> offset_at(std::uint32_t i) const noexcept;

  std::string bytes_;
  std::uint32_t count_;  // objects in the pack
  std::uint32_t large_;  // entries of the 64-bit offset table
};

}  // namespace stealscan::git

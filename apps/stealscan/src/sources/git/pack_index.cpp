// pack_index.cpp: PackIndex (pack_index.hpp).
#include "sources/git/pack_index.hpp"

#include <cstring>

namespace stealscan::git {
namespace {

// The layout of a version-2 .idx (gitformat-pack(5)): a header, a fan-out
// table of 256 counts, then per object its id, its CRC-32 and its 31-bit
// offset (the high bit set: an index into a table of 64-bit offsets after
// it), then the pack's and the index's own checksums.
constexpr unsigned char kMagic[4] = {0xff, 't', 'O', 'c'};
constexpr std::size_t kFanout = 8;
constexpr std::size_t kIds = kFanout + 256 * 4;
constexpr std::size_t kIdSize = GIT_OID_RAWSZ;
constexpr std::size_t kTrailer = 2 * kIdSize;
constexpr std::uint32_t kLargeOffset = 0x80000000U;

// A big-endian 64-bit number: how ids compare, eight bytes at once.
std::uint64_t be64(const unsigned char* p) noexcept {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return __builtin_bswap64(v);
}

}  // namespace

std::uint32_t PackIndex::u32(std::size_t at) const noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes_.data() + at);
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

std::optional<PackIndex> PackIndex::parse(std::string bytes) {
  if (bytes.size() < kIds + kTrailer || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  PackIndex idx(std::move(bytes), 0, 0);
  if (idx.u32(4) != 2) return std::nullopt;
  std::uint32_t prev = 0;
  for (std::size_t i = 0; i < 256; ++i) {  // counts never decrease
    const std::uint32_t n = idx.u32(kFanout + 4 * i);
    if (n < prev) return std::nullopt;
    prev = n;
  }
  const std::uint64_t fixed = kIds + std::uint64_t{prev} * (kIdSize + 4 + 4) + kTrailer;
  const std::uint64_t size = idx.bytes_.size();
  if (size < fixed || (size - fixed) % 8 != 0 || (size - fixed) / 8 > prev) return std::nullopt;
  idx.count_ = prev;
  idx.large_ = static_cast<std::uint32_t>((size - fixed) / 8);
  return idx;
}

std::optional<std::uint64_t> PackIndex::offset(const git_oid& id) const {
  const unsigned first = id.id[0];
  std::uint32_t lo = first == 0 ? 0 : u32(kFanout + 4 * (first - 1));
  std::uint32_t hi = u32(kFanout + 4 * first);
  // The ids are sorted and, past their first byte, evenly spread: the search
  // starts with a guess from the id's next bytes and a window around it that
  // holds the id nearly always (a bucket of n ids strays about sqrt(n) from
  // the guess), then halves what is left. Each probe compares the first
  // eight bytes as one number (memcmp only for the last twelve on a tie).
  const std::uint64_t key = be64(id.id);
  const char* const ids = bytes_.data() + kIds;
  const auto order = [&](std::uint32_t i) {  // the entry at i against the id: <0, 0, >0
    const std::uint64_t k = be64(reinterpret_cast<const unsigned char*>(ids) + std::size_t{i} * kIdSize);
    if (k != key) return k < key ? -1 : 1;
    return std::memcmp(ids + std::size_t{i} * kIdSize + 8, id.id + 8, kIdSize - 8);
  };
  constexpr std::uint32_t kWindow = 64;
  if (hi - lo > 4 * kWindow) {
    const std::uint64_t spread = key << 8 >> 40;  // bytes 1 to 3 of the id: 24 bits
    const auto guess = static_cast<std::uint32_t>(lo + ((std::uint64_t{hi - lo} * spread) >> 24));
    const std::uint32_t below = guess > lo + kWindow ? guess - kWindow : lo;
    const std::uint32_t above = guess + kWindow < hi ? guess + kWindow : hi - 1;
    const int b = order(below);
    if (b == 0) return offset_at(below);
    if (b > 0) {
      hi = below;  // before the window
    } else {
      lo = below + 1;
      const int a = order(above);
      if (a == 0) return offset_at(above);
      if (a > 0) hi = above;  // inside the window, nearly always
      else lo = above + 1;    // after it
    }
  }
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    const int c = order(mid);
    if (c == 0) return offset_at(mid);
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> PackIndex::offset_at(std::uint32_t i) const noexcept {
  const std::size_t offsets = kIds + std::size_t{count_} * (kIdSize + 4);
  const std::uint32_t small = u32(offsets + std::size_t{i} * 4);
  if ((small & kLargeOffset) == 0) return small;
  const std::uint32_t k = small & ~kLargeOffset;
  if (k >= large_) return std::nullopt;  // out of its table: a corrupt index
  const std::size_t at = offsets + std::size_t{count_} * 4 + std::size_t{k} * 8;
  return (std::uint64_t{u32(at)} << 32) | u32(at + 4);
}

std::vector<std::uint64_t> PackIndex::offsets() const {
  std::vector<std::uint64_t> out;
  out.reserve(count_);
  for (std::uint32_t i = 0; i < count_; ++i)
    if (const std::optional<std::uint64_t> o = offset_at(i)) out.push_back(*o);
  return out;
}

}  // namespace stealscan::git

// pack_order.cpp: order_by_pack() (pack_order.hpp).
#include "sources/git/pack_order.hpp"

#include <algorithm>
#include <cstdint>
#include <tuple>

namespace stealscan::git {

std::vector<std::optional<PackLocation>> order_by_pack(const PackSet& packs, std::vector<BlobEntry>& blobs) {
  struct Key {
    std::uint64_t pack;  // packs.size() when in none: after them all
    std::uint64_t offset;
    std::size_t index;   // in history order: breaks ties, orders the unpacked
  };
  std::vector<Key> keys;
  keys.reserve(blobs.size());
  for (std::size_t i = 0; i < blobs.size(); ++i) {
    const std::optional<PackLocation> at = packs.locate(blobs[i].blob);
    keys.push_back(at ? Key{at->pack, at->offset, i} : Key{packs.size(), 0, i});
  }
  std::sort(keys.begin(), keys.end(),
            [](const Key& a, const Key& b) { return std::tie(a.pack, a.offset, a.index) < std::tie(b.pack, b.offset, b.index); });
  std::vector<BlobEntry> ordered;
  std::vector<std::optional<PackLocation>> places;
  ordered.reserve(blobs.size());
  places.reserve(blobs.size());
  for (const Key& k : keys) {
    ordered.push_back(std::move(blobs[k.index]));
    if (k.pack < packs.size()) places.push_back(PackLocation{static_cast<std::uint32_t>(k.pack), k.offset});
    else places.emplace_back();
  }
  blobs = std::move(ordered);
  return places;
}

}  // namespace stealscan::git

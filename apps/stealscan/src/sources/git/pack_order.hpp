// pack_order.hpp: order_by_pack(), the blob index put in the order the scan
// reads it: delta family by delta family, each object right after its base
// (depth first), so that a delta's base has just been read and is in the
// reader's cache (README.md, "Reading objects").
#pragma once

#include <optional>
#include <vector>

#include "sources/git/blob_index.hpp"
#include "sources/git/pack_file.hpp"

namespace stealscan::git {

// Reorders `blobs` (the index, in history order) for reading: the blobs found
// in `packs` in depth-first order of their delta forest (each chain from a
// blob down to its base read from the entries' headers, once per entry; the
// roots, whole objects, in pack order, each followed by what is built on it,
// a base before its deltas, siblings in pack order), then the others (loose,
// in an alternate, in a pack without a usable index) in their history order.
// Returns each blob's place, in the new order (nullopt: not in `packs`).
// Depends only on the repository, so it is the same at any -j.
std::vector<std::optional<PackLocation>> order_by_pack(const PackSet& packs, std::vector<BlobEntry>& blobs);

}  // namespace stealscan::git

// pack_order.cpp: order_by_pack() (pack_order.hpp).
#include "sources/git/pack_order.hpp"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "sources/git/pack_reader.hpp"

namespace stealscan::git {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// The delta forest above a set of packed objects: each entry on a chain from
// one of them down to its base, once, with its base.
class DeltaForest {
 public:
  explicit DeltaForest(const PackSet& packs) : reader_(packs) {}

  // The node of the entry at `at`, added with its chain down to a root (a
  // whole object, or an entry whose base cannot be followed) if new. A chain
  // that comes back to an entry already here (another object's chain, or a
  // damaged pack's loop) stops there: each entry's header is read once.
  std::size_t add(PackLocation at) {
    const std::size_t first = intern(at);
    for (std::size_t n = first; !nodes_[n].parsed;) {
      nodes_[n].parsed = true;
      const std::optional<PackLocation> base = reader_.delta_base(nodes_[n].at);
      if (!base) break;
      const std::size_t b = intern(*base);
      nodes_[n].base = b;
      n = b;
    }
    return first;
  }

  // Node ids in depth-first order: each root (in pack order) followed by
  // the objects built on it, a base before its deltas, siblings in pack
  // order. Nodes on a loop (no root below them) come last, in pack order.
  std::vector<std::size_t> depth_first() const {
    std::vector<std::size_t> ids(nodes_.size());
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i;
    std::sort(ids.begin(), ids.end(), [&](std::size_t a, std::size_t b) { return before(nodes_[a].at, nodes_[b].at); });
    // Each node's deltas, in pack order (counting sort by base).
    std::vector<std::size_t> first(nodes_.size() + 1, 0), deltas(nodes_.size());
    for (const Node& n : nodes_)
      if (n.base != kNone) ++first[n.base + 1];
    for (std::size_t i = 0; i < nodes_.size(); ++i) first[i + 1] += first[i];
    std::vector<std::size_t> fill(first.begin(), first.end() - 1);
    for (const std::size_t id : ids)
      if (nodes_[id].base != kNone) deltas[fill[nodes_[id].base]++] = id;
    std::vector<std::size_t> order;
    std::vector<bool> done(nodes_.size(), false);
    std::vector<std::size_t> stack;
    order.reserve(nodes_.size());
    for (const std::size_t root : ids) {
      if (nodes_[root].base != kNone) continue;
      stack.push_back(root);
      while (!stack.empty()) {
        const std::size_t n = stack.back();
        stack.pop_back();
        order.push_back(n);
        done[n] = true;
        for (std::size_t k = first[n + 1]; k-- > first[n];) stack.push_back(deltas[k]);  // the first popped first
      }
    }
    for (const std::size_t id : ids)
      if (!done[id]) order.push_back(id);
    return order;
  }

  [[nodiscard]] PackLocation at(std::size_t n) const { return nodes_[n].at; }

 private:
  static bool before(PackLocation a, PackLocation b) { return std::tie(a.pack, a.offset) < std::tie(b.pack, b.offset); }

  struct Node {
    PackLocation at;
    std::size_t base = kNone;
    bool parsed = false;
  };
  struct Hash {
    std::size_t operator()(PackLocation at) const noexcept {
      return std::hash<std::uint64_t>()(at.offset) ^ (std::size_t{at.pack} << 1);
    }
  };
  struct Same {
    bool operator()(PackLocation a, PackLocation b) const noexcept { return a.pack == b.pack && a.offset == b.offset; }
  };

  std::size_t intern(PackLocation at) {
    const auto [it, added] = ids_.try_emplace(at, nodes_.size());
    if (added) nodes_.push_back(Node{at});
    return it->second;
  }

  PackReader reader_;
  std::vector<Node> nodes_;
  std::unordered_map<PackLocation, std::size_t, Hash, Same> ids_;
};

}  // namespace

std::vector<std::optional<PackLocation>> order_by_pack(const PackSet& packs, std::vector<BlobEntry>& blobs) {
  DeltaForest forest(packs);
  struct Placed {
    std::size_t node;   // in the forest
    std::size_t index;  // in history order: orders blobs at one node (the index holding one twice)
  };
  std::vector<Placed> placed;
  std::vector<std::size_t> unpacked;  // in history order
  for (std::size_t i = 0; i < blobs.size(); ++i) {
    if (const std::optional<PackLocation> at = packs.locate(blobs[i].blob)) {
      placed.push_back(Placed{forest.add(*at), i});
    } else {
      unpacked.push_back(i);
    }
  }
  const std::vector<std::size_t> order = forest.depth_first();
  std::vector<std::size_t> rank(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) rank[order[k]] = k;
  std::sort(placed.begin(), placed.end(), [&](const Placed& a, const Placed& b) {
    return std::tie(rank[a.node], a.index) < std::tie(rank[b.node], b.index);
  });
  std::vector<BlobEntry> ordered;
  std::vector<std::optional<PackLocation>> places;
  ordered.reserve(blobs.size());
  places.reserve(blobs.size());
  for (const Placed& p : placed) {
    ordered.push_back(std::move(blobs[p.index]));
    places.push_back(forest.at(p.node));
  }
  for (const std::size_t i : unpacked) {
    ordered.push_back(std::move(blobs[i]));
    places.emplace_back();
  }
  blobs = std::move(ordered);
  return places;
}

}  // namespace stealscan::git

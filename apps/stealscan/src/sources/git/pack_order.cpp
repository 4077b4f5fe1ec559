// pack_order.cpp: order_by_pack() (pack_order.hpp).
#include "sources/git/pack_order.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "sources/git/pack_reader.hpp"

namespace stealscan::git {
namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

// The pack's bytes at an entry, through a window read ahead: a history's
// blobs and their bases lie close together in the pack, and headers asked
// for in pack order then cost one read for many (git.git's history: 5,240
// reads of 64 KiB for 261,791 headers; the ordering took 0.43 s instead of 0.57).
class HeaderWindow {
 public:
  explicit HeaderWindow(const PackSet& packs) : packs_(packs) {}

  // The bytes from `at` on: at least an entry header's worth, unless the
  // object data ends first; empty if they cannot be read.
  std::string_view at(PackLocation at) {
    const PackFile& pf = packs_.pack(at.pack);
    const std::uint64_t end = begin_ + bytes_.size();
    const bool inside = at.pack == pack_ && begin_ <= at.offset && at.offset < end &&
                        (at.offset + PackReader::kLongestHeader <= end || end == pf.data_end());
    if (!inside) {
      std::string why;
      if (at.offset >= pf.data_end() ||
          !pf.read(at.offset, static_cast<std::size_t>(std::min<std::uint64_t>(kWindow, pf.data_end() - at.offset)),
                   bytes_, why)) {
        bytes_.resize_for_overwrite(0);
        pack_ = UINT32_MAX;
        return {};
      }
      pack_ = at.pack;
      begin_ = at.offset;
    }
    return bytes_.view().substr(static_cast<std::size_t>(at.offset - begin_));
  }

 private:
  static constexpr std::size_t kWindow = 64 * 1024;
  const PackSet& packs_;
  Bytes bytes_;
  std::uint32_t pack_ = UINT32_MAX;  // none yet
  std::uint64_t begin_ = 0;
};

// The delta forest above a set of packed objects: each entry on a chain from
// one of them down to its base, once, with its base.
class DeltaForest {
 public:
  explicit DeltaForest(const PackSet& packs) : reader_(packs), window_(packs) {}

  // The node of the entry at `at`; add_chains() reads what lies below it.
  std::size_t add(PackLocation at) { return intern(at); }

  // Each node's chain down to a root (a whole object, or an entry whose base
  // cannot be followed), in rounds: the headers of the nodes new in a round
  // are read in pack order, and their bases not yet here make the next
  // round. A chain that comes back to an entry already here (another
  // object's chain, or a damaged pack's loop) stops there: each entry's
  // header is read once.
  void add_chains() {
    std::vector<std::size_t> round(nodes_.size());
    for (std::size_t i = 0; i < round.size(); ++i) round[i] = i;
    std::vector<std::size_t> next;
    while (!round.empty()) {
      std::sort(round.begin(), round.end(), [&](std::size_t a, std::size_t b) { return before(nodes_[a].at, nodes_[b].at); });
      next.clear();
      for (const std::size_t n : round) {
        const PackLocation at = nodes_[n].at;
        const std::optional<PackLocation> base = reader_.delta_base(at, window_.at(at));
        if (!base) continue;
        const std::size_t known = nodes_.size();
        const std::size_t b = intern(*base);
        nodes_[n].base = b;
        if (b == known) next.push_back(b);
      }
      round.swap(next);
    }
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
  };

  std::size_t intern(PackLocation at) {
    const auto [it, added] = ids_.try_emplace(at, nodes_.size());
    if (added) nodes_.push_back(Node{at});
    return it->second;
  }

  PackReader reader_;
  HeaderWindow window_;
  std::vector<Node> nodes_;
  std::unordered_map<PackLocation, std::size_t, PackLocationHash, SamePackLocation> ids_;
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
  forest.add_chains();
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

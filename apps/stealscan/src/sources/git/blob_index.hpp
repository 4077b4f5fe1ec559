// blob_index.hpp: which blobs each commit introduces (introduced_blobs(), a
// tree comparison per parent) and the blob index built from them (unique_blobs():
// each blob once, attributed to the oldest commit that introduced it).
// README.md, "Attribution" and "Merges", says why.
#pragma once

#include <cstdint>
#include <deque>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sources/git/git_handle.hpp"
#include "sources/git/history.hpp"
#include "sources/git/object_parse.hpp"
#include "sources/git/object_reader.hpp"

namespace stealscan::git {

struct BlobEntry {
  git_oid blob;
  std::uint32_t commit;  // index into History::commits
  std::string path;      // the blob's path in that commit's tree
};

// A tree read and parsed once: its bytes and its entries (pointing into them),
// in the tree's order (git's: by name, a tree's as if it ended in '/').
// Immutable once made; shared between the cache and the diff levels holding it.
struct ParsedTree {
  git_oid id;
  std::string bytes;
  std::vector<TreeEntry> entries;
};

// A worker's most recently used parsed trees, by id, within a byte budget
// (least recently used out first). Diffs in history order keep meeting the
// trees they just met: a commit's old tree is mostly a tree an earlier commit
// loaded as new, a few commits before (branches interleave in the order), and
// the big directories (the root, t/ of git.git: 1,500 entries) would be read,
// copied and parsed again at every commit that touches them. One worker's:
// no sharing, no lock.
class TreeCache {
 public:
  explicit TreeCache(std::size_t budget_bytes) : budget_(budget_bytes) {}
  [[nodiscard]] std::shared_ptr<const ParsedTree> find(const git_oid& id);
  // Keeps `t` (unless it alone is over a quarter of the budget) and returns it.
  std::shared_ptr<const ParsedTree> put(std::shared_ptr<const ParsedTree> t);

 private:
  static std::size_t weight(const ParsedTree& t) noexcept {
    return t.bytes.capacity() + t.entries.capacity() * sizeof(TreeEntry) + 256;  // + the nodes and the block
  }
  std::size_t budget_;
  std::size_t used_ = 0;
  std::list<std::shared_ptr<const ParsedTree>> order_;  // most recent first
  std::unordered_map<git_oid, std::list<std::shared_ptr<const ParsedTree>>::iterator, OidHash, OidEq> index_;
};

// A worker's state for introduced_blobs(), kept from commit to commit: its
// tree cache, the two trees compared at each depth, the path being built.
class DiffScratch {
 public:
  // 16 MiB of parsed trees per worker.
  static constexpr std::size_t kTreeCacheBytes = std::size_t{16} << 20;
  DiffScratch() : trees(kTreeCacheBytes) {}

  struct Level {
    std::shared_ptr<const ParsedTree> tree;
    std::shared_ptr<const ParsedTree> old;
    bool has_old = false;
  };
  // The trees at recursion depth `d` (a deque: deeper ones do not move them).
  Level& level(std::size_t d) {
    while (levels_.size() <= d) levels_.emplace_back();
    return levels_[d];
  }
  TreeCache trees;
  std::string path;

 private:
  std::deque<Level> levels_;
};

// Appends the blobs (regular and executable files; not links or submodules)
// that commit `index` of `history` introduces: with no parent trees (a root
// commit, a shallow boundary, parents that cannot be read), every blob of its
// tree; else every path whose blob differs from that path's blob in each
// parent tree (README.md, "Attribution"). Blobs in the history's
// excluded_blobs are left out. A tree that cannot be read or is malformed
// is an error naming the commit and path, appended to `errors`, and the diff
// goes on: the files under one of the commit's own trees are lost (said);
// under a parent's, they all count as new (more scanned, nothing lost).
void introduced_blobs(ObjectReader& reader, DiffScratch& scratch, const History& history, std::uint32_t index,
                      std::vector<BlobEntry>& out, std::vector<std::string>& errors);

// Each blob once, with the smallest commit index, then the smallest path;
// returned sorted by (commit, path): the order the history introduced them.
// Consumes `parts`.
std::vector<BlobEntry> unique_blobs(std::vector<std::vector<BlobEntry>>& parts);

}  // namespace stealscan::git

// blob_index.hpp: which blobs each commit introduces (introduced_blobs(), a
// tree comparison per parent) and the blob index built from them (unique_blobs():
// each blob once, attributed to the oldest commit that introduced it).
// README.md, "Attribution" and "Merges", says why.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
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

// A worker's buffers for introduced_blobs(), kept from commit to commit so
// that the diffs allocate next to nothing: the two trees compared at each
// depth (copied out of the reader, whose bytes last until its next read), the
// path being built, the parents.
class DiffScratch {
 public:
  // One tree's bytes and entries.
  struct Tree {
    std::string bytes;
    std::vector<TreeEntry> entries;  // into `bytes`, in the tree's order (git's: by name, a tree's as if with '/')
  };
  struct Level {
    Tree tree;
    Tree old;
    bool has_old = false;
  };
  // The trees at recursion depth `d` (a deque: deeper ones do not move them).
  Level& level(std::size_t d) {
    while (levels_.size() <= d) levels_.emplace_back();
    return levels_[d];
  }
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

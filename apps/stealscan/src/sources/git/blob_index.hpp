// blob_index.hpp: which blobs each commit introduces (introduced_blobs(), a
// tree comparison per parent) and the blob index built from them (unique_blobs():
// each blob once, attributed to the oldest commit that introduced it).
// README.md, "Attribution" and "Merges", says why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sources/git/git_handle.hpp"

namespace stealscan::git {

struct BlobEntry {
  git_oid blob;
  std::uint32_t commit;  // index into History::commits
  std::string path;      // the blob's path in that commit's tree
};

// Appends the blobs (regular and executable files; not links or submodules)
// that commit `index` introduces: a root commit, every blob of its tree; a
// commit with parents, every path whose blob differs from that path's blob in
// each parent (README.md, "Attribution"). Blobs in `excluded` (sorted) are
// left out. GitError if an object cannot be read.
void introduced_blobs(git_repository* repo, const git_oid& commit, std::uint32_t index,
                      const std::vector<git_oid>& excluded, std::vector<BlobEntry>& out);

// Each blob once, with the smallest commit index, then the smallest path;
// returned sorted by (commit, path): the order the history introduced them,
// which also keeps a pack's delta chains close together. Consumes `parts`.
std::vector<BlobEntry> unique_blobs(std::vector<std::vector<BlobEntry>>& parts);

}  // namespace stealscan::git

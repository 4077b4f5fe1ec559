// history.hpp: walk_history(), phase 1 of the history scan (README.md): the
// commits to scan, in a deterministic topological order, oldest first, and
// what --since excludes. Cheap: it reads commits, not trees or blobs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sources/git/git_handle.hpp"

namespace stealscan::git {

struct History {
  // Every commit reachable from the refs (refs/*, branches, tags, remotes) and
  // HEAD, less those reachable from --since; parents before children.
  std::vector<git_oid> commits;
  // Sorted (oid_less): the blobs in the --since commit's tree, not rescanned.
  std::vector<git_oid> excluded_blobs;
};

// `since`: anything git_revparse_single takes that peels to a commit; GitError
// "--since 'X': ..." otherwise. GitError for a shallow clone (not walked yet).
History walk_history(git_repository* repo, const std::optional<std::string>& since);

}  // namespace stealscan::git

// history.hpp: walk_history(), phase 1 of the history scan (README.md): the
// commits to scan, in a deterministic topological order, oldest first, each
// with its tree and the trees of its parents that are there to diff against,
// and what a range's base excludes. Cheap: it reads commits, not trees or
// blobs. Nothing it cannot read is passed over in silence: an unreadable ref
// or commit is an error naming it, a shallow clone's cut is named.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sources/git/git_handle.hpp"
#include "sources/git/object_reader.hpp"

namespace stealscan::git {

// What to walk. Without a range: every ref (refs/*: branches, tags, remotes,
// notes, stash) and HEAD. `since` and `range` are exclusive (the command
// line's check).
struct HistoryRequest {
  // `--since C`: the refs, less C and its ancestors; the blobs of C's tree
  // are not rescanned.
  std::optional<std::string> since;
  // `--range A..B`: B and its ancestors less A and its ancestors, A's blobs
  // excluded as for `since`; `A..` is `A..HEAD`, `..B` is `HEAD..B`; a single
  // revision `B` is B and all its ancestors.
  std::optional<std::string> range;
};

struct History {
  // The commits, parents before children (README.md, "Order").
  std::vector<git_oid> commits;
  // commits[i]'s tree.
  std::vector<git_oid> trees;
  // The trees of commits[i]'s parents that this clone has, in the commit's
  // parent order: parent_trees[parent_begin[i] .. parent_begin[i + 1]). A
  // parent past a shallow boundary, or unreadable, is not there: the commit is
  // diffed against the others, or taken whole if none is left.
  std::vector<std::uint32_t> parent_begin;
  std::vector<git_oid> parent_trees;
  // Sorted (oid_less): the blobs in the base's tree (--since, a range's A),
  // not rescanned.
  std::vector<git_oid> excluded_blobs;
  // Each ref, commit or tag that could not be read, named, with the reason.
  std::vector<std::string> errors;
  // The commits of the walk at a shallow clone's boundary whose parents this
  // clone does not have (sorted): history below them was not scanned.
  std::vector<git_oid> shallow_cut;

  [[nodiscard]] std::span<const git_oid> parents_of(std::size_t i) const {
    return {parent_trees.data() + parent_begin[i], parent_begin[i + 1] - parent_begin[i]};
  }
};

// `reader` reads the commits and tags (the main thread's). A revision the
// request names (anything git_revparse takes, peeling to a commit) that cannot
// be resolved is a GitError "--since 'X': ..." / "--range 'X': ...", thrown;
// an unreadable ref or commit met on the way is recorded in History::errors
// and the walk goes on with what it can read.
History walk_history(git_repository* repo, ObjectReader& reader, const HistoryRequest& request);

}  // namespace stealscan::git

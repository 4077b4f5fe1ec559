// object_parse.hpp: the two raw object formats the tree diff reads
// (blob_index.hpp): a commit's tree and parents, a tree's entries. Parsed
// here rather than through git_commit / git_tree objects: the objects come
// from the pack reader (object_reader.hpp) as bytes.
#pragma once

#include <git2.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace stealscan::git {

// A commit starts "tree <hex>\n", then a "parent <hex>\n" line per parent, in
// order. False (outputs unspecified) if it does not.
bool parse_commit(std::string_view raw, git_oid& tree, std::vector<git_oid>& parents);

// The committer's time (seconds since the epoch) of a commit: the number
// after the last '>' of its "committer " header line. 0 if there is none or it
// does not parse (git's own reading of a broken date), so that the walk's
// order stays defined.
std::int64_t commit_time(std::string_view raw);

// An annotated tag starts "object <hex>\ntype <type>\n". False if it does not.
bool parse_tag(std::string_view raw, git_oid& target, git_object_t& type);

struct TreeEntry {
  std::string_view name;  // into the tree's bytes
  git_filemode_t mode;    // normalised as libgit2's git_tree_entry_filemode() does
  git_oid id;
};

// A tree: entries "<octal mode> <name>\0<20-byte id>", back to back. `out` is
// cleared first. False (out unspecified) for a malformed one.
bool parse_tree(std::string_view raw, std::vector<TreeEntry>& out);

}  // namespace stealscan::git

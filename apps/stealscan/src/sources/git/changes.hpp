// changes.hpp: the changes not yet committed, as a pre-commit scan reads them
// (`stealscan secrets --staged`, `--uncommitted`; README.md, "Changes"): each
// changed file's new contents and which of its lines are added, from
// libgit2's diff of HEAD's tree against the index or the work tree.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sources/git/git_handle.hpp"

namespace stealscan::git {

enum class ChangeSet : std::uint8_t {
  staged,       // the index against HEAD: what `git commit` would record
  uncommitted,  // the work tree (staged or not) against HEAD, untracked files too (not ignored ones)
};

struct ChangedFile {
  std::string path;                  // relative to the work tree, '/'-separated
  std::string bytes;                 // the new contents: the index's blob, or the file on disk
  std::vector<std::uint64_t> added;  // the added lines (from 1), sorted; all of a new file's
  bool binary = false;               // libgit2 found no lines in it (a NUL, or marked binary)
  bool too_large = false;            // over max_size: `bytes` left empty
};

// Calls `each` for every changed regular file (added, modified, renamed with
// changes, type changed to a file), one at a time, in path order; deleted
// files, symbolic links and submodules are not files to scan. A rename is
// found as git finds it, so a moved file adds no line. With an unborn HEAD
// every file of the index (or work tree) is new. GitError for a bare
// repository or a diff libgit2 cannot make; a file that cannot be read is
// appended to `errors`, naming it, and the others go on.
void for_each_change(git_repository* repo, ChangeSet which, std::uint64_t max_size,
                     const std::function<void(ChangedFile&)>& each, std::vector<std::string>& errors);

}  // namespace stealscan::git

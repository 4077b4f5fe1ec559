// outer_ignores.hpp: OuterIgnores, the ignore rules that reach a directory
// operand from outside it (walk/README.md, "Which files"):
// - `.gitignore` files of its ancestors up to the repository root, the nearest
//   ancestor (or the operand itself) holding a `.git` entry; none outside one;
// - `.ignore` and `.stealscanignore` files of all its ancestors, repository or not;
// - the repository's `.git/info/exclude` (a `.git` file, as in a worktree, is
//   followed to its git directory and that one's common directory, as for a
//   submodule; the walker reads a nested repository's with read_git_exclude);
// - the global excludes file (git_config.hpp), inside a repository only.
// Each is matched relative to its own directory (the repository root for the
// last two): the operand's real path, relative to that directory, is computed
// once and becomes the IgnoreStack's prefix.
//
// Cost: per operand, a realpath, a stat per ancestor to find `.git`, and up to
// three openat per ancestor; the global file is read once per run. Nothing per
// walked entry but the matching itself.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "walk/gitignore.hpp"

namespace stealscan {

// The nearest of `absolute` (a real absolute path) and its ancestors holding a
// `.git` entry (file or directory).
std::optional<std::string> find_repository_root(const std::string& absolute);

// The rules of `repository_root`'s info/exclude (empty if none).
std::vector<IgnoreRule> read_git_exclude(const std::string& repository_root);

class OuterIgnores {
 public:
  // `global_excludes_path`: "" for none; read on first use inside a repository.
  explicit OuterIgnores(std::string global_excludes_path) : global_path_(std::move(global_excludes_path)) {}

  // The rules for the walk below `root`, a directory operand whose walked paths
  // hold `base_length` bytes (root and its '/') before the operand-relative part.
  // Null when no rule applies.
  std::shared_ptr<const IgnoreStack> for_operand(const std::string& root, std::size_t base_length);

  // The global excludes file's rules (read once).
  const std::vector<IgnoreRule>& global_rules();

 private:

  std::string global_path_;
  std::optional<std::vector<IgnoreRule>> global_;
};

}  // namespace stealscan

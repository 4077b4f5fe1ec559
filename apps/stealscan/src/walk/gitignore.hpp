// gitignore.hpp: .gitignore rules (gitignore(5)) and the stack of .gitignore
// files that applies to a directory.
//
// A rule is a line of a .gitignore: `#` starts a comment, `!` negates (re-includes),
// a trailing `/` matches directories only, a `/` at the start or in the middle
// anchors the pattern to the .gitignore's directory (matched against the path
// relative to it), otherwise it matches the name at any depth below. Trailing
// spaces are dropped unless escaped with `\`.
//
// Precedence, as git: within a file the last matching rule decides; a deeper
// .gitignore overrides a shallower one; a directory that is ignored is not
// entered, so nothing below it can be re-included.
//
// Not done (README.md says so): .git/info/exclude, core.excludesFile, and
// .gitignore files above the paths given on the command line.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "walk/glob.hpp"

namespace stealscan {

struct IgnoreRule {
  std::string pattern;  // without `!`, the leading and the trailing `/`
  Glob glob{""};        // `pattern`, compiled
  bool negated = false;
  bool directory_only = false;
  bool anchored = false;  // matched against the relative path, not the name
};

std::vector<IgnoreRule> parse_gitignore(std::string_view contents);

enum class IgnoreVerdict { none, ignore, keep };

// The last rule matching `relative` (the path below the .gitignore's directory);
// `none` when no rule matches.
IgnoreVerdict match_rules(const std::vector<IgnoreRule>& rules, std::string_view relative, bool is_dir);

// One .gitignore and the ones of the directories above it. Shared (immutable)
// by every pending directory below it.
class IgnoreStack {
 public:
  // `base_length`: the length of the directory's path plus its '/', so that
  // path.substr(base_length) is the path relative to the directory.
  IgnoreStack(std::vector<IgnoreRule> rules, std::size_t base_length, std::shared_ptr<const IgnoreStack> parent)
      : rules_(std::move(rules)), base_length_(base_length), parent_(std::move(parent)) {}

  // Whether `path` (an entry below every directory on the stack) is ignored.
  [[nodiscard]] bool ignored(std::string_view path, bool is_dir) const;

 private:
  std::vector<IgnoreRule> rules_;
  std::size_t base_length_;
  std::shared_ptr<const IgnoreStack> parent_;
};

}  // namespace stealscan

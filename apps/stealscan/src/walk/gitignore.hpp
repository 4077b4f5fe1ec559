// gitignore.hpp: .gitignore rules (gitignore(5)), and IgnoreStack, the ignore
// files that apply to a directory: its own, its ancestors', the repository's.
//
// A rule is a line of a .gitignore: `#` starts a comment, `!` negates (re-includes),
// a trailing `/` matches directories only, a `/` at the start or in the middle
// anchors the pattern to the .gitignore's directory (matched against the path
// relative to it), otherwise it matches the name at any depth below. Trailing
// spaces are dropped unless escaped with `\`. `.ignore`, `.stealscanignore`,
// `.git/info/exclude`, the global excludes file and -g globs use the same syntax.
//
// Precedence, as ripgrep (walk/README.md, "Which files"): the kinds in the order
// of IgnoreKind, the first kind with a matching rule decides; within a kind, the
// deepest file with a matching rule; within a file, the last matching rule. A
// directory that is ignored is not entered, so nothing below it can be re-included.
//
// A repository nested below the operand (a directory with a `.git` entry) puts a
// boundary on the stack: past it, the outer .gitignore and exclude files no
// longer apply (as ripgrep); .ignore, .stealscanignore and the global file do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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

// One line; nothing for a blank line, a comment, or a pattern left empty.
std::optional<IgnoreRule> parse_rule(std::string_view line, bool ignore_case = false);
std::vector<IgnoreRule> parse_gitignore(std::string_view contents);

enum class IgnoreVerdict { none, ignore, keep };

// The last rule matching `relative` (the path below the .gitignore's directory);
// `none` when no rule matches.
IgnoreVerdict match_rules(const std::vector<IgnoreRule>& rules, std::string_view relative, bool is_dir);

// Where rules come from, the strongest first.
enum class IgnoreKind : std::uint8_t { stealscanignore, ignore, gitignore, git_exclude, global_excludes };
inline constexpr std::size_t kIgnoreKinds = 5;

// One file's rules and the ones of the files above it (a linked list, deepest
// first). Shared (immutable) by every pending directory below it.
class IgnoreStack {
 public:
  // `base_length`: where the path relative to the operand starts in a walked path
  // (the operand's length plus its '/'). `prefix`: for a file above the operand,
  // the operand's path relative to that file's directory with a '/' ("" at or
  // below the operand), so that prefix + path.substr(base_length) is the path
  // relative to the file's directory.
  IgnoreStack(IgnoreKind kind, std::vector<IgnoreRule> rules, std::size_t base_length, std::string prefix,
              std::shared_ptr<const IgnoreStack> parent)
      : rules_(std::move(rules)), prefix_(std::move(prefix)), base_length_(base_length), kind_(kind),
        parent_(std::move(parent)) {}
  // A .gitignore at or below the operand.
  IgnoreStack(std::vector<IgnoreRule> rules, std::size_t base_length, std::shared_ptr<const IgnoreStack> parent)
      : IgnoreStack(IgnoreKind::gitignore, std::move(rules), base_length, "", std::move(parent)) {}

  // A repository root's boundary: the .gitignore and exclude layers below it
  // on the stack (outer ones) stop applying.
  static std::shared_ptr<const IgnoreStack> repository_boundary(std::shared_ptr<const IgnoreStack> parent) {
    auto s = std::make_shared<IgnoreStack>(IgnoreKind::gitignore, std::vector<IgnoreRule>{}, 0, "", std::move(parent));
    s->boundary_ = true;
    return s;
  }

  // The verdict for `path` (an entry below every directory on the stack).
  // `scratch` is reused to build paths for files above the operand.
  [[nodiscard]] IgnoreVerdict verdict(std::string_view path, bool is_dir, std::string& scratch) const;
  [[nodiscard]] bool ignored(std::string_view path, bool is_dir) const {
    std::string scratch;
    return verdict(path, is_dir, scratch) == IgnoreVerdict::ignore;
  }

 private:
  std::vector<IgnoreRule> rules_;
  std::string prefix_;
  std::size_t base_length_;
  IgnoreKind kind_;
  bool boundary_ = false;
  std::shared_ptr<const IgnoreStack> parent_;
};

}  // namespace stealscan

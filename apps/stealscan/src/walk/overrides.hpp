// overrides.hpp: Overrides, the -g/--glob and --iglob globs (ripgrep's
// overrides). They read like the lines of one .gitignore whose plain globs mean
// "include" and whose `!` globs mean "exclude"; the last glob that matches
// decides. A glob without '/' matches the base name at any depth, one with '/'
// the path relative to the operand (ripgrep: relative to the current directory;
// the same for the operand "."). When any include glob is given, a file that
// matches no glob is excluded; a directory is still entered. An override beats
// every ignore file and -t/-T (walk/README.md, "Which files").
//
// `{a,b}` alternatives are expanded (as ripgrep's -g); at most 1,000 globs come
// out of one.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "walk/gitignore.hpp"

namespace stealscan {

struct GlobOption {
  std::string glob;  // as given, `!` included
  bool ignore_case = false;
};

// A glob that cannot be used; the message names it.
struct GlobError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// "a{b,c}d" -> {"abd", "acd"}; nested groups too; `\{` and `[{]` are literal.
// Throws GlobError for an unclosed '{' or more than 1,000 results.
std::vector<std::string> expand_alternatives(std::string_view glob);

class Overrides {
 public:
  Overrides() = default;
  // Throws GlobError naming the first bad glob: empty, a '#' comment, an
  // unclosed '[' or '{'.
  explicit Overrides(const std::vector<GlobOption>& globs);

  [[nodiscard]] bool empty() const noexcept { return rules_.empty(); }

  // keep: included (searched whatever the ignore files say); ignore: excluded;
  // none: the ignore files and types decide.
  [[nodiscard]] IgnoreVerdict verdict(std::string_view relative, bool is_dir) const;

 private:
  std::vector<IgnoreRule> rules_;  // `negated` = given with '!'
  bool any_include_ = false;
};

}  // namespace stealscan

// file_types.hpp: -t/-T file types: a built-in table of names and base-name
// globs, the ones `rg --type-list` gives for them (ripgrep 13), and TypeFilter,
// which selects (-t) and excludes (-T) files by them.
//
// As ripgrep: a type's globs match the base name; directories are never
// selected nor excluded; when both a -t and a -T type match a file, -T wins;
// with any -t, a file of no selected type is excluded. -g globs and ignore files
// come first (walk/README.md, "Which files").
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "walk/gitignore.hpp"
#include "walk/glob.hpp"

namespace stealscan {

struct FileType {
  std::string_view name;
  std::string_view globs;  // "*.c, *.h"
};

// Sorted by name.
std::span<const FileType> file_types();
// Null for an unknown name.
const FileType* find_file_type(std::string_view name);
// `name: glob, glob` lines, sorted, for --type-list.
std::string type_list();

class TypeFilter {
 public:
  TypeFilter() = default;
  // The names must be known (find_file_type); throws std::invalid_argument otherwise.
  TypeFilter(const std::vector<std::string>& selected, const std::vector<std::string>& excluded);

  [[nodiscard]] bool empty() const noexcept { return globs_.empty(); }
  // keep: of a selected type; ignore: of an excluded type, or of none while some
  // are selected; none: no say (a directory, or no -t and no excluded type).
  [[nodiscard]] IgnoreVerdict verdict(std::string_view name, bool is_dir) const;

 private:
  struct TypeGlob {
    Glob glob;
    bool excluded;
  };
  void add(std::string_view name, bool excluded);

  std::vector<TypeGlob> globs_;  // the selected types' first: a later match wins
  bool any_selected_ = false;
};

}  // namespace stealscan

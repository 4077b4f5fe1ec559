// walker.hpp: Walker, the discovery side of the scan: walks the paths given on
// the command line depth-first and reports every regular file to scan.
//
// Runs on one thread (the main thread, which also spawns the file tasks; seed
// 000's discovery loop). It is cheap per entry: the type comes from the directory
// listing (d_type), so only symbolic links, and file systems that do not fill
// d_type, cost a stat; paths are built by appending to the directory's path.
//
// Rules (walk/README.md):
// - Hidden entries (name starting with '.') are skipped unless `hidden`; a path
//   given on the command line is walked whatever its name, and is never ignored.
// - Symbolic links met in the walk are skipped unless `follow`; a link given on
//   the command line is followed. With `follow`, a link to a directory that is
//   its own ancestor is a loop: reported as a warning and counted, not entered;
//   a broken link is an error.
// - What to skip, in this order ("Which files" there): -g globs
//   (overrides.hpp) include or exclude outright; then, with `gitignore`, the
//   ignore files (.stealscanignore, .ignore, .gitignore on the way down and
//   above the operand, .git/info/exclude, the global excludes: gitignore.hpp,
//   outer_ignores.hpp); then -t/-T (file_types.hpp); last, hidden names, unless
//   one of the above explicitly included the entry (as ripgrep).
// - Directories that cannot be read are errors: reported, counted, skipped.
// - In a directory, only regular files are scanned; sockets, FIFOs and devices are
//   skipped. A path given on the command line is scanned whatever it is (a named
//   pipe, `<(cmd)`, /dev/stdin): the user asked for it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "output/diagnostics.hpp"
#include "walk/file_types.hpp"
#include "walk/gitignore.hpp"
#include "walk/outer_ignores.hpp"
#include "walk/overrides.hpp"
#include "scan/tally.hpp"

namespace stealscan {

struct WalkOptions {
  bool hidden = false;
  bool follow = false;
  bool gitignore = true;              // all ignore files (--no-ignore: none)
  std::vector<GlobOption> globs;       // -g / --iglob, in order
  std::vector<std::string> types;      // -t
  std::vector<std::string> types_not;  // -T
};

class WalkVisitor {
 public:
  // A regular file found in a directory walk.
  virtual void on_file(std::string_view path) = 0;
  // A command-line path that is not a directory: a regular file, or a FIFO,
  // device or socket the user named (read as a stream).
  virtual void on_operand(std::string_view path) = 0;
  // After each directory's entries: a point to hand over a partial batch.
  virtual void on_directory_done() {}

 protected:
  ~WalkVisitor() = default;
};

// Before a scan: every operand but "-" (standard input) must exist. Reports the
// first that does not on `diag` and returns false; else true, with whether one of
// them is a directory in *any_directory (when not null).
bool check_operands(const std::vector<std::string>& paths, Diagnostics& diag, bool* any_directory = nullptr);

class Walker {
 public:
  // Reads $HOME and $XDG_CONFIG_HOME for the global excludes file. Throws
  // GlobError or std::invalid_argument for a bad glob or type (the command
  // line's parser has checked them).
  Walker(WalkOptions options, Diagnostics& diag, Tally& tally);

  // Walks one command-line path (a file or a directory).
  void walk(const std::string& root, WalkVisitor& visitor);

 private:
  struct Ancestor;  // a directory on the way down, for loop detection (follow only)
  struct Pending {
    std::string path;
    std::shared_ptr<const IgnoreStack> ignore;
    std::shared_ptr<const Ancestor> up;
    bool operand = false;  // the walk's root: its repository is OuterIgnores' business
  };
  void walk_directory(Pending dir, std::vector<Pending>& stack, WalkVisitor& visitor);
  void error(std::string_view path, int err);
  [[nodiscard]] bool skip(std::string_view path, std::string_view name, bool is_dir, const IgnoreStack* ignore);

  WalkOptions options_;
  Overrides overrides_;
  TypeFilter types_;
  OuterIgnores outer_;
  std::size_t base_length_ = 0;  // of the operand being walked, with its '/'
  std::string scratch_;          // paths relative to ignore files above the operand
  Diagnostics& diag_;
  Tally& tally_;
};

}  // namespace stealscan

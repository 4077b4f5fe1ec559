// walker.hpp: the discovery side of the scan: which regular files below the
// paths given on the command line get scanned.
//
// The walk is split so that any number of threads can do it at once:
// - a `Directory` is one directory to read: its path, the ignore rules that
//   apply inside it (shared, immutable) and, with -L, its ancestors. Once read,
//   it holds the entries the rules keep, in listing order, and hands them out in
//   batches (`take`); a subdirectory entry becomes a new `Directory` (`child`).
//   One thread at a time owns a Directory: whoever holds its task.
// - `Walker` holds the rules (const once built) and reads a Directory (`read`),
//   from any thread, with that thread's `WalkScratch` and tally.
// The scan (scan/file_feed.hpp) runs each Directory as a task on the executor's
// workers, stealscan-mpi (mpi/dist_scan.cpp) on every rank's workers, rebuilding
// one that came from another process from its path (`rebuild`); `Walker::walk`
// is the same walk on the calling thread, for tests.
//
// It is cheap per entry: the type comes from the directory listing (d_type), so
// only symbolic links, and file systems that do not fill d_type, cost a stat;
// paths are built by appending to the directory's path.
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

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "output/diagnostics.hpp"
#include "walk/file_types.hpp"
#include "walk/gitignore.hpp"
#include "walk/outer_ignores.hpp"
#include "walk/overrides.hpp"
#include "walk/path_arena.hpp"
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

 protected:
  ~WalkVisitor() = default;
};

// Before a scan: every operand but "-" (standard input) must exist. Reports the
// first that does not on `diag` and returns false; else true, with whether one of
// them is a directory in *any_directory (when not null).
bool check_operands(const std::vector<std::string>& paths, Diagnostics& diag, bool* any_directory = nullptr);

// One directory of the walk. Before `Walker::read`: where to read and what
// applies there; after: the entries kept, handed out by `take`.
class Directory {
 public:
  struct Entry {
    std::size_t offset;   // of its name in the directory's name buffer
    std::uint32_t length;  // of its name
    bool is_dir;
  };

  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] bool is_read() const noexcept { return read_; }
  // Entries not yet taken.
  [[nodiscard]] std::size_t remaining() const noexcept { return entries_.size() - next_; }
  // The next `n` entries (fewer at the end), in listing order. Valid until the
  // Directory is destroyed.
  [[nodiscard]] std::span<const Entry> take(std::size_t n) noexcept;
  // An entry's path (the directory's path, '/', its name), built in `out`.
  std::string_view entry_path(const Entry& e, std::string& out) const;
  // A subdirectory entry as a Directory to read, under the rules that apply here.
  [[nodiscard]] std::unique_ptr<Directory> child(const Entry& e) const;
  // The subdirectory `name` (listed or not) as a Directory to read, under the
  // rules that apply here (Walker::rebuild names the ones on its way down).
  [[nodiscard]] std::unique_ptr<Directory> child(std::string_view name) const;

 private:
  friend class Walker;
  struct Ancestor {  // a directory on the way down, for loop detection (follow only)
    dev_t dev;
    ino_t ino;
    std::shared_ptr<const Ancestor> parent;
  };
  Directory(std::string path, std::shared_ptr<const IgnoreStack> ignore, std::shared_ptr<const Ancestor> up,
            std::size_t base_length, bool operand)
      : path_(std::move(path)), ignore_(std::move(ignore)), up_(std::move(up)), base_length_(base_length),
        operand_(operand) {}

  std::string path_;
  std::shared_ptr<const IgnoreStack> ignore_;  // before read: from above; after: with this directory's files
  std::shared_ptr<const Ancestor> up_;         // before read: the ancestors; after: with this directory
  std::size_t base_length_;                    // of the operand being walked, with its '/'
  bool operand_;                               // the walk's root: its repository is OuterIgnores' business
  bool read_ = false;
  std::string names_;  // the kept entries' names, back to back
  std::vector<Entry> entries_;
  std::size_t next_ = 0;
};

// A thread's reusable buffers for `Walker::read`, and where it keeps the paths
// of the file tasks it makes (the scan's; owner thread only).
struct WalkScratch {
  std::string relative;  // paths relative to ignore files above the operand
  std::string path;      // the entry being decided, or handed out
  PathArena paths;
};

class Walker {
 public:
  // Reads $HOME and $XDG_CONFIG_HOME, and the global excludes file they name.
  // Throws GlobError or std::invalid_argument for a bad glob or type (the
  // command line's parser has checked them).
  Walker(WalkOptions options, Diagnostics& diag);

  // One thread (the one that walks the command line). A command-line path: a
  // directory is returned, to read; anything else goes to `visitor.on_operand`
  // and null is returned; a path that cannot be stat'ed is reported, counted in
  // `tally`, and null is returned.
  [[nodiscard]] std::unique_ptr<Directory> operand(const std::string& root, WalkVisitor& visitor, Tally& tally);

  // Any thread, any number at once (each with its own scratch and tally):
  // reads `dir` (not yet read) and keeps the entries the rules keep. Returns
  // false, having reported and counted why, if it could not be read or is a
  // file system loop.
  [[nodiscard]] bool read(Directory& dir, WalkScratch& scratch, Tally& tally) const;

  // For stealscan-mpi, whose directory tasks travel between processes as paths.
  // directory_operand: what operand() returns for `root` when it is a
  // directory, else null, reporting nothing; the calling thread, before reads
  // begin, as operand(). rebuild: any thread: the Directory, not yet read, at
  // `path` below `top` (a directory_operand() result), as the walk that found
  // it made it: each directory from `top` down to the parent of `path` is
  // entered as read() enters one (its ignore files; with `follow`, its identity
  // for the loop check) but not listed. Null, having reported and counted why,
  // if one of them cannot be opened. Throws std::invalid_argument naming `path`
  // if it is not `top` or below it.
  [[nodiscard]] std::unique_ptr<Directory> directory_operand(const std::string& root);
  [[nodiscard]] std::unique_ptr<Directory> rebuild(const Directory& top, std::string_view path, Tally& tally) const;

  // The whole walk of one command-line path on the calling thread: files in a
  // directory's listing order, then its subdirectories, depth first.
  void walk(const std::string& root, WalkVisitor& visitor, Tally& tally);

 private:
  void error(std::string_view path, int err, Tally& tally) const;
  [[nodiscard]] std::unique_ptr<Directory> operand_directory(const std::string& root);
  // read()'s first step on the open `fd` of `dir`: the loop check (follow) and
  // the directory's own ignore files. False, reported and counted, on a loop.
  [[nodiscard]] bool enter(Directory& dir, int fd, Tally& tally) const;
  [[nodiscard]] bool skip(const Directory& dir, std::string_view path, std::string_view name, bool is_dir,
                          const IgnoreStack* ignore, std::string& relative) const;

  WalkOptions options_;
  Overrides overrides_;
  TypeFilter types_;
  OuterIgnores outer_;                        // operand() only
  std::vector<IgnoreRule> global_rules_;      // read once: nested repositories take them
  Diagnostics& diag_;
};

}  // namespace stealscan

// walker.cpp: Walker (walker.hpp).
#include "walk/walker.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "walk/git_config.hpp"
#include "walk/small_file.hpp"

namespace stealscan {

struct Walker::Ancestor {
  dev_t dev;
  ino_t ino;
  std::shared_ptr<const Ancestor> parent;
};

namespace {

// dir/name into `out`, reusing its capacity (no allocation per entry).
void join(std::string& out, const std::string& dir, const char* name) {
  out.assign(dir);
  if (out.empty() || out.back() != '/') out.push_back('/');
  out.append(name);
}

}  // namespace

Walker::Walker(WalkOptions options, Diagnostics& diag, Tally& tally)
    : options_(std::move(options)),
      overrides_(options_.globs),
      types_(options_.types, options_.types_not),
      outer_(options_.gitignore ? global_excludes_path(std::getenv("HOME"), std::getenv("XDG_CONFIG_HOME")) : ""),
      diag_(diag),
      tally_(tally) {}

// The order of walk/README.md's "Which files": overrides, ignore files, types, hidden.
bool Walker::skip(std::string_view path, std::string_view name, bool is_dir, const IgnoreStack* ignore) {
  const IgnoreVerdict by_glob = overrides_.verdict(path.substr(base_length_), is_dir);
  if (by_glob != IgnoreVerdict::none) return by_glob == IgnoreVerdict::ignore;
  bool included = false;  // explicitly, by a rule: then a hidden name is searched too
  if (ignore != nullptr) {
    const IgnoreVerdict v = ignore->verdict(path, is_dir, scratch_);
    if (v == IgnoreVerdict::ignore) return true;
    included = v == IgnoreVerdict::keep;
  }
  const IgnoreVerdict by_type = types_.verdict(name, is_dir);
  if (by_type == IgnoreVerdict::ignore) return true;
  included = included || by_type == IgnoreVerdict::keep;
  return name.front() == '.' && !options_.hidden && !included;
}

bool check_operands(const std::vector<std::string>& paths, Diagnostics& diag, bool* any_directory) {
  bool directory = false;
  for (const std::string& p : paths) {
    if (p == "-") continue;  // standard input
    struct stat st;
    if (::stat(p.c_str(), &st) != 0) {
      diag.error(p, std::strerror(errno));
      return false;
    }
    directory = directory || S_ISDIR(st.st_mode);
  }
  if (any_directory != nullptr) *any_directory = directory;
  return true;
}

void Walker::error(std::string_view path, int err) {
  diag_.error(path, std::strerror(err));
  Tally::add(tally_.errors, 1);
}

void Walker::walk(const std::string& root, WalkVisitor& visitor) {
  struct stat st;
  if (::stat(root.c_str(), &st) != 0) {  // follows a link given on the command line
    error(root, errno);
    return;
  }
  if (!S_ISDIR(st.st_mode)) {
    visitor.on_operand(root);
    return;
  }
  base_length_ = root.size() + (!root.empty() && root.back() == '/' ? 0 : 1);
  std::shared_ptr<const IgnoreStack> outer = options_.gitignore ? outer_.for_operand(root, base_length_) : nullptr;
  std::vector<Pending> stack;
  stack.push_back(Pending{root, std::move(outer), nullptr, true});
  while (!stack.empty()) {
    Pending dir = std::move(stack.back());
    stack.pop_back();
    walk_directory(std::move(dir), stack, visitor);
  }
}

void Walker::walk_directory(Pending dir, std::vector<Pending>& stack, WalkVisitor& visitor) {
  const int fd = ::open(dir.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    error(dir.path, errno);
    return;
  }
  std::shared_ptr<const Ancestor> here;
  if (options_.follow) {
    struct stat st;
    if (::fstat(fd, &st) == 0) {
      for (const Ancestor* a = dir.up.get(); a != nullptr; a = a->parent.get()) {
        if (a->dev == st.st_dev && a->ino == st.st_ino) {
          diag_.error(dir.path, "file system loop (a link to an ancestor directory): not followed");
          Tally::add(tally_.loops, 1);
          ::close(fd);
          return;
        }
      }
      here = std::make_shared<const Ancestor>(Ancestor{st.st_dev, st.st_ino, dir.up});
    }
  }
  std::shared_ptr<const IgnoreStack> ignore = dir.ignore;
  if (options_.gitignore) {
    // Each kind is its own layer; their order on the stack does not matter
    // (IgnoreStack::verdict ranks kinds), the depth within a kind does.
    const std::size_t base = dir.path.size() + (dir.path.back() == '/' ? 0 : 1);
    struct stat git;
    if (!dir.operand && ::fstatat(fd, ".git", &git, AT_SYMLINK_NOFOLLOW) == 0) {
      // A nested repository: the outer .gitignore and exclude files stop here.
      ignore = IgnoreStack::repository_boundary(std::move(ignore));
      for (auto [kind, rules] : {std::pair{IgnoreKind::global_excludes, outer_.global_rules()},
                                 std::pair{IgnoreKind::git_exclude, read_git_exclude(dir.path)}}) {
        if (!rules.empty()) ignore = std::make_shared<const IgnoreStack>(kind, std::move(rules), base, "", std::move(ignore));
      }
    }
    for (const auto& [kind, name] : {std::pair{IgnoreKind::gitignore, ".gitignore"}, std::pair{IgnoreKind::ignore, ".ignore"},
                                     std::pair{IgnoreKind::stealscanignore, ".stealscanignore"}}) {
      auto rules = parse_gitignore(read_small_file(fd, name));
      if (!rules.empty()) ignore = std::make_shared<const IgnoreStack>(kind, std::move(rules), base, "", std::move(ignore));
    }
  }
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    error(dir.path, errno);
    ::close(fd);
    return;
  }
  const std::size_t first_subdir = stack.size();
  std::string path;
  for (;;) {
    errno = 0;
    const dirent* e = ::readdir(d);
    if (e == nullptr) {
      if (errno != 0) error(dir.path, errno);
      break;
    }
    const char* name = e->d_name;
    if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN || (type == DT_LNK && options_.follow)) {
      struct stat st;
      const int flags = options_.follow ? 0 : AT_SYMLINK_NOFOLLOW;
      if (::fstatat(fd, name, &st, flags) != 0) {
        const int err = errno;
        if (name[0] == '.' && !options_.hidden) continue;  // would be skipped as hidden: no error
        join(path, dir.path, name);
        if (err == ENOENT && type == DT_LNK) {
          diag_.error(path, "broken symbolic link");
          Tally::add(tally_.errors, 1);
        } else {
          error(path, err);
        }
        continue;
      }
      type = S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
    }
    if (type != DT_REG && type != DT_DIR) continue;  // links (not followed), devices, FIFOs, sockets
    join(path, dir.path, name);
    if (skip(path, name, type == DT_DIR, ignore.get())) continue;
    if (type == DT_REG) {
      visitor.on_file(path);
    } else {
      stack.push_back(Pending{path, ignore, here});
    }
  }
  ::closedir(d);  // closes fd
  // Subdirectories in listing order: the stack pops the last pushed first.
  std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(first_subdir), stack.end());
  visitor.on_directory_done();
}

}  // namespace stealscan

// walker.cpp: Walker (walker.hpp).
#include "walk/walker.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "walk/git_config.hpp"
#include "walk/small_file.hpp"

namespace stealscan {

namespace {

// dir/name into `out`, reusing its capacity (no allocation per entry).
void join(std::string& out, const std::string& dir, std::string_view name) {
  out.assign(dir);
  if (out.empty() || out.back() != '/') out.push_back('/');
  out.append(name);
}

}  // namespace

std::span<const Directory::Entry> Directory::take(std::size_t n) noexcept {
  const std::size_t k = std::min(n, remaining());
  const std::span<const Entry> out(entries_.data() + next_, k);
  next_ += k;
  return out;
}

std::string_view Directory::entry_path(const Entry& e, std::string& out) const {
  join(out, path_, std::string_view(names_).substr(e.offset, e.length));
  return out;
}

std::unique_ptr<Directory> Directory::child(const Entry& e) const {
  return child(std::string_view(names_).substr(e.offset, e.length));
}

std::unique_ptr<Directory> Directory::child(std::string_view name) const {
  std::string path;
  join(path, path_, name);
  return std::unique_ptr<Directory>(new Directory(std::move(path), ignore_, up_, base_length_, /*operand=*/false));
}

Walker::Walker(WalkOptions options, Diagnostics& diag)
    : options_(std::move(options)),
      overrides_(options_.globs),
      types_(options_.types, options_.types_not),
      outer_(options_.gitignore ? global_excludes_path(std::getenv("HOME"), std::getenv("XDG_CONFIG_HOME")) : ""),
      global_rules_(outer_.global_rules()),
      diag_(diag) {}

// The order of walk/README.md's "Which files": overrides, ignore files, types, hidden.
bool Walker::skip(const Directory& dir, std::string_view path, std::string_view name, bool is_dir,
                  const IgnoreStack* ignore, std::string& relative) const {
  const IgnoreVerdict by_glob = overrides_.verdict(path.substr(dir.base_length_), is_dir);
  if (by_glob != IgnoreVerdict::none) return by_glob == IgnoreVerdict::ignore;
  bool included = false;  // explicitly, by a rule: then a hidden name is searched too
  if (ignore != nullptr) {
    const IgnoreVerdict v = ignore->verdict(path, is_dir, relative);
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

void Walker::error(std::string_view path, int err, Tally& tally) const {
  diag_.error(path, std::strerror(err));
  Tally::add(tally.errors, 1);
}

std::unique_ptr<Directory> Walker::operand(const std::string& root, WalkVisitor& visitor, Tally& tally) {
  struct stat st;
  if (::stat(root.c_str(), &st) != 0) {  // follows a link given on the command line
    error(root, errno, tally);
    return nullptr;
  }
  if (!S_ISDIR(st.st_mode)) {
    visitor.on_operand(root);
    return nullptr;
  }
  return operand_directory(root);
}

std::unique_ptr<Directory> Walker::operand_directory(const std::string& root) {
  const std::size_t base_length = root.size() + (!root.empty() && root.back() == '/' ? 0 : 1);
  std::shared_ptr<const IgnoreStack> outer = options_.gitignore ? outer_.for_operand(root, base_length) : nullptr;
  return std::unique_ptr<Directory>(new Directory(root, std::move(outer), nullptr, base_length, /*operand=*/true));
}

std::unique_ptr<Directory> Walker::directory_operand(const std::string& root) {
  struct stat st;
  if (::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return nullptr;
  return operand_directory(root);
}

std::unique_ptr<Directory> Walker::rebuild(const Directory& top, std::string_view path, Tally& tally) const {
  const std::string_view root = top.path_;
  const bool below = path.size() > top.base_length_ && path.substr(0, root.size()) == root &&
                     (root.back() == '/' || path[root.size()] == '/');
  if (path != root && !below)
    throw std::invalid_argument("a directory task for '" + std::string(path) + "', which is not below '" +
                                std::string(root) + "'");
  std::unique_ptr<Directory> dir(new Directory(top.path_, top.ignore_, top.up_, top.base_length_, /*operand=*/true));
  if (path == root) return dir;
  std::string_view rest = path.substr(top.base_length_);
  while (!rest.empty()) {
    const std::size_t slash = rest.find('/');
    const std::string_view name = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (name.empty() || name == "." || name == "..")
      throw std::invalid_argument("a directory task for '" + std::string(path) + "', which names '" +
                                  std::string(name) + "' on its way down");
    const int fd = ::open(dir->path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      error(dir->path_, errno, tally);
      return nullptr;
    }
    const bool entered = enter(*dir, fd, tally);
    ::close(fd);
    if (!entered) return nullptr;
    dir = dir->child(name);
  }
  return dir;
}

void Walker::walk(const std::string& root, WalkVisitor& visitor, Tally& tally) {
  std::vector<std::unique_ptr<Directory>> stack;
  if (auto top = operand(root, visitor, tally)) stack.push_back(std::move(top));
  WalkScratch scratch;
  while (!stack.empty()) {
    std::unique_ptr<Directory> dir = std::move(stack.back());
    stack.pop_back();
    if (!read(*dir, scratch, tally)) continue;
    const std::size_t first_subdir = stack.size();
    for (const Directory::Entry& e : dir->take(dir->remaining())) {
      if (e.is_dir) {
        stack.push_back(dir->child(e));
      } else {
        visitor.on_file(dir->entry_path(e, scratch.path));
      }
    }
    // Subdirectories in listing order: the stack pops the last pushed first.
    std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(first_subdir), stack.end());
  }
}

bool Walker::enter(Directory& dir, int fd, Tally& tally) const {
  if (options_.follow) {
    struct stat st;
    if (::fstat(fd, &st) == 0) {
      for (const Directory::Ancestor* a = dir.up_.get(); a != nullptr; a = a->parent.get()) {
        if (a->dev == st.st_dev && a->ino == st.st_ino) {
          diag_.error(dir.path_, "file system loop (a link to an ancestor directory): not followed");
          Tally::add(tally.loops, 1);
          return false;
        }
      }
      dir.up_ = std::make_shared<const Directory::Ancestor>(Directory::Ancestor{st.st_dev, st.st_ino, dir.up_});
    }
  }
  if (options_.gitignore) {
    // Each kind is its own layer; their order on the stack does not matter
    // (IgnoreStack::verdict ranks kinds), the depth within a kind does.
    std::shared_ptr<const IgnoreStack>& ignore = dir.ignore_;
    const std::size_t base = dir.path_.size() + (dir.path_.back() == '/' ? 0 : 1);
    struct stat git;
    if (!dir.operand_ && ::fstatat(fd, ".git", &git, AT_SYMLINK_NOFOLLOW) == 0) {
      // A nested repository: the outer .gitignore and exclude files stop here.
      ignore = IgnoreStack::repository_boundary(std::move(ignore));
      if (!global_rules_.empty())
        ignore = std::make_shared<const IgnoreStack>(IgnoreKind::global_excludes, global_rules_, base, "", std::move(ignore));
      if (auto rules = read_git_exclude(dir.path_); !rules.empty())
        ignore = std::make_shared<const IgnoreStack>(IgnoreKind::git_exclude, std::move(rules), base, "", std::move(ignore));
    }
    for (const auto& [kind, name] : {std::pair{IgnoreKind::gitignore, ".gitignore"}, std::pair{IgnoreKind::ignore, ".ignore"},
                                     std::pair{IgnoreKind::stealscanignore, ".stealscanignore"}}) {
      auto rules = parse_gitignore(read_small_file(fd, name));
      if (!rules.empty()) ignore = std::make_shared<const IgnoreStack>(kind, std::move(rules), base, "", std::move(ignore));
    }
  }
  return true;
}

bool Walker::read(Directory& dir, WalkScratch& scratch, Tally& tally) const {
  dir.read_ = true;
  const int fd = ::open(dir.path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    error(dir.path_, errno, tally);
    return false;
  }
  if (!enter(dir, fd, tally)) {
    ::close(fd);
    return false;
  }
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    error(dir.path_, errno, tally);
    ::close(fd);
    return false;
  }
  std::string& path = scratch.path;
  for (;;) {
    errno = 0;
    const dirent* e = ::readdir(d);
    if (e == nullptr) {
      if (errno != 0) error(dir.path_, errno, tally);
      break;
    }
    const char* name = e->d_name;
    if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
    unsigned char type = e->d_type;
    if (type == DT_UNKNOWN || (type == DT_LNK && options_.follow)) {
      struct stat st;
      const int flags = options_.follow ? 0 : AT_SYMLINK_NOFOLLOW;
      if (::fstatat(::dirfd(d), name, &st, flags) != 0) {
        const int err = errno;
        if (name[0] == '.' && !options_.hidden) continue;  // would be skipped as hidden: no error
        join(path, dir.path_, name);
        if (err == ENOENT && type == DT_LNK) {
          diag_.error(path, "broken symbolic link");
          Tally::add(tally.errors, 1);
        } else {
          error(path, err, tally);
        }
        continue;
      }
      type = S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
    }
    if (type != DT_REG && type != DT_DIR) continue;  // links (not followed), devices, FIFOs, sockets
    join(path, dir.path_, name);
    if (skip(dir, path, name, type == DT_DIR, dir.ignore_.get(), scratch.relative)) continue;
    const std::size_t name_length = std::strlen(name);
    dir.entries_.push_back(Directory::Entry{dir.names_.size(), static_cast<std::uint32_t>(name_length), type == DT_DIR});
    dir.names_.append(name, name_length);
  }
  ::closedir(d);  // closes fd
  return true;
}

}  // namespace stealscan

// outer_ignores.cpp: OuterIgnores (outer_ignores.hpp).
#include "walk/outer_ignores.hpp"

#include <algorithm>
#include <cstdlib>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "walk/small_file.hpp"

namespace stealscan {
namespace {

std::string parent_of(const std::string& dir) {
  const std::size_t slash = dir.rfind('/');
  return slash == 0 || slash == std::string::npos ? std::string("/") : dir.substr(0, slash);
}

// `absolute` relative to its ancestor `dir`, with a '/' ("" when they are equal).
std::string prefix_below(const std::string& absolute, const std::string& dir) {
  if (absolute.size() <= dir.size()) return {};
  return absolute.substr(dir == "/" ? 1 : dir.size() + 1) + "/";
}

std::string first_line(std::string text) {
  text.resize(std::min(text.find('\n'), text.size()));
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string resolve(const std::string& base, const std::string& path) {
  return !path.empty() && path.front() == '/' ? path : base + "/" + path;
}

// The repository's git directory for info/exclude: `.git` itself, or where a
// `.git` file ("gitdir: PATH") points, then that one's `commondir` if any.
std::string common_git_dir(const std::string& repo) {
  const std::string dot_git = repo + "/.git";
  struct stat st;
  if (::stat(dot_git.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) return dot_git;
  std::string line = first_line(read_small_file(AT_FDCWD, dot_git.c_str()));
  if (line.rfind("gitdir:", 0) != 0) return dot_git;
  line.erase(0, line.find_first_not_of(' ', 7));
  const std::string git_dir = resolve(repo, line);
  const std::string common = first_line(read_small_file(AT_FDCWD, (git_dir + "/commondir").c_str()));
  return common.empty() ? git_dir : resolve(git_dir, common);
}

void push(std::shared_ptr<const IgnoreStack>& stack, IgnoreKind kind, std::vector<IgnoreRule> rules,
          std::size_t base_length, const std::string& prefix) {
  if (rules.empty()) return;
  stack = std::make_shared<const IgnoreStack>(kind, std::move(rules), base_length, prefix, std::move(stack));
}

}  // namespace

std::vector<IgnoreRule> read_git_exclude(const std::string& repository_root) {
  return parse_gitignore(read_small_file(AT_FDCWD, (common_git_dir(repository_root) + "/info/exclude").c_str()));
}

std::optional<std::string> find_repository_root(const std::string& absolute) {
  for (std::string dir = absolute;; dir = parent_of(dir)) {
    struct stat st;
    if (::fstatat(AT_FDCWD, (dir == "/" ? std::string("/.git") : dir + "/.git").c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
      return dir;
    if (dir == "/") return std::nullopt;
  }
}

const std::vector<IgnoreRule>& OuterIgnores::global_rules() {
  if (!global_) {
    global_ = global_path_.empty() ? std::vector<IgnoreRule>{}
                                   : parse_gitignore(read_small_file(AT_FDCWD, global_path_.c_str()));
  }
  return *global_;
}

std::shared_ptr<const IgnoreStack> OuterIgnores::for_operand(const std::string& root, std::size_t base_length) {
  char* real = ::realpath(root.c_str(), nullptr);
  if (real == nullptr) return nullptr;  // the walk reports the operand's own errors
  const std::string absolute = real;
  std::free(real);
  const std::optional<std::string> repo = find_repository_root(absolute);

  std::shared_ptr<const IgnoreStack> stack;
  if (repo) {
    const std::string prefix = prefix_below(absolute, *repo);
    push(stack, IgnoreKind::global_excludes, global_rules(), base_length, prefix);
    push(stack, IgnoreKind::git_exclude, read_git_exclude(*repo), base_length, prefix);
  }
  if (absolute == "/") return stack;
  // The ancestors, shallowest first, so that the deepest ends nearest the top.
  std::vector<std::string> ancestors;
  for (std::string dir = parent_of(absolute);; dir = parent_of(dir)) {
    ancestors.push_back(dir);
    if (dir == "/") break;
  }
  for (auto it = ancestors.rbegin(); it != ancestors.rend(); ++it) {
    const int fd = ::open(it->c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) continue;
    const std::string prefix = prefix_below(absolute, *it);
    if (repo && it->size() >= repo->size())  // at or below the repository root
      push(stack, IgnoreKind::gitignore, parse_gitignore(read_small_file(fd, ".gitignore")), base_length, prefix);
    push(stack, IgnoreKind::ignore, parse_gitignore(read_small_file(fd, ".ignore")), base_length, prefix);
    push(stack, IgnoreKind::stealscanignore, parse_gitignore(read_small_file(fd, ".stealscanignore")), base_length,
         prefix);
    ::close(fd);
  }
  return stack;
}

}  // namespace stealscan

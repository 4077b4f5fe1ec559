// own_files.hpp: OwnFiles, the files whose findings a scan does not report:
// the rule file in use and the baselines, as gitleaks leaves out its config
// and baseline (a rule file is full of its own rules' examples, a baseline of
// the secrets it accepts).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace stealscan::secrets {

class OwnFiles {
 public:
  // A file on disk, as the user named it.
  void add(const std::string& path) {
    const std::filesystem::path p = normal(path);
    names_.insert(p.filename().string());
    paths_.insert(p.string());
  }

  // Whether a scanned file (its path as the walk shows it) is one of them:
  // compared by name first (no allocation for most files), then as absolute,
  // lexically normal paths.
  [[nodiscard]] bool holds(std::string_view path) const {
    const std::size_t slash = path.rfind('/');
    const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (names_.count(std::string(name)) == 0) return false;
    return paths_.count(normal(std::string(path)).string()) != 0;
  }

  // Their paths inside the work tree `workdir` (a repository's), relative to
  // it, as blob paths of its history; files outside it are left out.
  [[nodiscard]] std::vector<std::string> inside(const std::string& workdir) const {
    std::vector<std::string> out;
    const std::filesystem::path root = normal(workdir);
    for (const std::string& p : paths_) {
      const std::filesystem::path rel = std::filesystem::path(p).lexically_relative(root);
      if (!rel.empty() && *rel.begin() != "..") out.push_back(rel.generic_string());
    }
    return out;
  }

 private:
  static std::filesystem::path normal(const std::string& path) {
    std::error_code ec;
    std::filesystem::path p = std::filesystem::absolute(path, ec);
    if (ec) p = path;
    p = p.lexically_normal();
    if (!p.has_filename()) p = p.parent_path();  // "dir/" as "dir"
    return p;
  }

  std::unordered_set<std::string> names_;
  std::unordered_set<std::string> paths_;
};

}  // namespace stealscan::secrets

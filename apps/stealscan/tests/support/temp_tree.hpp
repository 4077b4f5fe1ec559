// temp_tree.hpp: TempTree, a directory under $TMPDIR (or /tmp) for a test's files,
// removed with everything in it at the end (also files made unreadable).
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace stealscan::test {

class TempTree {
 public:
  TempTree() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/stealscan-test.XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = templ;
    ::chmod(root_.c_str(), 0755);  // other users (the unreadable-file test's) may enter
  }
  ~TempTree() {
    std::error_code ec;
    // Make everything removable again first.
    for (auto it = std::filesystem::recursive_directory_iterator(
             root_, std::filesystem::directory_options::skip_permission_denied, ec);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_symlink(ec)) ::chmod(it->path().c_str(), it->is_directory(ec) ? 0755 : 0644);
    }
    ::chmod(root_.c_str(), 0755);
    std::filesystem::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  [[nodiscard]] const std::string& root() const noexcept { return root_; }
  [[nodiscard]] std::string path(const std::string& rel) const { return root_ + "/" + rel; }

  // Writes `rel` (creating its directories) with `contents`, world-readable.
  void write(const std::string& rel, const std::string& contents) const {
    const std::filesystem::path p = path(rel);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream f(p, std::ios::binary);
    f << contents;
    if (!f) throw std::runtime_error("cannot write " + p.string());
  }
  void mkdir(const std::string& rel) const { std::filesystem::create_directories(path(rel)); }
  void symlink(const std::string& target, const std::string& rel) const {
    std::filesystem::create_directories(std::filesystem::path(path(rel)).parent_path());
    if (::symlink(target.c_str(), path(rel).c_str()) != 0) throw std::runtime_error("symlink failed: " + rel);
  }

 private:
  std::string root_;
};

}  // namespace stealscan::test

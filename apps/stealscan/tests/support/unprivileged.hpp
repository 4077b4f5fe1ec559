// unprivileged.hpp: how an end-to-end test runs a scan that must not be able
// to read a chmod-000 file. Root reads every file, so as root (CI) the command
// runs as user 65534 through setpriv(1), from a copy of the binary that user
// may run; as any other user, as it is.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "temp_tree.hpp"

namespace stealscan::test {

class Unprivileged {
 public:
  // `bin`: the program to run; copied into a directory of this object's own.
  explicit Unprivileged(const std::string& bin) {
    if (::geteuid() != 0) {
      exe_ = bin;
      return;
    }
    if (::access("/usr/bin/setpriv", X_OK) != 0) return;  // no way: possible() is false
    prefix_ = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    exe_ = dir_.path(std::filesystem::path(bin).filename().string());
    std::filesystem::copy_file(bin, exe_);
    ::chmod(exe_.c_str(), 0755);
    // `stealscan secrets` runs the program beside it: copied too.
    const std::filesystem::path secrets = std::filesystem::path(bin).parent_path() / "stealscan-secrets";
    if (std::filesystem::exists(secrets)) {
      const std::string copy = dir_.path("stealscan-secrets");
      std::filesystem::copy_file(secrets, copy);
      ::chmod(copy.c_str(), 0755);
    }
  }
  // False as root without setpriv: the caller skips its test, saying so.
  [[nodiscard]] bool possible() const { return !exe_.empty(); }
  // `argv` (its first word the program, or another command such as grep)
  // with the prefix that drops root's rights; the program is the copy.
  [[nodiscard]] std::vector<std::string> argv(std::vector<std::string> args) const {
    std::vector<std::string> full = prefix_;
    full.insert(full.end(), args.begin(), args.end());
    return full;
  }
  [[nodiscard]] const std::string& exe() const { return exe_; }

 private:
  TempTree dir_;
  std::string exe_;
  std::vector<std::string> prefix_;
};

}  // namespace stealscan::test

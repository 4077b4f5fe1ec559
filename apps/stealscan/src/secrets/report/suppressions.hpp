// suppressions.hpp: the findings a user has already seen and accepted, so
// that a scan reports only new ones (../README.md, "Known findings"):
// - a baseline, a previous JSON report (ours or gitleaks'): a finding is known
//   when one of the baseline's has the same rule, file, commit, lines, columns
//   and secret (a redacted secret matches any);
// - fingerprint files, one fingerprint a line as the reports print them
//   (file:rule:line, commit:file:rule:line); '#' starts a comment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "secrets/report/finding.hpp"

namespace stealscan::secrets {

class Suppressions {
 public:
  // Reads a baseline report. Throws ConfigError naming the file and, for a
  // bad entry, its index and field.
  void add_baseline_file(const std::string& path);
  void add_baseline_text(std::string_view json, std::string_view name);

  // Reads a fingerprint file; every line that is not blank or a comment is a
  // fingerprint. Throws ConfigError when the file cannot be read.
  void add_fingerprint_file(const std::string& path);
  void add_fingerprint_text(std::string_view text);
  // Reads a .stealscanignore, which also holds the walker's path globs: only
  // its lines that end in ":RULE:LINE" with RULE one of `rule_ids` are
  // fingerprints. A missing file adds nothing.
  void add_shared_ignore_file(const std::string& path, const std::unordered_set<std::string>& rule_ids);

  [[nodiscard]] bool empty() const noexcept { return baseline_.empty() && fingerprints_.empty(); }
  [[nodiscard]] bool suppresses(const Finding& f) const;

  // Removes the suppressed findings; returns how many.
  std::size_t filter(std::vector<Finding>& findings) const;

 private:
  struct Known {
    std::string rule, file, commit, secret;
    std::uint64_t start_line, end_line, start_column, end_column;
  };
  static std::string key(std::string_view rule, std::string_view file, std::string_view commit,
                         std::uint64_t start_line);
  void add_fingerprint(std::string_view fp);

  // Baseline entries, by rule, file, commit and start line; compared in full
  // within the bucket.
  std::unordered_multimap<std::string, Known> baseline_;
  std::unordered_set<std::string> fingerprints_;  // normalized: no leading "./"
};

}  // namespace stealscan::secrets

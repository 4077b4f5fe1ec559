// finding.hpp: Finding, one secret found (../README.md, "Findings"), and the
// order reports list them in.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "secrets/rules/rule.hpp"

namespace stealscan::secrets {

// A composite rule's other part, found near its finding ([[rules.required]]).
struct RequiredPart {
  const Rule* rule = nullptr;
  std::uint64_t start_line = 0;
  std::uint64_t start_column = 0;
  std::string secret;
};

struct Finding {
  const Rule* rule = nullptr;  // owned by the Detector, which outlives the findings
  std::string file;
  // Lines and byte columns from 1; the end is the match's last byte. A path-only
  // rule's finding is the file: all four are 0.
  std::uint64_t start_line = 0;
  std::uint64_t start_column = 0;
  std::uint64_t end_line = 0;
  std::uint64_t end_column = 0;
  // With -L, a file reached through a symbolic link: `file` is the link's
  // target, `symlink_file` the link (gitleaks' File and SymlinkFile).
  std::string symlink_file;
  std::string match;
  std::string secret;
  double entropy = 0;
  // For a match found in decoded text, gitleaks' tags ("decoded:base64",
  // "decode-depth:1"): lines and columns are then those of the encoded text
  // in the file, match and secret decoded.
  std::vector<std::string> decode_tags;
  // Where the file came from in git history (--git); all empty for a file on disk.
  std::string commit;  // full hex id of the commit that introduced the blob
  std::string author;
  std::string email;
  std::string date;  // the commit's author date, ISO 8601 with offset
  std::string message;
  // For a composite rule: the required parts found near it (reported in an
  // extra field: gitleaks shows them only in its verbose text).
  std::vector<RequiredPart> required;

  // The rule's tags, then the decoding ones for a match in decoded text.
  [[nodiscard]] std::vector<std::string> tags() const {
    std::vector<std::string> t = rule->tags;
    t.insert(t.end(), decode_tags.begin(), decode_tags.end());
    return t;
  }

  // gitleaks' fingerprint: file:rule:line, and commit:file:rule:line for a
  // finding in git history (so gitleaks' ignore files and baselines read ours).
  [[nodiscard]] std::string fingerprint() const {
    std::string head = commit.empty() ? file : commit + ":" + file;
    return head + ":" + rule->id + ":" + std::to_string(start_line);
  }
};

// By file, commit, line, column, then rule id: a report in the same order
// whatever the threads did.
inline bool report_order(const Finding& a, const Finding& b) {
  return std::tie(a.file, a.commit, a.start_line, a.start_column, a.rule->id) <
         std::tie(b.file, b.commit, b.start_line, b.start_column, b.rule->id);
}

}  // namespace stealscan::secrets

// allowlist_check.hpp: AllowlistCheck, an Allowlist compiled: decides whether a
// candidate finding is allowed (dropped). ../README.md, "Allowlists", gives the
// semantics: each configured check (regexes on the regexTarget, paths,
// stopwords, and commits for a finding in git history) either hits or not; OR
// allows when any hits, AND when all do. Outside git history (no commit) the
// commits check is not configured: it neither allows nor blocks.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include <re2/re2.h>

#include "secrets/rules/rule.hpp"

namespace stealscan::secrets {

// What an allowlist looks at.
struct Candidate {
  std::string_view path;
  std::string_view match;
  std::string_view secret;
  std::string_view line;  // the whole line(s) holding the match
  std::string_view commit = {};  // full hex id, for a blob of git history (--git); else empty
};

// RE2 options for every rule and allowlist regex: bytes (Latin-1), so that any
// file can be matched; messages are ours.
RE2::Options secret_regex_options();

// Compiles `pattern`; ConfigError "<where>: '<field>' is not a valid regular
// expression: <pattern>: <reason>" if it is not.
std::unique_ptr<RE2> compile_config_regex(const std::string& pattern, const std::string& where,
                                          std::string_view field);

class AllowlistCheck {
 public:
  explicit AllowlistCheck(const Allowlist& a);  // throws ConfigError for a bad regex
  [[nodiscard]] bool allows(const Candidate& c) const;
  // Whether the allowlist could allow something outside git (not commits alone).
  [[nodiscard]] bool active() const noexcept { return !regexes_.empty() || !paths_.empty() || !stopwords_.empty(); }

 private:
  std::vector<std::unique_ptr<RE2>> regexes_;
  RegexTarget target_;
  std::vector<std::unique_ptr<RE2>> paths_;
  std::vector<std::string> stopwords_;  // lower case
  std::vector<std::string> commits_;    // lower case, as given (full ids)
  Condition condition_;
};

}  // namespace stealscan::secrets

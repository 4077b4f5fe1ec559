// allowlist_check.hpp: AllowlistCheck, an Allowlist compiled: decides whether a
// candidate finding is allowed (dropped). ../README.md, "Allowlists", gives the
// semantics: each configured check (regexes on the regexTarget, paths,
// stopwords, and commits for a finding in git history) either hits or not; OR
// allows when any hits, AND when all do. Outside git history (no commit) the
// commits check is not configured: it neither allows nor blocks.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <re2/re2.h>

#include "secrets/rules/rule.hpp"

namespace stealscan::secrets {

// The verdicts of line-target regexes (regexTarget = "line") already searched
// on a text's lines, per allowlist: a long line holding many candidates is
// searched once per allowlist, not once per candidate, so the work stays
// linear in the line. One worker's, for one text at a time (keyed by where a
// line lies in it: clear() before the next text).
class LineVerdicts {
 public:
  template <class Search>
  bool get(const void* check, std::string_view line, const Search& search) {
    const Key k{check, line.data(), line.size()};
    const auto it = map_.find(k);
    if (it != map_.end()) return it->second;
    const bool v = search();
    map_.emplace(k, v);
    return v;
  }
  void clear() noexcept { map_.clear(); }

 private:
  struct Key {
    const void* check;
    const char* data;
    std::size_t size;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept {
      return std::hash<const void*>()(k.check) ^ (std::hash<const void*>()(k.data) * 31) ^ (k.size * 1099511628211ULL);
    }
  };
  std::unordered_map<Key, bool, KeyHash> map_;
};

// What an allowlist looks at.
struct Candidate {
  std::string_view path;
  std::string_view match;
  std::string_view secret;
  std::string_view line;  // the whole line(s) holding the match
  std::string_view commit = {};  // full hex id, for a blob of git history (--git); else empty
  LineVerdicts* verdicts = nullptr;  // the worker's, if it keeps them
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

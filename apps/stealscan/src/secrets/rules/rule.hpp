// rule.hpp: the rule model of `stealscan secrets`, as gitleaks' TOML config
// describes it (../README.md, "Rules"): Rule, Allowlist, RuleSet, and ConfigError,
// the one error a config can raise. Plain values: config_loader builds them,
// detector compiles them.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace stealscan::secrets {

// A config that cannot be used: names the file, the rule (id or index), the
// field and the bad value. stealscan exits with status 2 on it.
struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What an allowlist's regexes are matched against.
enum class RegexTarget { secret, match, line };

// How an allowlist's checks combine: OR (any configured check), AND (all).
enum class Condition { any, all };

struct Allowlist {
  std::string where;  // "FILE: rules[2] 'id': allowlists[0]", for messages
  std::string description;
  std::vector<std::string> regexes;
  RegexTarget target = RegexTarget::secret;
  std::vector<std::string> paths;      // regexes on the file path
  std::vector<std::string> stopwords;  // substrings of the secret, either case
  std::vector<std::string> commits;    // full commit ids; checked for findings in git history (--git)
  Condition condition = Condition::any;
  std::vector<std::string> target_rules;  // global allowlists only; empty: every rule
};

// A composite rule's other part ([[rules.required]]): a finding of rule `id`
// in the same text, within so many lines and columns of the primary
// finding's start (unset: anywhere in the text).
struct Required {
  std::string id;
  std::optional<int> within_lines;
  std::optional<int> within_columns;
};

// How sure a rule's finding is to be a secret (Kingfisher's levels): high, a
// prefix or checksum only that provider uses; medium, a provider's name
// beside a value; low, a kind that is often something else. A scan reports
// the rules at --min-confidence or above (default medium).
enum class Confidence : std::uint8_t { low, medium, high };
inline std::optional<Confidence> confidence_named(std::string_view name) {
  if (name == "low") return Confidence::low;
  if (name == "medium") return Confidence::medium;
  if (name == "high") return Confidence::high;
  return std::nullopt;
}
inline std::string_view confidence_name(Confidence c) {
  return c == Confidence::low ? "low" : c == Confidence::medium ? "medium" : "high";
}

// A rule's family: the name of the file it comes from, without its folder
// and extension ("github" for builtin/github.toml, "aws" for aws.yml).
inline std::string rule_family(std::string_view file) {
  const std::size_t slash = file.find_last_of('/');
  if (slash != std::string_view::npos) file.remove_prefix(slash + 1);
  const std::size_t dot = file.find('.');
  return std::string(file.substr(0, dot));
}

struct Rule {
  std::string where;  // "FILE: rules[3] 'aws-key'", for messages
  std::string id;
  std::string family;  // the rule file's name without its extension ("github" for builtin/github.toml)
  std::string description;
  std::optional<Confidence> confidence;  // unset: medium
  [[nodiscard]] Confidence level() const { return confidence.value_or(Confidence::medium); }
  std::string regex;            // empty: a path-only rule
  std::optional<int> secret_group;  // unset: the first group if any, else the match
  std::optional<double> entropy;    // minimum Shannon entropy of the secret, bits per byte
  // stealscan's: the minimum when the secret is 32 hex digits or more and
  // nothing else (`entropyHex`):
  // 16 symbols give less entropy at the same randomness (a random 32-digit
  // value has 3.6 bits a byte, median).
  std::optional<double> entropy_hex;
  std::vector<std::string> keywords;  // lower case; empty: the rule always runs
  std::string path;             // regex on the file path; empty: any file
  std::vector<std::string> tags;
  std::vector<Allowlist> allowlists;
  // Composite: a finding is reported only with a finding of each of these
  // nearby (gitleaks' multi-part rules).
  std::vector<Required> required;
  bool skip_report = false;  // found only as another rule's required part
  // Texts the rule must find, and must not (Nosey Parker's and Kingfisher's
  // `examples` and `negative_examples`): what --check-rules tries.
  std::vector<std::string> examples;
  std::vector<std::string> negative_examples;
};

struct RuleSet {
  std::vector<Rule> rules;
  std::vector<Allowlist> allowlists;  // global
};

}  // namespace stealscan::secrets

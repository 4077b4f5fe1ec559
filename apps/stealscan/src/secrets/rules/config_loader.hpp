// config_loader.hpp: gitleaks' TOML rule format -> RuleSet (../README.md, "Rules").
// The one unit that includes toml++. Every error is a ConfigError naming the
// file, the rule or allowlist, the field and the bad value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "secrets/rules/rule.hpp"

namespace stealscan::secrets {

// One config file as written: its own rules and allowlists, and its [extend].
struct ParsedConfig {
  std::string name;  // the file, for messages
  RuleSet own;
  bool use_default = false;                 // [extend] useDefault = true
  std::string extend_path;                  // [extend] path: another config file
  std::vector<std::string> disabled_rules;  // [extend] disabledRules
};

// Parses `text`; `name` is the file name shown in messages.
ParsedConfig parse_config(std::string_view text, const std::string& name);

// The rule set a config stands for: its own rules, after the rules it extends
// (`base`: the defaults for useDefault, the resolved file for path, nothing
// otherwise) less disabledRules; an own rule with a base rule's id replaces it,
// and the base's global allowlists come first. Throws ConfigError for a
// disabledRules id that is not a base rule, or disabledRules without a base.
RuleSet resolve_config(ParsedConfig config, const RuleSet& base);

// Reads and resolves a config file, following [extend] path (relative to the
// extending file's directory; at most kMaxExtendDepth files deep, no cycles).
// ConfigError if any file cannot be read or is bad.
RuleSet load_config_file(const std::string& path, const RuleSet& defaults);
inline constexpr int kMaxExtendDepth = 8;

// The built-in rules (default_rules.toml, embedded at build time).
const RuleSet& default_rule_set();

}  // namespace stealscan::secrets

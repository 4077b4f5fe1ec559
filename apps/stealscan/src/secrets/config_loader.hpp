// config_loader.hpp: gitleaks' TOML rule format -> RuleSet (README.md, "Rules").
// The one unit that includes toml++. Every error is a ConfigError naming the
// file, the rule or allowlist, the field and the bad value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "secrets/rule.hpp"

namespace stealscan::secrets {

// One config file as written: its own rules and allowlists, and its [extend].
struct ParsedConfig {
  std::string name;  // the file, for messages
  RuleSet own;
  bool use_default = false;                 // [extend] useDefault = true
  std::vector<std::string> disabled_rules;  // [extend] disabledRules
};

// Parses `text`; `name` is the file name shown in messages.
ParsedConfig parse_config(std::string_view text, const std::string& name);

// The rule set a config stands for: its own rules, after the default rules
// (less disabledRules) when it extends them; an own rule with a default rule's
// id replaces it. Throws ConfigError for a disabledRules id that is not a
// default rule.
RuleSet resolve_config(ParsedConfig config, const RuleSet& defaults);

// Reads and resolves a config file (ConfigError if it cannot be read).
RuleSet load_config_file(const std::string& path, const RuleSet& defaults);

// The built-in rules (default_rules.toml, embedded at build time).
const RuleSet& default_rule_set();

}  // namespace stealscan::secrets

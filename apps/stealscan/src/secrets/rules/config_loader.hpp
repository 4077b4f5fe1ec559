// config_loader.hpp: gitleaks' TOML rule format -> RuleSet (../README.md, "Rules").
// The one unit that includes toml++. Every error is a ConfigError naming the
// file, the rule or allowlist, the field and the bad value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "secrets/rules/rule.hpp"

namespace stealscan::secrets {

// What loading a config says without refusing it: what gitleaks accepts but
// is likely a mistake (a duplicate id, a disabled rule that is not there, an
// [extend] past gitleaks' depth). The CLI prints each on stderr.
using ConfigWarnings = std::vector<std::string>;

// One config file as written: its own rules and allowlists, and its [extend].
// An own rule may lack a regex and a path if it extends a base rule of its id.
struct ParsedConfig {
  std::string name;  // the file, for messages
  RuleSet own;
  ConfigWarnings warnings;
  bool use_default = false;                 // [extend] useDefault = true
  std::string extend_path;                  // [extend] path: another config file
  std::vector<std::string> disabled_rules;  // [extend] disabledRules
};

// Parses `text`; `name` is the file name shown in messages.
ParsedConfig parse_config(std::string_view text, const std::string& name);

// The rule set a config stands for (gitleaks v8's semantics): its own rules
// merged into the rules it extends (`base`: the defaults for useDefault, the
// resolved file for path; `extends` false: nothing, as past gitleaks' depth),
// less disabledRules. An own rule with a base rule's id merges into it:
// description, entropy, secretGroup, regex and path replace the base's when
// set; keywords, tags, allowlists and required parts are appended;
// skipReport is set if either sets it. Then every rule must have a regex or
// a path, and every required part must name a rule. Global allowlists: the
// base's, then the config's. Warnings go to `warnings`, if given.
RuleSet resolve_config(ParsedConfig config, const RuleSet& base, ConfigWarnings* warnings = nullptr,
                       bool extends = true);

// Reads and resolves a config file (gitleaks' TOML; or, for a name ending in
// .yml or .yaml, Nosey Parker's and Kingfisher's YAML: yaml_rules.hpp; or a
// directory: every .yml and .yaml file under it, in name order), following
// [extend] as gitleaks does: two
// levels below the file at most (a deeper [extend] is a warning, not
// followed). A relative path is read from the extending file's directory,
// else, if it is not there, from the working directory (gitleaks' reading).
// ConfigError if any file cannot be read or is bad.
RuleSet load_config_file(const std::string& path, const RuleSet& defaults, ConfigWarnings* warnings = nullptr);
inline constexpr int kMaxExtendDepth = 2;

// The built-in rules (rules/builtin/*.toml, embedded at build time), in file
// name order; each rule's family is its file's name.
const RuleSet& default_rule_set();

}  // namespace stealscan::secrets

// yaml_rules.hpp: Nosey Parker's and Kingfisher's YAML rule files -> rules
// (../README.md, "Rules"), on yaml-cpp.
//
// A file holds `rules:`, a list of rules with `id`, `name`, `pattern` and,
// all optional, `min_entropy` (Kingfisher), `categories`, `examples`,
// `negative_examples`, `visible: false` (Kingfisher: a rule only others
// use). Each becomes a Rule without keywords (the regex prefilter selects its
// lines), its pattern rewritten for RE2 (regex_rewrite.hpp), the secret its
// first capture group, `name` its description, `categories` its tags, a rule
// that is not visible reported only as a part of others (skipReport). Other
// keys (references, validation, confidence, depends_on_rule) are ignored. A
// rule whose pattern RE2 still refuses is left out with a warning naming it
// and why; the others load. A file that is not such YAML is a ConfigError.
#pragma once

#include <string>
#include <string_view>

#include "secrets/rules/config_loader.hpp"

namespace stealscan::secrets {

// The rules of one YAML file; `name` is the file, for messages.
RuleSet parse_yaml_rules(std::string_view text, const std::string& name, ConfigWarnings& warnings);

// Whether a rule file is YAML (by its name: .yml or .yaml).
bool is_yaml_rule_file(std::string_view path);

}  // namespace stealscan::secrets

// yaml_rules.cpp: parse_yaml_rules() (yaml_rules.hpp).
#include "secrets/rules/yaml_rules.hpp"

#include <yaml-cpp/yaml.h>

#include <re2/re2.h>

#include "secrets/rules/allowlist_check.hpp"
#include "secrets/rules/regex_rewrite.hpp"

namespace stealscan::secrets {
namespace {

std::string scalar(const YAML::Node& rule, const char* key, const std::string& where) {
  const YAML::Node n = rule[key];
  if (!n) return {};
  if (!n.IsScalar()) throw ConfigError(where + ": '" + key + "' must be a string");
  return n.as<std::string>();
}

std::vector<std::string> strings(const YAML::Node& rule, const char* key, const std::string& where) {
  std::vector<std::string> out;
  const YAML::Node n = rule[key];
  if (!n || n.IsNull()) return out;  // absent, or the key with nothing after it
  if (!n.IsSequence()) throw ConfigError(where + ": '" + key + "' must be a list of strings");
  for (const YAML::Node& e : n) {
    if (!e.IsScalar()) throw ConfigError(where + ": '" + key + "' must be a list of strings");
    out.push_back(e.as<std::string>());
  }
  return out;
}

}  // namespace

bool is_yaml_rule_file(std::string_view path) {
  const auto ends = [&](std::string_view s) { return path.size() >= s.size() && path.substr(path.size() - s.size()) == s; };
  return ends(".yml") || ends(".yaml");
}

RuleSet parse_yaml_rules(std::string_view text, const std::string& name, ConfigWarnings& warnings) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw ConfigError(name + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                      ": not valid YAML: " + e.msg);
  }
  RuleSet out;
  if (!root.IsMap() || !root["rules"]) {
    if (root.IsMap() && root["rulesets"]) return out;  // Nosey Parker's ruleset files name rules, hold none
    throw ConfigError(name + ": not a rule file: no 'rules' list at the top");
  }
  const YAML::Node rules = root["rules"];
  if (!rules.IsSequence()) throw ConfigError(name + ": 'rules' must be a list");
  std::size_t index = 0;
  for (const YAML::Node& n : rules) {
    const std::string at = name + ": rules[" + std::to_string(index++) + "]";
    if (!n.IsMap()) throw ConfigError(at + ": must be a mapping");
    Rule r;
    r.id = scalar(n, "id", at);
    if (r.id.empty()) throw ConfigError(at + ": 'id' is missing or empty");
    r.where = at + " '" + r.id + "'";
    r.family = rule_family(name);
    r.description = scalar(n, "name", r.where);
    if (const std::string level = scalar(n, "confidence", r.where); !level.empty()) {
      r.confidence = confidence_named(level);
      if (!r.confidence) throw ConfigError(r.where + ": 'confidence' must be low, medium or high, got \"" + level + "\"");
    }
    const std::string pattern = scalar(n, "pattern", r.where);
    if (pattern.empty()) throw ConfigError(r.where + ": 'pattern' is missing or empty");
    r.regex = rewrite_for_re2(pattern);
    const RE2 check(r.regex, secret_regex_options());
    if (!check.ok()) {
      warnings.push_back(r.where + ": left out: its pattern cannot be used: " + check.error());
      continue;
    }
    if (const YAML::Node e = n["min_entropy"]) {
      try {
        r.entropy = e.as<double>();
      } catch (const YAML::Exception&) {
        throw ConfigError(r.where + ": 'min_entropy' must be a number");
      }
      if (*r.entropy < 0 || *r.entropy > 8)
        throw ConfigError(r.where + ": 'min_entropy' must be between 0 and 8 bits per byte");
    }
    r.tags = strings(n, "categories", r.where);
    r.examples = strings(n, "examples", r.where);
    r.negative_examples = strings(n, "negative_examples", r.where);
    if (const YAML::Node v = n["visible"]; v && v.IsScalar() && v.as<std::string>() == "false") r.skip_report = true;
    out.rules.push_back(std::move(r));
  }
  return out;
}

}  // namespace stealscan::secrets

// config_loader.cpp: parse_config() and friends (config_loader.hpp), on toml++.
// Unknown keys are ignored, as gitleaks ignores them; known keys of the wrong
// type are errors.
#include "secrets/rules/config_loader.hpp"

#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <toml++/toml.h>

#include <filesystem>

#include "secrets/detect/ascii.hpp"
#include "secrets/rules/default_rules.hpp"
#include "secrets/rules/yaml_rules.hpp"
#include "sources/read_all.hpp"

namespace stealscan::secrets {
namespace {

constexpr std::uint64_t kConfigLimit = std::uint64_t{64} << 20;  // a rule file larger than this is refused

// A value as a message shows it: strings quoted, tables and arrays by kind.
std::string describe(const toml::node& n) {
  if (const auto* s = n.as_string()) return "\"" + s->get() + "\"";
  if (const auto* i = n.as_integer()) return std::to_string(i->get());
  if (const auto* f = n.as_floating_point()) {
    std::ostringstream o;
    o << f->get();
    return o.str();
  }
  if (const auto* b = n.as_boolean()) return b->get() ? "true" : "false";
  if (n.is_array()) return "an array";
  if (n.is_table()) return "a table";
  return "a date or time";
}

// Reads the fields of one table; `where_` prefixes every message.
class Fields {
 public:
  Fields(const toml::table& t, std::string where) : t_(t), where_(std::move(where)) {}

  [[nodiscard]] const std::string& where() const noexcept { return where_; }
  [[noreturn]] void fail(std::string_view key, std::string_view what) const {
    throw ConfigError(where_ + ": '" + std::string(key) + "' " + std::string(what));
  }
  [[noreturn]] void wrong_type(std::string_view key, std::string_view expected, const toml::node& got) const {
    fail(key, "must be " + std::string(expected) + ", got " + describe(got));
  }

  [[nodiscard]] std::string string(std::string_view key) const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return {};
    if (!n->is_string()) wrong_type(key, "a string", *n);
    return n->as_string()->get();
  }
  [[nodiscard]] std::vector<std::string> strings(std::string_view key) const {
    std::vector<std::string> out;
    const toml::node* n = t_.get(key);
    if (n == nullptr) return out;
    if (!n->is_array()) wrong_type(key, "an array of strings", *n);
    for (const toml::node& e : *n->as_array()) {
      if (!e.is_string()) wrong_type(key, "an array of strings", e);
      out.push_back(e.as_string()->get());
    }
    return out;
  }
  [[nodiscard]] std::optional<double> number(std::string_view key) const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return std::nullopt;
    if (const auto* f = n->as_floating_point()) return f->get();
    if (const auto* i = n->as_integer()) return static_cast<double>(i->get());
    wrong_type(key, "a number", *n);
  }
  [[nodiscard]] std::optional<std::int64_t> integer(std::string_view key) const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return std::nullopt;
    if (!n->is_integer()) wrong_type(key, "a whole number", *n);
    return n->as_integer()->get();
  }
  [[nodiscard]] bool boolean(std::string_view key) const {
    const toml::node* n = t_.get(key);
    if (n == nullptr) return false;
    if (!n->is_boolean()) wrong_type(key, "true or false", *n);
    return n->as_boolean()->get();
  }
  // The tables under `key`: an array of tables ([[x]]) or one table ([x]).
  [[nodiscard]] std::vector<const toml::table*> tables(std::string_view key, bool single) const {
    std::vector<const toml::table*> out;
    const toml::node* n = t_.get(key);
    if (n == nullptr) return out;
    if (single) {
      if (!n->is_table()) wrong_type(key, "a table", *n);
      out.push_back(n->as_table());
      return out;
    }
    if (!n->is_array()) wrong_type(key, "an array of tables", *n);
    for (const toml::node& e : *n->as_array()) {
      if (!e.is_table()) wrong_type(key, "an array of tables", e);
      out.push_back(e.as_table());
    }
    return out;
  }

 private:
  const toml::table& t_;
  std::string where_;
};

Allowlist read_allowlist(const toml::table& t, std::string where, bool global) {
  const Fields f(t, std::move(where));
  Allowlist a;
  a.where = f.where();
  a.description = f.string("description");
  a.regexes = f.strings("regexes");
  a.paths = f.strings("paths");
  a.stopwords = f.strings("stopwords");
  for (std::string& w : a.stopwords) w = ascii_lower(std::move(w));
  a.commits = f.strings("commits");
  const std::string target = f.string("regexTarget");
  if (target == "match") {
    a.target = RegexTarget::match;
  } else if (target == "line") {
    a.target = RegexTarget::line;
  } else if (!target.empty() && target != "secret") {
    f.fail("regexTarget", "must be \"secret\", \"match\" or \"line\", got \"" + target + "\"");
  }
  const std::string condition = ascii_lower(f.string("condition"));
  if (condition == "and") {
    a.condition = Condition::all;
  } else if (!condition.empty() && condition != "or") {
    f.fail("condition", "must be \"OR\" or \"AND\", got \"" + f.string("condition") + "\"");
  }
  if (global) {
    a.target_rules = f.strings("targetRules");
  } else if (t.contains("targetRules")) {
    f.fail("targetRules", "belongs in a global [[allowlists]], not in a rule's");
  }
  if (a.regexes.empty() && a.paths.empty() && a.stopwords.empty() && a.commits.empty())
    throw ConfigError(a.where + ": has none of 'regexes', 'paths', 'stopwords', 'commits'");
  return a;
}

// A table's allowlists in either spelling: [[…allowlists]] or the older
// […allowlist], not both (gitleaks refuses that too).
void read_allowlists(const Fields& f, bool global, std::vector<Allowlist>& out, const toml::table& t) {
  if (t.contains("allowlists") && t.contains("allowlist"))
    throw ConfigError(f.where() + ": has both [" + std::string(global ? "" : "rules.") + "allowlist] and [[" +
                      (global ? "" : "rules.") + "allowlists]]: the older [" + (global ? "" : "rules.") +
                      "allowlist] cannot be used beside the newer spelling; move it into [[" +
                      (global ? "" : "rules.") + "allowlists]]");
  std::size_t i = 0;
  for (const toml::table* a : f.tables("allowlists", false))
    out.push_back(read_allowlist(*a, f.where() + ": allowlists[" + std::to_string(i++) + "]", global));
  for (const toml::table* a : f.tables("allowlist", true))
    out.push_back(read_allowlist(*a, f.where() + ": allowlist", global));
}

Rule read_rule(const toml::table& t, const std::string& name, std::size_t index, ConfigWarnings& warnings) {
  const std::string at = name + ": rules[" + std::to_string(index) + "]";
  Rule r;
  r.id = Fields(t, at).string("id");
  if (r.id.empty()) throw ConfigError(at + ": 'id' is missing or empty");
  const Fields f(t, at + " '" + r.id + "'");
  r.where = f.where();
  r.family = rule_family(name);
  r.description = f.string("description");
  if (const std::string level = f.string("confidence"); !level.empty()) {
    r.confidence = confidence_named(level);
    if (!r.confidence) f.fail("confidence", "must be low, medium or high, got \"" + level + "\"");
  }
  r.regex = f.string("regex");
  r.path = f.string("path");  // neither: checked once [extend] is resolved (it may extend a base rule)
  if (const auto g = f.integer("secretGroup")) {
    if (*g < 0 || *g > 1000) f.fail("secretGroup", "must be between 0 and 1000, got " + std::to_string(*g));
    if (*g > 0) r.secret_group = static_cast<int>(*g);
  }
  r.entropy = f.number("entropy");
  if (r.entropy && *r.entropy < 0) f.fail("entropy", "must be 0 or more bits per byte, got " + describe(*t.get("entropy")));
  if (r.entropy && *r.entropy > 8)  // gitleaks takes it (a rule to disable one?)
    warnings.push_back(r.where + ": 'entropy' is " + describe(*t.get("entropy")) +
                       ", above the 8 bits a byte can hold: the rule reports nothing");
  r.entropy_hex = f.number("entropyHex");
  if (r.entropy_hex && (*r.entropy_hex < 0 || *r.entropy_hex > 4))
    f.fail("entropyHex", "must be between 0 and 4 bits per byte (16 symbols), got " + describe(*t.get("entropyHex")));
  for (std::string& k : f.strings("keywords")) {
    if (k.empty()) f.fail("keywords", "holds an empty string");
    r.keywords.push_back(ascii_lower(std::move(k)));
  }
  r.tags = f.strings("tags");
  read_allowlists(f, false, r.allowlists, t);
  std::size_t k = 0;
  for (const toml::table* q : f.tables("required", false)) {
    const Fields rf(*q, r.where + ": required[" + std::to_string(k++) + "]");
    Required req;
    req.id = rf.string("id");
    if (req.id.empty()) throw ConfigError(rf.where() + ": 'id' is missing or empty");
    const auto within = [&rf](std::string_view key) -> std::optional<int> {
      const auto v = rf.integer(key);
      if (v && (*v < 0 || *v > 1'000'000))
        rf.fail(key, "must be between 0 and 1000000, got " + std::to_string(*v));
      return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
    };
    req.within_lines = within("withinLines");
    req.within_columns = within("withinColumns");
    r.required.push_back(std::move(req));
  }
  r.skip_report = f.boolean("skipReport");
  return r;
}

// `own`, a rule of the extending config, merged into `base`, the extended
// rule of its id (gitleaks' Config.extend): set fields replace, lists append.
Rule merge_rule(Rule base, Rule own) {
  base.where = own.where + " (extending " + base.where + ")";
  if (!own.description.empty()) base.description = std::move(own.description);
  if (own.confidence) base.confidence = own.confidence;
  if (own.entropy && *own.entropy != 0) base.entropy = own.entropy;  // gitleaks: 0 is "not set"
  if (own.entropy_hex) base.entropy_hex = own.entropy_hex;
  if (own.secret_group) base.secret_group = own.secret_group;
  if (!own.regex.empty()) base.regex = std::move(own.regex);
  if (!own.path.empty()) base.path = std::move(own.path);
  const auto append = [](auto& to, auto& from) { std::move(from.begin(), from.end(), std::back_inserter(to)); };
  append(base.keywords, own.keywords);
  append(base.tags, own.tags);
  append(base.allowlists, own.allowlists);
  append(base.required, own.required);
  base.skip_report = base.skip_report || own.skip_report;
  return base;
}

}  // namespace

ParsedConfig parse_config(std::string_view text, const std::string& name) {
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    throw ConfigError(name + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) +
                      ": not valid TOML: " + std::string(e.description()));
  }
  const Fields top(root, name);
  ParsedConfig c;
  c.name = name;
  std::unordered_map<std::string, std::size_t> seen;  // id -> its place in c.own.rules
  std::size_t i = 0;
  for (const toml::table* t : top.tables("rules", false)) {
    Rule r = read_rule(*t, name, i++, c.warnings);
    const auto [it, fresh] = seen.emplace(r.id, c.own.rules.size());
    if (fresh) {
      c.own.rules.push_back(std::move(r));
      continue;
    }
    // gitleaks keeps the later one.
    Rule& earlier = c.own.rules[it->second];
    c.warnings.push_back(r.where + ": the id is used again: this rule replaces " + earlier.where);
    earlier = std::move(r);
  }
  read_allowlists(top, true, c.own.allowlists, root);
  for (const toml::table* e : top.tables("extend", true)) {
    const Fields f(*e, name + ": [extend]");
    c.use_default = f.boolean("useDefault");
    c.disabled_rules = f.strings("disabledRules");
    c.extend_path = f.string("path");
    if (c.use_default && !c.extend_path.empty())
      f.fail("path", "cannot be given with useDefault = true (got \"" + c.extend_path + "\"): extend one or the other");
  }
  return c;
}

namespace {

// Every rule has a regex or a path, and every required part names a rule.
void check_resolved(const RuleSet& s) {
  std::unordered_set<std::string> ids;
  for (const Rule& r : s.rules) ids.insert(r.id);
  for (const Rule& r : s.rules) {
    if (r.regex.empty() && r.path.empty())
      throw ConfigError(r.where + ": has neither 'regex' nor 'path' (nor extends a rule of that id)");
    for (std::size_t k = 0; k < r.required.size(); ++k)
      if (ids.count(r.required[k].id) == 0)
        throw ConfigError(r.where + ": required[" + std::to_string(k) + "]: 'id' names no rule: \"" +
                          r.required[k].id + "\"");
  }
}

}  // namespace

RuleSet resolve_config(ParsedConfig config, const RuleSet& base, ConfigWarnings* warnings, bool extends) {
  ConfigWarnings ignored;
  ConfigWarnings& warn = warnings != nullptr ? *warnings : ignored;
  std::move(config.warnings.begin(), config.warnings.end(), std::back_inserter(warn));
  extends = extends && (config.use_default || !config.extend_path.empty());
  if (!extends) {
    if (!config.disabled_rules.empty() && !config.use_default && config.extend_path.empty())
      warn.push_back(config.name + ": [extend]: 'disabledRules' has no effect without useDefault = true or a path");
    check_resolved(config.own);
    return std::move(config.own);
  }
  const char* base_name = config.use_default ? "default rule" : "rule of the extended config";
  std::unordered_set<std::string> disabled(config.disabled_rules.begin(), config.disabled_rules.end());
  std::unordered_map<std::string, std::size_t> own_ids;
  for (std::size_t i = 0; i < config.own.rules.size(); ++i) own_ids.emplace(config.own.rules[i].id, i);
  std::vector<bool> merged(config.own.rules.size(), false);
  RuleSet out;
  std::unordered_set<std::string> base_ids;
  for (const Rule& r : base.rules) {
    base_ids.insert(r.id);
    if (disabled.count(r.id) != 0) continue;
    const auto own = own_ids.find(r.id);
    if (own == own_ids.end()) {
      out.rules.push_back(r);
      continue;
    }
    out.rules.push_back(merge_rule(r, std::move(config.own.rules[own->second])));
    merged[own->second] = true;
  }
  for (const std::string& id : config.disabled_rules)
    if (base_ids.count(id) == 0)
      warn.push_back(config.name + ": [extend]: 'disabledRules' names no " + base_name + ": \"" + id + "\"");
  for (std::size_t i = 0; i < config.own.rules.size(); ++i)
    if (!merged[i]) out.rules.push_back(std::move(config.own.rules[i]));
  out.allowlists = base.allowlists;
  for (Allowlist& a : config.own.allowlists) out.allowlists.push_back(std::move(a));
  check_resolved(out);
  return out;
}

namespace {

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

// load_config_file() at `depth` (0: the file asked for), with the chain of
// files that led here.
RuleSet load_chain(const std::string& path, const RuleSet& defaults, std::vector<std::string>& chain,
                   ConfigWarnings& warnings) {
  std::string text;
  try {
    text = read_named_file(path, "config file", kConfigLimit);
  } catch (const std::runtime_error& e) {
    throw ConfigError(e.what());
  }
  ParsedConfig config = parse_config(text, path);
  const int depth = static_cast<int>(chain.size());
  if (config.use_default || !config.extend_path.empty()) {
    if (depth >= kMaxExtendDepth) {
      warnings.push_back(path + ": [extend] is not followed: gitleaks extends at most " +
                         std::to_string(kMaxExtendDepth) + " levels below the config in use");
      return resolve_config(std::move(config), RuleSet{}, &warnings, false);
    }
  }
  if (config.extend_path.empty()) return resolve_config(std::move(config), defaults, &warnings);
  // Relative to the extending file, else to the working directory (gitleaks').
  std::string next = config.extend_path;
  if (next.front() != '/') {
    const std::size_t slash = path.rfind('/');
    const std::string beside = slash == std::string::npos ? next : path.substr(0, slash + 1) + next;
    if (exists(beside) || !exists(next)) next = beside;
  }
  if (std::find(chain.begin(), chain.end(), next) != chain.end() || next == path) {
    std::string c;
    for (const std::string& p : chain) c.append(p).append(" -> ");
    warnings.push_back(path + ": [extend]: 'path' makes a cycle (" + c + path + " -> " + next + "): not followed");
    return resolve_config(std::move(config), RuleSet{}, &warnings, false);
  }
  chain.push_back(path);
  const RuleSet base = load_chain(next, defaults, chain, warnings);
  chain.pop_back();
  return resolve_config(std::move(config), base, &warnings);
}

// A YAML rule file, or every one under a directory, in name order.
RuleSet load_yaml(const std::string& path, ConfigWarnings& warnings) {
  std::vector<std::string> files;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    for (std::filesystem::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
      if (it->is_regular_file(ec) && is_yaml_rule_file(it->path().string())) files.push_back(it->path().string());
    if (ec) throw ConfigError(path + ": cannot read the rule directory: " + ec.message());
    std::sort(files.begin(), files.end());
    if (files.empty()) throw ConfigError(path + ": a directory without .yml or .yaml rule files");
  } else {
    files.push_back(path);
  }
  ParsedConfig all;
  all.name = path;
  std::unordered_map<std::string, std::string> seen;  // id -> where
  for (const std::string& f : files) {
    std::string text;
    try {
      text = read_named_file(f, "rule file", kConfigLimit);
    } catch (const std::runtime_error& e) {
      throw ConfigError(e.what());
    }
    for (Rule& r : parse_yaml_rules(text, f, warnings).rules) {
      const auto [it, fresh] = seen.emplace(r.id, r.where);
      if (!fresh) {
        warnings.push_back(r.where + ": the id is used again: " + it->second + " is kept");
        continue;
      }
      all.own.rules.push_back(std::move(r));
    }
  }
  return resolve_config(std::move(all), RuleSet{}, &warnings);
}

}  // namespace

RuleSet load_config_file(const std::string& path, const RuleSet& defaults, ConfigWarnings* warnings) {
  ConfigWarnings ignored;
  ConfigWarnings& w = warnings != nullptr ? *warnings : ignored;
  std::error_code ec;
  if (is_yaml_rule_file(path) || std::filesystem::is_directory(path, ec)) return load_yaml(path, w);
  std::vector<std::string> chain;
  return load_chain(path, defaults, chain, w);
}

const RuleSet& default_rule_set() {
  static const RuleSet rules = [] {
    RuleSet all;
    std::unordered_map<std::string, std::string> seen;  // id -> where
    for (const BuiltinRuleFile& f : kBuiltinRuleFiles) {
      ParsedConfig c = parse_config(f.toml, "<built-in rules>/" + std::string(f.family) + ".toml");
      for (Rule& r : c.own.rules) {
        // Two files defining one id is a mistake in the build (the rules test fails on it).
        if (const auto [it, fresh] = seen.emplace(r.id, r.where); !fresh)
          throw ConfigError(r.where + ": the id is already used at " + it->second);
        all.rules.push_back(std::move(r));
      }
      std::move(c.own.allowlists.begin(), c.own.allowlists.end(), std::back_inserter(all.allowlists));
    }
    return all;
  }();
  return rules;
}

}  // namespace stealscan::secrets

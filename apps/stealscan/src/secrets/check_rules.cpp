// check_rules.cpp: check_rules_main() (check_rules.hpp).
#include "secrets/check_rules.hpp"

#include <algorithm>
#include <cstdio>

#include <re2/re2.h>

#include "secrets/detect/detector.hpp"
#include "secrets/detect/entropy.hpp"
#include "secrets/rules/allowlist_check.hpp"
#include "secrets/rules/config_loader.hpp"

namespace stealscan::secrets {
namespace {

// An example as a failure line shows it: one line, at most 100 bytes.
std::string shown(const std::string& text) {
  std::string s;
  for (const char c : text.substr(0, 100)) s.push_back(c == '\n' ? ' ' : c);
  if (text.size() > 100) s += "...";
  return s;
}

// Why a rule finds nothing in an example: its pattern does not match it, or
// the first match's secret is below the rule's entropy floor, or something
// else dropped it (keywords, an allowlist).
std::string why_missed(const Rule& r, const std::string& example) {
  const RE2 re(r.regex, secret_regex_options());
  const int groups = re.NumberOfCapturingGroups();
  std::vector<re2::StringPiece> g(static_cast<std::size_t>(groups) + 1);
  if (!re.ok() || !re.Match(example, 0, example.size(), RE2::UNANCHORED, g.data(), groups + 1))
    return "its pattern does not match it";
  const int want = r.secret_group.value_or(groups >= 1 ? 1 : 0);
  const re2::StringPiece secret = want <= groups && g[static_cast<std::size_t>(want)].data() != nullptr
                                      ? g[static_cast<std::size_t>(want)]
                                      : g[0];
  const double e = shannon_entropy(std::string_view(secret.data(), secret.size()));
  if (r.entropy && e < *r.entropy) {
    char buf[120];
    std::snprintf(buf, sizeof buf, "matched, but its secret's entropy %.2f is under the rule's %.2f", e, *r.entropy);
    return buf;
  }
  return "matched, but left out by its keywords or an allowlist";
}

}  // namespace

int check_rules_main(const std::string& path, std::ostream& out, Diagnostics& diag) {
  RuleSet rules;
  try {
    ConfigWarnings warnings;
    rules = load_config_file(path, default_rule_set(), &warnings);
    for (const std::string& w : warnings) diag.message("warning: " + w);
  } catch (const ConfigError& e) {
    diag.message(e.what());
    return 2;
  }
  // A rule reported only as another's part is checked on its own examples too.
  for (Rule& r : rules.rules) r.skip_report = false;
  std::unique_ptr<Detector> detector;
  try {
    // The examples test the rules themselves: no decoding (a negative example
    // with a percent escape would otherwise be a finding of the decoded text).
    DetectorOptions options;
    options.decode_depth = 0;
    detector = std::make_unique<Detector>(std::move(rules), std::move(options));
  } catch (const ConfigError& e) {
    diag.message(e.what());
    return 2;
  }
  Detector::Scratch scratch(*detector);
  std::vector<Finding> found;
  const auto finds = [&](const Rule& r, const std::string& text) {
    found.clear();
    detector->scan("example", text, scratch, found);
    return std::any_of(found.begin(), found.end(), [&](const Finding& f) { return f.rule->id == r.id; });
  };
  std::size_t checked = 0, examples = 0, missed = 0, negatives = 0, wrongly = 0, failing = 0;
  for (const Rule& r : detector->rules().rules) {
    if (r.examples.empty() && r.negative_examples.empty()) continue;
    ++checked;
    bool failed = false;
    for (std::size_t i = 0; i < r.examples.size(); ++i) {
      ++examples;
      if (finds(r, r.examples[i])) continue;
      ++missed;
      failed = true;
      out << r.id << ": example " << i + 1 << " is not found (" << why_missed(r, r.examples[i])
          << "): " << shown(r.examples[i]) << "\n";
    }
    for (std::size_t i = 0; i < r.negative_examples.size(); ++i) {
      ++negatives;
      if (!finds(r, r.negative_examples[i])) continue;
      ++wrongly;
      failed = true;
      out << r.id << ": negative example " << i + 1 << " is found: " << shown(r.negative_examples[i]) << "\n";
    }
    if (failed) ++failing;
  }
  diag.message(std::to_string(detector->rules().rules.size()) + " rules, " + std::to_string(checked) +
               " with examples: " + std::to_string(examples - missed) + " of " + std::to_string(examples) +
               " examples found, " + std::to_string(negatives - wrongly) + " of " + std::to_string(negatives) +
               " negative examples not found; " + std::to_string(failing) + " rule" + (failing == 1 ? "" : "s") +
               " failing");
  return failing > 0 ? 1 : 0;
}

}  // namespace stealscan::secrets

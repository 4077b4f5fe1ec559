// report_sarif.cpp: the SARIF 2.1.0 report (report.hpp): one run whose
// tool.driver lists every rule of the scan, and a result per finding with its
// location. What code-scanning dashboards read; the fields are those the
// schema requires plus the ones they display (../README.md, "Findings").
#include <string>

#include "output/output.hpp"
#include "secrets/report/report.hpp"

namespace stealscan::secrets::report_detail {
namespace {

// A JSON string for SARIF: strings there are text, so bytes that are not
// UTF-8 become U+FFFD (the JSON report keeps them exactly).
void text(std::string& b, std::string_view s) { append_json_string(b, utf8_lossy(s)); }

// The path as a URI reference relative to the scan (SARIF artifactLocation.uri):
// "./" dropped, and every byte that may not stand in a URI path percent-encoded
// ('!' of archive members and '/' stay: both are allowed there).
std::string path_uri(std::string_view path) {
  while (path.substr(0, 2) == "./") path.remove_prefix(2);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri;
  uri.reserve(path.size());
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       std::string_view("-._~/!$&'()*+,;=:@").find(ch) != std::string_view::npos;
    if (plain) {
      uri.push_back(ch);
    } else {
      uri.push_back('%');
      uri.push_back(kHex[c >> 4]);
      uri.push_back(kHex[c & 15]);
    }
  }
  return uri;
}

std::size_t rule_index(const RuleSet& rules, const Rule* rule) {
  for (std::size_t i = 0; i < rules.rules.size(); ++i)
    if (&rules.rules[i] == rule || rules.rules[i].id == rule->id) return i;
  return 0;  // not reached: every finding's rule is one of the scan's
}

void rule_entry(std::string& b, const Rule& r) {
  b.append("          {\"id\": ");
  text(b, r.id);
  b.append(", \"name\": ");
  text(b, r.id);
  b.append(", \"shortDescription\": {\"text\": ");
  text(b, r.description.empty() ? r.id : r.description);
  b.append("}}");
}

void result_entry(std::string& b, const Finding& f, const RuleSet& rules) {
  b.append("        {\n          \"ruleId\": ");
  text(b, f.rule->id);
  b.append(",\n          \"ruleIndex\": ").append(std::to_string(rule_index(rules, f.rule)));
  b.append(",\n          \"level\": \"error\"");
  b.append(",\n          \"message\": {\"text\": ");
  // gitleaks' words.
  std::string message = f.rule->id;
  message.append(" has detected secret for file ").append(f.file);
  if (!f.commit.empty()) message.append(" at commit ").append(f.commit);
  message.push_back('.');
  text(b, message);
  b.append("},\n          \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": ");
  text(b, path_uri(f.symlink_file.empty() ? f.file : f.symlink_file));  // gitleaks names the link
  b.append("}");
  // A path-only rule's finding is the whole file: no region. SARIF's endColumn
  // is the column after the region; ours is the region's last byte.
  if (f.start_line > 0) {
    b.append(", \"region\": {\"startLine\": ").append(std::to_string(f.start_line));
    b.append(", \"startColumn\": ").append(std::to_string(f.start_column));
    b.append(", \"endLine\": ").append(std::to_string(f.end_line));
    b.append(", \"endColumn\": ").append(std::to_string(f.end_column + 1));
    b.append(", \"snippet\": {\"text\": ");
    text(b, f.secret);
    b.append("}}");
  }
  b.append("}}]");
  // gitleaks' five keys, empty outside git, then ours.
  b.append(",\n          \"partialFingerprints\": {\"commitSha\": ");
  text(b, f.commit);
  b.append(", \"email\": ");
  text(b, f.email);
  b.append(", \"author\": ");
  text(b, f.author);
  b.append(", \"date\": ");
  text(b, f.date);
  b.append(", \"commitMessage\": ");
  text(b, f.message);
  b.append(", \"stealscan/v1\": ");
  text(b, f.fingerprint());
  b.append("},\n          \"properties\": {\"tags\": [");
  const std::vector<std::string> tags = f.tags();
  for (std::size_t i = 0; i < tags.size(); ++i) {
    if (i > 0) b.append(", ");
    text(b, tags[i]);
  }
  b.append("], \"entropy\": ").append(entropy_text(f.entropy));
  b.append("}\n        }");
}

}  // namespace

std::string sarif_report(const std::vector<Finding>& findings, const RuleSet& rules) {
  std::string b;
  b.append("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n");
  b.append("  \"runs\": [\n    {\n      \"tool\": {\"driver\": {\n");
  b.append("        \"name\": \"stealscan\",\n        \"version\": \"" STEALSCAN_VERSION "\",\n");
  b.append("        \"semanticVersion\": \"" STEALSCAN_VERSION "\",\n        \"rules\": [");
  for (std::size_t i = 0; i < rules.rules.size(); ++i) {
    b.append(i > 0 ? ",\n" : "\n");
    rule_entry(b, rules.rules[i]);
  }
  b.append(rules.rules.empty() ? "]\n" : "\n        ]\n");
  b.append("      }},\n      \"results\": [");
  for (std::size_t i = 0; i < findings.size(); ++i) {
    b.append(i > 0 ? ",\n" : "\n");
    result_entry(b, findings[i], rules);
  }
  b.append(findings.empty() ? "]\n" : "\n      ]\n");
  b.append("    }\n  ]\n}\n");
  return b;
}

}  // namespace stealscan::secrets::report_detail

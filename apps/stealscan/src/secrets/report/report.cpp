// report.cpp: redact() and format_report() (report.hpp).
#include "secrets/report/report.hpp"

#include <charconv>

#include "output/output.hpp"

namespace stealscan::secrets {

// Shortest text that reads back as the same float (gitleaks' entropy is a float32).
std::string report_detail::entropy_text(double e) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(e));
  return std::string(buf, r.ptr);
}

std::string report_detail::joined_tags(const std::vector<std::string>& tags) {
  std::string t;
  for (std::size_t i = 0; i < tags.size(); ++i) {
    if (i > 0) t.push_back(' ');
    t.append(tags[i]);
  }
  return t;
}

namespace {

using report_detail::entropy_text;

constexpr std::string_view kRedacted = "REDACTED";

std::string tags_text(const std::vector<std::string>& tags) {
  std::string s(1, '[');  // not "[" + string: g++ 12 -O3 -Wrestrict false positive
  s.append(report_detail::joined_tags(tags)).push_back(']');
  return s;
}

void text_finding(std::string& b, const Finding& f) {
  const auto field = [&](std::string_view name, std::string_view value) {
    b.append(name).append(":");
    b.append(13 - name.size(), ' ');
    b.append(value).push_back('\n');
  };
  field("Finding", f.match);
  field("Secret", f.secret);
  field("RuleID", f.rule->id);
  field("Description", f.rule->description);
  field("Entropy", entropy_text(f.entropy));
  if (const std::vector<std::string> tags = f.tags(); !tags.empty()) field("Tags", tags_text(tags));
  field("File", f.file);
  if (!f.symlink_file.empty()) field("SymlinkFile", f.symlink_file);
  if (!f.commit.empty()) {
    field("Commit", f.commit);
    field("Author", f.author);
    field("Email", f.email);
    field("Date", f.date);
  }
  field("Line", std::to_string(f.start_line));
  field("Column", std::to_string(f.start_column));
  field("Fingerprint", f.fingerprint());
  for (const RequiredPart& p : f.required) {
    std::string part = p.rule->id;
    part.append(" at ").append(std::to_string(p.start_line)).append(":").append(std::to_string(p.start_column));
    part.append(": ").append(p.secret);
    field("Required", part);
  }
  b.push_back('\n');
}

void json_finding(std::string& b, const Finding& f) {
  const auto key = [&](std::string_view name) { b.append("  \"").append(name).append("\": "); };
  const auto str = [&](std::string_view name, std::string_view value) {
    key(name);
    append_json_bytes(b, value);
    b.append(",\n");
  };
  const auto num = [&](std::string_view name, std::string_view value) {
    key(name);
    b.append(value).append(",\n");
  };
  b.append(" {\n");
  report_detail::finding_fields(f, str, num);
  key("Tags");
  b.push_back('[');
  const std::vector<std::string> tags = f.tags();
  for (std::size_t i = 0; i < tags.size(); ++i) {
    if (i > 0) b.append(", ");
    append_json_bytes(b, tags[i]);
  }
  b.append("],\n");
  key("Fingerprint");
  append_json_bytes(b, f.fingerprint());
  if (!f.required.empty()) {  // ours: a composite rule's parts (gitleaks' JSON has no field for them)
    b.append(",\n");
    key("Required");
    b.push_back('[');
    for (std::size_t i = 0; i < f.required.size(); ++i) {
      const RequiredPart& p = f.required[i];
      b.append(i > 0 ? ", {" : "{").append("\"RuleID\": ");
      append_json_bytes(b, p.rule->id);
      b.append(", \"StartLine\": ").append(std::to_string(p.start_line));
      b.append(", \"StartColumn\": ").append(std::to_string(p.start_column)).append(", \"Secret\": ");
      append_json_bytes(b, p.secret);
      b.push_back('}');
    }
    b.push_back(']');
  }
  b.append("\n }");
}

}  // namespace

void redact(Finding& f) {
  if (f.secret.empty()) return;
  for (std::size_t at = f.match.find(f.secret); at != std::string::npos;
       at = f.match.find(f.secret, at + kRedacted.size()))
    f.match.replace(at, f.secret.size(), kRedacted);
  f.secret = kRedacted;
  for (RequiredPart& p : f.required) p.secret = kRedacted;
}

std::optional<ReportFormat> report_format_named(std::string_view name) {
  if (name == "text") return ReportFormat::text;
  if (name == "json") return ReportFormat::json;
  if (name == "sarif") return ReportFormat::sarif;
  if (name == "csv") return ReportFormat::csv;
  if (name == "junit") return ReportFormat::junit;
  return std::nullopt;
}

std::string format_report(const std::vector<Finding>& findings, ReportFormat format, const RuleSet& rules) {
  switch (format) {
    case ReportFormat::sarif: return report_detail::sarif_report(findings, rules);
    case ReportFormat::csv: return report_detail::csv_report(findings);
    case ReportFormat::junit: return report_detail::junit_report(findings);
    case ReportFormat::text:
    case ReportFormat::json: break;
  }
  std::string b;
  if (format == ReportFormat::text) {
    for (const Finding& f : findings) text_finding(b, f);
    return b;
  }
  if (findings.empty()) return "[]\n";
  b.append("[\n");
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (i > 0) b.append(",\n");
    json_finding(b, findings[i]);
  }
  b.append("\n]\n");
  return b;
}

}  // namespace stealscan::secrets

// report.hpp: the findings as the user reads them (../README.md, "Findings"):
// redaction, and the reports. text is for people; json is an array of objects
// with gitleaks' field names, so tools that read gitleaks' reports read ours;
// sarif is SARIF 2.1.0 for code-scanning dashboards; csv and junit have
// gitleaks' columns and layout for spreadsheets and CI test reports.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "secrets/report/finding.hpp"

namespace stealscan::secrets {

enum class ReportFormat { text, json, sarif, csv, junit };

// "json" -> ReportFormat::json, ...; nullopt for a name that is none of them.
std::optional<ReportFormat> report_format_named(std::string_view name);

// --redact: the secret becomes REDACTED, in the secret and in the match.
void redact(Finding& f);

// The whole report of `findings` (already in report order). `rules` are the
// rules the scan ran: SARIF lists every one of them, found or not.
std::string format_report(const std::vector<Finding>& findings, ReportFormat format, const RuleSet& rules);

// The parts of the reports the formats' own files write (report_*.cpp).
namespace report_detail {
std::string entropy_text(double e);
// gitleaks' Finding fields in its order, RuleID to Message: str(name, value)
// for a string, num(name, text) for a number. Tags and Fingerprint, which
// end it, each writer writes itself.
template <class Str, class Num>
void finding_fields(const Finding& f, Str&& str, Num&& num) {
  str("RuleID", f.rule->id);
  str("Description", f.rule->description);
  num("StartLine", std::to_string(f.start_line));
  num("EndLine", std::to_string(f.end_line));
  num("StartColumn", std::to_string(f.start_column));
  num("EndColumn", std::to_string(f.end_column));
  str("Match", f.match);
  str("Secret", f.secret);
  str("File", f.file);
  str("SymlinkFile", f.symlink_file);
  str("Commit", f.commit);
  num("Entropy", entropy_text(f.entropy));
  str("Author", f.author);
  str("Email", f.email);
  str("Date", f.date);
  str("Message", f.message);
}
std::string joined_tags(const std::vector<std::string>& tags);  // "a b c"
std::string sarif_report(const std::vector<Finding>& findings, const RuleSet& rules);
std::string csv_report(const std::vector<Finding>& findings);
std::string junit_report(const std::vector<Finding>& findings);
}  // namespace report_detail

}  // namespace stealscan::secrets

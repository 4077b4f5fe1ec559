// report.hpp: the findings as the user reads them (README.md, "Findings"):
// redaction, and the text and JSON reports. The JSON report is an array of
// objects with gitleaks' field names, so tools that read gitleaks' reports
// read ours.
#pragma once

#include <string>
#include <vector>

#include "secrets/finding.hpp"

namespace stealscan::secrets {

enum class ReportFormat { text, json };

// --redact: the secret becomes REDACTED, in the secret and in the match.
void redact(Finding& f);

// The whole report of `findings` (already in report order).
std::string format_report(const std::vector<Finding>& findings, ReportFormat format);

}  // namespace stealscan::secrets

// report_sink.cpp: write_findings() (report_sink.hpp).
#include "secrets/report/report_sink.hpp"

#include <algorithm>
#include <iostream>

#include "secrets/report/report.hpp"

namespace stealscan::secrets {

bool write_findings(std::vector<Finding>& findings, const Suppressions& suppressions, const SecretsCommand& cmd,
                    const RuleSet& rules, std::ofstream& file, Diagnostics& diag, std::size_t& known) {
  known = suppressions.filter(findings);
  std::sort(findings.begin(), findings.end(), report_order);
  const std::string report = format_report(findings, cmd.format, rules);
  if (!file.is_open()) {
    std::cout << report << std::flush;
    return true;
  }
  file << report;
  file.close();
  if (!file) {
    diag.error(cmd.output, "cannot write the report");
    return false;
  }
  return true;
}

}  // namespace stealscan::secrets

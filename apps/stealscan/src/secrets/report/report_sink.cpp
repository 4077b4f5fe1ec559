// report_sink.cpp: write_findings() (report_sink.hpp).
#include "secrets/report/report_sink.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "secrets/report/report.hpp"
#include "sources/read_all.hpp"

namespace stealscan::secrets {

bool write_findings(std::vector<Finding>& findings, const Suppressions& suppressions, const SecretsCommand& cmd,
                    const RuleSet& rules, std::ofstream& file, Diagnostics& diag, std::size_t& known) {
  known = suppressions.filter(findings);
  std::sort(findings.begin(), findings.end(), report_order);
  const std::string report = format_report(findings, cmd.format, rules);
  if (!file.is_open()) {
    // Written whole and checked, as the search writes its output: a full disk
    // or a closed pipe is an error (exit 2), not a report that silently stops.
    if (write_all(STDOUT_FILENO, report)) return true;
    diag.message(std::string("writing the report: ") + std::strerror(errno));
    return false;
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

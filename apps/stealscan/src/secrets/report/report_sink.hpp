// report_sink.hpp: write_findings(), the end both scans share (files, and git
// history): the known findings removed, the rest put in report order and
// written, in the chosen format, to --output or to stdout.
#pragma once

#include <cstddef>
#include <fstream>
#include <vector>

#include "output/diagnostics.hpp"
#include "secrets/report/finding.hpp"
#include "secrets/secrets_cli.hpp"
#include "secrets/report/suppressions.hpp"

namespace stealscan::secrets {

// `file`: the --output file, opened before the scan; closed: stdout. Sets
// `known` to the number of findings suppressed. Returns false, after saying
// so, when the report could not be written.
bool write_findings(std::vector<Finding>& findings, const Suppressions& suppressions, const SecretsCommand& cmd,
                    const RuleSet& rules, std::ofstream& file, Diagnostics& diag, std::size_t& known);

}  // namespace stealscan::secrets

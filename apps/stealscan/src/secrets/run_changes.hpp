// run_changes.hpp: changes_secrets_main(), `stealscan secrets --staged` and
// `--uncommitted` from the parsed command to the exit status: a pre-commit
// scan. Each changed file (sources/git/changes.hpp) is scanned whole, so
// that a rule sees the text around a change, and a finding is kept when one
// of its lines is an added line: a secret already committed in a file one
// touches is not reported again, as gitleaks' `protect` does not.
#pragma once

#include <fstream>

#include "output/diagnostics.hpp"
#include "secrets/detect/detector.hpp"
#include "secrets/report/suppressions.hpp"
#include "secrets/secrets_cli.hpp"

#include "secrets/own_files.hpp"

namespace stealscan::secrets {

// As git_secrets_main(): `file` the open --output file (closed: stdout),
// `known` the findings to leave out.
int changes_secrets_main(const SecretsCommand& cmd, const Detector& detector, const Suppressions& known,
                         const OwnFiles& own, std::ofstream& file, Diagnostics& diag);

}  // namespace stealscan::secrets

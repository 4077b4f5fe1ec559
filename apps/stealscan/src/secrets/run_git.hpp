// run_git.hpp: git_secrets_main(), `stealscan secrets --git` from the parsed
// command to its exit status: the repository opened, its history walked
// (sources/git/history.hpp), the blobs scanned (git_scan.hpp), each finding
// given its commit's author, email, date and message, the allowlists'
// commits applied (in the Detector), known findings left out, the report
// written.
#pragma once

#include <fstream>

#include "output/diagnostics.hpp"
#include "secrets/detect/detector.hpp"
#include "secrets/secrets_cli.hpp"
#include "secrets/report/suppressions.hpp"

#include "secrets/own_files.hpp"

namespace stealscan::secrets {

// `file`: the open --output file, or closed for stdout; `known`: the findings
// to leave out (--baseline, --fingerprints, .gitleaksignore), as for files.
int git_secrets_main(const SecretsCommand& cmd, const Detector& detector, const Suppressions& known,
                     const OwnFiles& own, std::ofstream& file, Diagnostics& diag);

}  // namespace stealscan::secrets

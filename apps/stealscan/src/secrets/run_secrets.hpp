// run_secrets.hpp: secrets_main(), `stealscan secrets` from its arguments to its
// exit status: the rules chosen and compiled, the files fed to the workers
// (feed_files, with the whole-file runner and a Detector per worker's
// FileWork), the findings sorted and reported.
#pragma once

#include <string>
#include <vector>

#include "output/diagnostics.hpp"

namespace stealscan::secrets {

inline constexpr int kNoFindings = 0, kFindings = 1, kError = 2;

// `args`: what follows the word `secrets`.
int secrets_main(const std::vector<std::string>& args, Diagnostics& diag);

}  // namespace stealscan::secrets

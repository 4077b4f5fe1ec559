// secrets_run.hpp: run_secrets_json(), `stealscan secrets` as the end-to-end
// tests run it: no progress line, no keyword database cache, a JSON report on
// stdout, then the test's own arguments.
#pragma once

#include <string>
#include <vector>

#include "run_process.hpp"

namespace stealscan::test {

inline ProcessResult run_secrets_json(const std::string& bin, const std::vector<std::string>& args) {
  std::vector<std::string> argv{bin, "secrets", "--no-progress", "--no-cache", "--format", "json"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

}  // namespace stealscan::test

// bench/stealbench/trace_run.hpp: stealbench --trace (see trace_run.cpp).
#pragma once

#include <string>

#include "harness.hpp"

namespace stealbench {

// Runs the fork-join workloads once on a traced pool of the largest --workers
// count and writes the Chrome/Perfetto trace to `path`.
void write_trace(const std::string& path, const Config& config);

}  // namespace stealbench

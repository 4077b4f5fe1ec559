// stats.hpp: the --stats summary (stderr): what was scanned, skipped and found,
// the time and rate, and the executor's metrics (stealpool/metrics.hpp).
#pragma once

#include <string>

#include "scan.hpp"

namespace stealscan {

std::string format_stats(const ScanReport& report, std::size_t workers);

}  // namespace stealscan

// search_setup.hpp: SearchSetup, what a search derives from its ScanConfig and
// matcher before any file is scanned: the record format, the scanner's settings
// and each worker's scratch. run_scan() (scan.cpp) and stealscan-mpi's ranks
// (src/mpi/dist_scan.cpp) build their executors from the same SearchSetup, so
// the two print the same records for the same file.
#pragma once

#include <cstddef>

#include "match/matcher.hpp"
#include "output/output.hpp"
#include "scan.hpp"
#include "scan/scan_task.hpp"
#include "scan/tally.hpp"

namespace stealscan {

class SearchSetup {
 public:
  // `config` and `matcher` must outlive the SearchSetup.
  SearchSetup(const ScanConfig& config, const Matcher& matcher);

  // Context lines (-A/-B/-C): each file's records are a group, "--" between groups.
  [[nodiscard]] bool grouped() const noexcept { return grouped_; }
  [[nodiscard]] const HitFormat& format() const noexcept { return format_; }
  [[nodiscard]] const ScanSettings& settings() const noexcept { return settings_; }
  // A worker's scratch: its matcher clone and read window, writing to `out` and
  // counting in `tally`.
  [[nodiscard]] WorkerScratch scratch(WorkerOutput& out, Tally& tally) const;

 private:
  const ScanConfig& config_;
  const Matcher& matcher_;
  bool grouped_;
  HitFormat format_;
  ScanSettings settings_;
  std::size_t overlap_;  // bytes a read window keeps from the previous block
};

}  // namespace stealscan

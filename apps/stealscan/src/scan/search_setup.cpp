// search_setup.cpp: SearchSetup (search_setup.hpp).
#include "scan/search_setup.hpp"

#include <algorithm>

namespace stealscan {
namespace {

ScanMode scan_mode(OutputMode m) {
  switch (m) {
    case OutputMode::count: return ScanMode::count;
    case OutputMode::list: return ScanMode::list;
    case OutputMode::lines: return ScanMode::lines;
    case OutputMode::json: return ScanMode::matches;
    case OutputMode::json_matches: return ScanMode::matches;
  }
  return ScanMode::lines;
}

ScanSettings settings_of(const ScanConfig& config) {
  const ScanMode mode = scan_mode(config.output);
  ScanSettings settings;
  settings.scan.mode = mode;
  settings.scan.number_lines = (mode == ScanMode::lines && config.line_numbers) || mode == ScanMode::matches;
  settings.scan.invert = config.invert;
  settings.scan.only_matching = mode == ScanMode::lines && config.only_matching;
  settings.scan.max_count = config.max_count;
  if (mode == ScanMode::lines || config.output == OutputMode::json) {
    settings.scan.before = config.before;
    settings.scan.after = config.after;
  }
  settings.scan.whole_lines = config.output == OutputMode::json;
  settings.chunk_size = config.chunk_size;
  // Enough chunks of one file in flight for every worker to take one, and one more each.
  settings.chunk_window = static_cast<std::uint32_t>(std::max<std::size_t>(2, 2 * config.workers));
  settings.binary_as_text = config.binary_as_text;
  settings.max_filesize = config.max_filesize;
  return settings;
}

std::size_t overlap_of(const Matcher& matcher) {
  const auto longest = matcher.max_match_length();
  return longest && *longest > 0 ? *longest - 1 : 0;
}

}  // namespace

SearchSetup::SearchSetup(const ScanConfig& config, const Matcher& matcher)
    : config_(config),
      matcher_(matcher),
      grouped_(config.output == OutputMode::lines && (config.before > 0 || config.after > 0)),
      format_(config.output, FormatOptions{config.with_filename, config.line_numbers, config.only_matching, grouped_},
              matcher),
      settings_(settings_of(config)),
      overlap_(overlap_of(matcher)) {}

WorkerScratch SearchSetup::scratch(WorkerOutput& out, Tally& tally) const {
  return WorkerScratch{matcher_.clone(), ScanWindow(config_.chunk_size, overlap_, config_.mmap), LineScratch{}, &out, &tally};
}

}  // namespace stealscan

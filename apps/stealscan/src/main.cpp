// main.cpp: stealscan's entry: parse the command line, check the paths, build the
// matcher, scan, report. Exit status as grep: 0 a line matched, 1 none, 2 an
// error (bad usage, a missing path, an invalid pattern, or a file or directory
// that could not be read during the scan, also when lines matched).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <stealpool/cpu_count.hpp>

#include "cli/cli.hpp"
#include "output/diagnostics.hpp"
#include "match/matcher.hpp"
#include "scan.hpp"
#include "walk/file_types.hpp"
#include "output/stats.hpp"

namespace {
constexpr int kMatched = 0, kNoMatch = 1, kError = 2;
}

int main(int argc, char** argv) {
  using namespace stealscan;
  Diagnostics diag;
  Command cmd;
  try {
    cmd = parse_command_line(std::vector<std::string>(argv + 1, argv + argc), stealpool::available_parallelism());
  } catch (const UsageError& e) {
    diag.message(e.what());
    return kError;
  }
  if (cmd.action == Command::Action::help) {
    std::cout << kUsage;
    return 0;
  }
  if (cmd.action == Command::Action::type_list) {
    std::cout << type_list();
    return 0;
  }
  if (cmd.action == Command::Action::version) {
    std::cout << "stealscan 0.1.0 (stealpool)\n";
    return 0;
  }

  // Every path must exist before anything is scanned; a directory among them,
  // or more than one path, means output lines carry the file name.
  bool any_directory = false;
  for (const std::string& p : cmd.config.paths) {
    struct stat st;
    if (::stat(p.c_str(), &st) != 0) {
      diag.error(p, std::strerror(errno));
      return kError;
    }
    any_directory = any_directory || S_ISDIR(st.st_mode);
  }
  cmd.config.with_filename = cmd.with_filename.value_or(any_directory || cmd.config.paths.size() > 1);
  cmd.config.progress = !cmd.no_progress && ::isatty(STDERR_FILENO) == 1;

  std::unique_ptr<Matcher> matcher;
  try {
    matcher = make_matcher(cmd.patterns, cmd.syntax, cmd.flags, cmd.engine);
  } catch (const PatternError& e) {
    diag.message(e.what());
    return kError;
  }

  const ScanReport report = run_scan(cmd.config, *matcher, diag);
  if (cmd.stats) {
    const std::string s = format_stats(report, cmd.config.workers);
    std::cerr << s << std::flush;
  }
  if (report.totals.errors > 0) return kError;
  return report.totals.matched_files > 0 ? kMatched : kNoMatch;
}

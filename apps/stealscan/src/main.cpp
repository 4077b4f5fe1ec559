// main.cpp: stealscan's entry: `stealscan secrets ...` runs the program beside
// it, stealscan-secrets (secrets_main.cpp); else parse the command line, check
// the paths, build the matcher, scan, report. Exit status as grep: 0 a line
// matched, 1 none, 2 an error (bad usage, a missing path, an invalid pattern,
// or a file or directory that could not be read during the scan, also when
// lines matched).
//
// Why two programs: the secret scanner needs libgit2 and libarchive, which
// load some 25 more libraries (Kerberos, TLS, ICU...). Loading them took 5 ms
// of every search's 13 ms start on a small input (ripgrep: 5); the search
// program links neither, and `stealscan secrets` pays one exec instead.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <stealpool/cpu_count.hpp>

#include "cli/cli.hpp"
#include "output/diagnostics.hpp"
#include "output/output.hpp"
#include "match/matcher.hpp"
#include "scan.hpp"
#include "scan/file_feed.hpp"
#include "walk/file_types.hpp"
#include "output/stats.hpp"

namespace {
constexpr int kMatched = 0, kNoMatch = 1, kError = 2;

// Whether standard input is a pipe, a socket or a redirected file: something to
// search. A terminal or /dev/null (a device) is not.
bool stdin_is_input() {
  struct stat st;
  if (::fstat(STDIN_FILENO, &st) != 0) return false;
  return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) || S_ISREG(st.st_mode);
}

// Whether stdout is a pipe, a socket or a terminal: someone reads the lines as
// they come, so each file's lines are written when the file is done.
bool stdout_has_reader() {
  if (::isatty(STDOUT_FILENO) == 1) return true;
  struct stat st;
  return ::fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}
// Replaces this process with stealscan-secrets from this program's directory,
// given the arguments after "secrets"; returns only if that fails.
int run_secrets_program(int argc, char** argv, stealscan::Diagnostics& diag) {
  std::string self(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size());
  std::string program = "stealscan-secrets";
  if (n > 0 && static_cast<std::size_t>(n) < self.size()) {
    self.resize(static_cast<std::size_t>(n));
    program = self.substr(0, self.rfind('/') + 1) + program;
  }
  std::vector<char*> args{program.data()};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execv(program.c_str(), args.data());
  diag.message("cannot run " + program + ": " + std::strerror(errno));
  return kError;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace stealscan;
  Diagnostics diag;
  // `stealscan secrets ...` is the secret scanner (secrets/README.md); to search
  // for the word "secrets", give it with -e.
  if (argc >= 2 && std::string_view(argv[1]) == "secrets") return run_secrets_program(argc, argv, diag);
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
    std::cout << "stealscan " STEALSCAN_VERSION " (stealpool)\n";
    return 0;
  }

  // No path: standard input if something is piped or redirected into it, else
  // the current directory (as ripgrep).
  if (cmd.config.paths.empty()) cmd.config.paths.push_back(stdin_is_input() ? "-" : ".");
  // Every path must exist before anything is scanned; a directory among them,
  // or more than one path, means output lines carry the file name.
  bool any_directory = false;
  if (!check_operands(cmd.config.paths, diag, &any_directory)) return kError;
  cmd.config.with_filename = cmd.with_filename.value_or(any_directory || cmd.config.paths.size() > 1);
  cmd.config.progress = !cmd.no_progress && ::isatty(STDERR_FILENO) == 1;
  cmd.config.flush_per_file = stdout_has_reader();

  std::unique_ptr<Matcher> matcher;
  try {
    matcher = make_matcher(cmd.patterns, cmd.syntax, cmd.flags, cmd.engine);
  } catch (const PatternError& e) {
    diag.message(e.what());
    return kError;
  }

  ScanReport report;
  try {
    report = run_scan(cmd.config, *matcher, diag);
  } catch (const ThreadStartError& e) {
    diag.message(e.what());
    return kError;
  }
  if (cmd.config.output == OutputMode::json) std::cout << json_summary(report.totals, report.seconds) << std::flush;
  if (cmd.stats) {
    const std::string s = format_stats(report, cmd.config.workers);
    std::cerr << s << std::flush;
  }
  if (report.totals.errors > 0) return kError;
  return report.totals.matched_files > 0 ? kMatched : kNoMatch;
}

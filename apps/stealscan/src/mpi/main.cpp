// main.cpp: stealscan-mpi's entry: stealscan's search split across MPI ranks
// (`mpirun -np 4 stealscan-mpi PATTERN PATH...`, README.md). Every rank parses
// the same command line and builds the same matcher; the ranks agree after each
// step that can fail (mpi/agreement.hpp), so a bad option or a missing path ends
// every rank with status 2, said once. Then run_dist_scan() (mpi/dist_scan.hpp).
// Exit status as grep and stealscan, the same on every rank: 0 a line matched,
// 1 none, 2 an error.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <stealpool/cpu_count.hpp>
#include <stealpool/mpi/environment.hpp>

#include "cli/cli.hpp"
#include "match/matcher.hpp"
#include "mpi/agreement.hpp"
#include "mpi/dist_scan.hpp"
#include "output/diagnostics.hpp"
#include "output/output.hpp"
#include "walk/file_types.hpp"
#include "walk/walker.hpp"

namespace {
constexpr int kMatched = 0, kNoMatch = 1, kError = 2;

constexpr const char* kMpiUsage =
    "stealscan-mpi: stealscan's search split across MPI ranks\n"
    "usage: mpirun -np N stealscan-mpi [OPTIONS] PATTERN [PATH...]\n"
    "The options are stealscan's (below); -j is the worker threads of each rank. Not here:\n"
    "`secrets`, standard input (a `-` path, `-f -`; with no PATH the current directory is\n"
    "searched), --stats and the progress line. Large files are scanned whole, by one worker.\n"
    "Open MPI binds a rank to one core when there are at most two: with -j above 1, add --bind-to none.\n\n";

// stealscan's parser, and what stealscan-mpi refuses on top of it (UsageError
// naming the argument).
stealscan::Command parse_mpi_command(const std::vector<std::string>& args) {
  using stealscan::UsageError;
  if (!args.empty() && args.front() == "secrets")
    throw UsageError("'secrets': stealscan-mpi does not run the secret scanner; use `stealscan secrets`");
  stealscan::Command cmd =
      stealscan::parse_command_line(args, stealpool::available_parallelism(), stealscan::PatternInput::files_only);
  if (cmd.action != stealscan::Command::Action::scan) return cmd;
  std::vector<std::string>& paths = cmd.config.paths;
  if (std::find(paths.begin(), paths.end(), "-") != paths.end())
    throw UsageError("'-': stealscan-mpi does not read standard input; give files or directories");
  if (cmd.stats) throw UsageError("--stats is not supported by stealscan-mpi");
  if (paths.empty()) paths.emplace_back(".");
  cmd.config.progress = false;
  cmd.config.flush_per_file = false;
  return cmd;
}

int run(MPI_Comm comm, int argc, char** argv) {
  using namespace stealscan;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  Diagnostics diag;

  Command cmd;
  std::optional<std::string> error;
  try {
    cmd = parse_mpi_command(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    error = e.what();
  }
  if (!mpi::every_rank_ok(comm, error, diag)) return kError;
  if (cmd.action != Command::Action::scan) {
    if (rank == 0) {
      if (cmd.action == Command::Action::help) std::cout << kMpiUsage << kUsage;
      if (cmd.action == Command::Action::type_list) std::cout << type_list();
      if (cmd.action == Command::Action::version) std::cout << "stealscan-mpi " STEALSCAN_VERSION " (stealpool)\n";
    }
    return 0;
  }

  // The operands must exist before anything is scanned; rank 0 checks (and says
  // which does not), the others follow its verdict.
  bool any_directory = false;
  if (rank == 0 && !check_operands(cmd.config.paths, diag, &any_directory)) error = "";
  if (!mpi::every_rank_ok(comm, error, diag)) return kError;
  int directory = any_directory ? 1 : 0;
  MPI_Bcast(&directory, 1, MPI_INT, 0, comm);
  cmd.config.with_filename = cmd.with_filename.value_or(directory != 0 || cmd.config.paths.size() > 1);

  std::unique_ptr<Matcher> matcher;
  try {
    matcher = make_matcher(cmd.patterns, cmd.syntax, cmd.flags, cmd.engine);
  } catch (const PatternError& e) {
    error = e.what();
  }
  if (!mpi::every_rank_ok(comm, error, diag)) return kError;

  const auto start = std::chrono::steady_clock::now();
  const Totals totals = mpi::run_dist_scan(cmd.config, *matcher, diag, comm);
  if (rank == 0 && cmd.config.output == OutputMode::json) {
    // After every rank's messages, which rank 0 wrote at the end of the scan.
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::cout << json_summary(totals, took.count()) << std::flush;
  }
  if (totals.errors > 0) return kError;
  return totals.matched_files > 0 ? kMatched : kNoMatch;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<stealpool::mpi::Environment> env;
  try {
    env.emplace(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stealscan-mpi: cannot start MPI: %s\n", e.what());
    return kError;
  }
  return run(MPI_COMM_WORLD, argc, argv);
}

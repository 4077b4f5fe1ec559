// dist_scan.hpp: run_dist_scan(), one stealscan-mpi search from the walk to the
// output (README.md): a worker of rank 0 walks and spawns each file as a task
// on a DistExecutor, every rank's workers scan the files they take (a large
// one as chunk tasks, split_file.hpp), their records stream to rank 0, which
// writes them as they come, and every rank's messages at the end.
#pragma once

#include <mpi.h>

#include "match/matcher.hpp"
#include "output/diagnostics.hpp"
#include "scan.hpp"
#include "scan/tally.hpp"

namespace stealscan::mpi {

// Collective on `comm`; every rank passes the same `config` (paths: checked to
// exist, no "-") and an equal matcher. Rank 0 reports the walk's errors on
// `diag` as they come, and writes stdout and every rank's file errors at the
// end. Returns the totals of every rank, on every rank (so every rank exits with
// the same status). A run the executor gives up (a worker thread that cannot
// start, memory exhausted) is reported by rank 0 and counted as an error.
Totals run_dist_scan(const ScanConfig& config, const Matcher& matcher, Diagnostics& diag, MPI_Comm comm);

}  // namespace stealscan::mpi

// dist_scan.hpp: run_dist_scan(), one stealscan-mpi search from the walk to the
// output (README.md): rank 0 walks, every rank receives the file table and
// scans its share of the files on a DistExecutor (stealing batches of file
// numbers from the others when it runs dry), and rank 0 writes every rank's
// output and messages at the end.
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

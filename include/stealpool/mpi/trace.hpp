// stealpool/mpi/trace.hpp: one timeline for a distributed run, a process track
// per rank, in the Chrome trace event format that Perfetto UI opens.
//
//   stealpool::TraceRecorder rec(config.workers);   // on every rank
//   config.trace = &rec;
//   { DistExecutor<...> ex(config, ...); ...; ex.run(); }   // or after run() returns
//   stealpool::mpi::write_rank_traces(rec, MPI_COMM_WORLD, out);   // collective
//
// Each rank's workers are the threads of process "rank R" (pid R + 1): run and
// sleep slices, steals between siblings; a task taken from the rank's inbound
// queue (its seeds, or a batch stolen from another rank) shows as the start of a
// run slice like any other. Timestamps are each rank's own, from the moment its
// recorder was built: build the recorders right after MPI starts (or after a
// barrier) and the tracks line up to within that skew.
#pragma once

#include <mpi.h>

#include <ostream>

#include "stealpool/trace_recorder.hpp"

namespace stealpool::mpi {

// Collective over `comm`. Rank 0 writes the whole document to `out`; the other
// ranks send their part and write nothing (their `out` is not touched). Call it
// after the workers that recorded have stopped (run() returned).
void write_rank_traces(const TraceRecorder& recorder, MPI_Comm comm, std::ostream& out);

}  // namespace stealpool::mpi

// agreement.hpp: every_rank_ok(), how stealscan-mpi's ranks agree that a step
// of the start-up (parsing the command line, checking the operands, building
// the matcher) worked everywhere before any rank goes on to a collective call
// that the others would never reach: a bad option ends every rank with status
// 2 instead of leaving some waiting for ever.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>

#include "output/diagnostics.hpp"

namespace stealscan::mpi {

// Collective on `comm`: true if no rank's `error` is set. Of the ranks whose
// step failed, only the lowest says why (diag.message(*error), unless the
// message is empty: that rank has said it already), so an error that every rank
// meets alike (a bad option) is printed once, not once per rank.
bool every_rank_ok(MPI_Comm comm, const std::optional<std::string>& error, Diagnostics& diag);

}  // namespace stealscan::mpi

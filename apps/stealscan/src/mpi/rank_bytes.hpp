// rank_bytes.hpp: moving byte strings between stealscan-mpi's ranks over MPI:
// broadcast_bytes() (rank 0's bytes to every rank) and gather_bytes() (every
// rank's bytes to rank 0, in rank order). Both collective on `comm`, and both
// send in pieces of at most 1 GiB, so a string of any size fits MPI's int counts.
#pragma once

#include <mpi.h>

#include <string>
#include <string_view>
#include <vector>

namespace stealscan::mpi {

// `bytes`: rank 0's are sent; every other rank's are replaced by them.
void broadcast_bytes(MPI_Comm comm, std::string& bytes);

// On rank 0: every rank's `mine`, indexed by rank; elsewhere: empty.
std::vector<std::string> gather_bytes(MPI_Comm comm, std::string_view mine);

}  // namespace stealscan::mpi

// rank_bytes.hpp: gather_bytes(), every stealscan-mpi rank's byte string to
// rank 0, in rank order. Collective on `comm`; sent in pieces of at most 1 GiB,
// so a string of any size fits MPI's int counts.
#pragma once

#include <mpi.h>

#include <string>
#include <string_view>
#include <vector>

namespace stealscan::mpi {

// On rank 0: every rank's `mine`, indexed by rank; elsewhere: empty.
std::vector<std::string> gather_bytes(MPI_Comm comm, std::string_view mine);

}  // namespace stealscan::mpi

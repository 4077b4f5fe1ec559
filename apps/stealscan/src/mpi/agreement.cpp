// agreement.cpp: every_rank_ok() (agreement.hpp).
#include "mpi/agreement.hpp"

#include <climits>

namespace stealscan::mpi {

bool every_rank_ok(MPI_Comm comm, const std::optional<std::string>& error, Diagnostics& diag) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int mine = error ? rank : INT_MAX;
  int lowest = INT_MAX;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm);
  if (lowest == rank && !error->empty()) diag.message(*error);
  return lowest == INT_MAX;
}

}  // namespace stealscan::mpi

// stealpool/mpi/detail/agree.hpp: agree(), how the ranks learn that a local step
// of a collective call failed somewhere ([MPI-agree], ../README.md).
#pragma once

#include <mpi.h>

#include <exception>
#include <stdexcept>
#include <string>

namespace stealpool::mpi::detail {

// Collective over `comm`: every rank runs its local `step` (which may throw),
// then the ranks agree. If any rank's step threw, every rank throws: the failing
// ranks their own exception, the others a std::runtime_error naming the highest
// failing rank and `what_step`. Without it, a rank that threw before a
// collective call would leave the others waiting in that call forever.
template <class Step>
void agree(MPI_Comm comm, const char* what_step, Step&& step) {
  std::exception_ptr local;
  try {
    step();
  } catch (...) {
    local = std::current_exception();
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const int mine = local ? rank + 1 : 0;
  int worst = 0;
  MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm);
  if (local) std::rethrow_exception(local);
  if (worst != 0) {
    std::string what = "stealpool::mpi::DistExecutor: ";
    what.append(what_step).append(" failed on rank ").append(std::to_string(worst - 1)).append(", so no rank goes on");
    throw std::runtime_error(what);
  }
}

}  // namespace stealpool::mpi::detail

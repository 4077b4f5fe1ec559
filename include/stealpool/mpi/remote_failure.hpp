// stealpool/mpi/remote_failure.hpp: RemoteTaskFailure, what run() throws on the
// ranks where no task threw when a task on another rank did.
#pragma once

#include <stdexcept>
#include <string>

namespace stealpool::mpi {

// The rank whose task threw rethrows that task's exception from run(); every
// other rank throws this, naming the rank and the exception's message, once the
// run has stopped everywhere (README.md, "Failures").
class RemoteTaskFailure : public std::runtime_error {
 public:
  RemoteTaskFailure(int failed_rank, const std::string& what)
      : std::runtime_error("stealpool::mpi: the run was cancelled: a task threw on rank " + std::to_string(failed_rank) +
                           ": " + what),
        failed_rank_(failed_rank) {}
  int failed_rank() const noexcept { return failed_rank_; }

 private:
  int failed_rank_;
};

}  // namespace stealpool::mpi

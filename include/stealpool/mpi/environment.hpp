// stealpool/mpi/environment.hpp: MPI start-up and shut-down for stealpool::mpi,
// and the thread-level check every distributed executor makes.
//
//   int main(int argc, char** argv) {
//     stealpool::mpi::Environment env(argc, argv);   // MPI_Init_thread(SERIALIZED)
//     ...                                           // DistExecutor runs here
//   }                                               // MPI_Finalize
//
// The distributed executor runs worker threads beside MPI, and makes the MPI
// calls of a run from the thread that calls run() (README.md, "Threads"), and,
// at MPI_THREAD_SERIALIZED or above, probes from its workers one at a time
// under a lock ([MPI-worker-probe]). So MPI must give at least
// MPI_THREAD_FUNNELED (then the workers do not probe), and at exactly FUNNELED
// run() must be called on the thread that initialised MPI.
// require_thread_level() checks both and throws std::runtime_error naming the
// level given and the level needed.
#pragma once

#include <mpi.h>

#include <string>

namespace stealpool::mpi {

// "MPI_THREAD_SINGLE", ..., "MPI_THREAD_MULTIPLE"; "unknown thread level N" otherwise.
std::string thread_level_name(int level);

// Throws std::runtime_error unless MPI is initialised (and not finalised) with at
// least MPI_THREAD_FUNNELED, and, when it gave exactly FUNNELED, the calling
// thread is MPI's main thread. `who` starts the message.
void require_thread_level(const char* who);

// Owns MPI's lifetime: MPI_Init_thread asking for `wanted` (SERIALIZED by
// default: the level at which a rank's workers may probe for messages,
// [MPI-worker-probe]; FUNNELED is enough to run), MPI_Finalize in the destructor. Throws std::runtime_error (after finalising) when
// the library gives less than FUNNELED, and std::logic_error when MPI is already
// initialised. One per process.
class Environment {
 public:
  Environment(int& argc, char**& argv, int wanted = MPI_THREAD_SERIALIZED);
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  int provided() const noexcept { return provided_; }  // the thread level MPI gave
  int rank() const;                                     // in MPI_COMM_WORLD
  int size() const;

 private:
  int provided_ = MPI_THREAD_SINGLE;
};

}  // namespace stealpool::mpi

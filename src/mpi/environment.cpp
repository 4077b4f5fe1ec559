// src/mpi/environment.cpp: MPI's lifetime (Environment), the thread-level check,
// and DistConfig::validate.
#include "stealpool/mpi/environment.hpp"

#include <stdexcept>
#include <string>

#include "stealpool/mpi/dist_config.hpp"

namespace stealpool::mpi {

std::string thread_level_name(int level) {
  if (level == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
  if (level == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
  if (level == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
  if (level == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
  return "unknown thread level " + std::to_string(level);
}

void require_thread_level(const char* who) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw std::runtime_error(std::string(who) + ": MPI is " + (finalized ? "already finalised" : "not initialised") +
                             "; create a stealpool::mpi::Environment (or call MPI_Init_thread) first");
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  // The MPI standard orders the levels SINGLE < FUNNELED < SERIALIZED < MULTIPLE.
  if (provided < MPI_THREAD_FUNNELED)
    throw std::runtime_error(std::string(who) + ": the MPI library gave " + thread_level_name(provided) +
                             ", but the distributed executor needs at least MPI_THREAD_FUNNELED (worker threads "
                             "run beside MPI; the thread that calls run() makes the MPI calls). Initialise MPI "
                             "with MPI_Init_thread(..., MPI_THREAD_FUNNELED, ...) or stealpool::mpi::Environment");
  if (provided == MPI_THREAD_FUNNELED) {
    int is_main = 0;
    MPI_Is_thread_main(&is_main);
    if (!is_main)
      throw std::runtime_error(std::string(who) +
                               ": the MPI library gave MPI_THREAD_FUNNELED, which allows MPI calls from the thread "
                               "that initialised MPI only, and this is another thread; call it from that thread "
                               "or initialise MPI with MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE");
  }
}

Environment::Environment(int& argc, char**& argv, int wanted) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) throw std::logic_error("stealpool::mpi::Environment: MPI is already initialised");
  MPI_Init_thread(&argc, &argv, wanted, &provided_);
  if (provided_ < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    throw std::runtime_error("stealpool::mpi::Environment: asked MPI for " + thread_level_name(wanted) + ", got " +
                             thread_level_name(provided_) + "; the distributed executor needs at least "
                             "MPI_THREAD_FUNNELED");
  }
}

Environment::~Environment() { MPI_Finalize(); }

int Environment::rank() const {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int Environment::size() const {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

void DistConfig::validate() const {
  if (workers == 0) throw std::invalid_argument("stealpool::mpi::DistConfig: workers must be at least 1 (got 0)");
  if (max_batch == 0) throw std::invalid_argument("stealpool::mpi::DistConfig: max_batch must be at least 1 (got 0)");
  if (comm == MPI_COMM_NULL) throw std::invalid_argument("stealpool::mpi::DistConfig: comm is MPI_COMM_NULL");
}

}  // namespace stealpool::mpi

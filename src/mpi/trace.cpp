#include "stealpool/mpi/trace.hpp"

#include <cstddef>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace stealpool::mpi {

void write_rank_traces(const TraceRecorder& recorder, MPI_Comm comm, std::ostream& out) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::ostringstream mine;
  recorder.write_chrome_events(mine, rank + 1, "rank " + std::to_string(rank));
  const std::string part = mine.str();
  // MPI counts are ints: a part past 2 GiB cannot be sent (a recorder holds at
  // most its preallocated events, far below that unless told otherwise).
  if (part.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::length_error("stealpool::mpi::write_rank_traces: rank " + std::to_string(rank) + "'s trace is " +
                            std::to_string(part.size()) + " bytes, more than one MPI message can carry");
  const int length = static_cast<int>(part.size());
  std::vector<int> lengths(rank == 0 ? static_cast<std::size_t>(size) : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
  std::vector<int> offsets(lengths.size());
  std::size_t total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = static_cast<int>(total);
    total += static_cast<std::size_t>(lengths[r]);
  }
  if (rank == 0 && total > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::length_error("stealpool::mpi::write_rank_traces: the ranks' traces add up to " + std::to_string(total) +
                            " bytes, more than one gather can carry");
  std::string all(rank == 0 ? total : 0, '\0');
  MPI_Gatherv(part.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, comm);
  if (rank != 0) return;
  out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    if (r != 0) out << ",\n";
    out.write(all.data() + offsets[r], lengths[r]);
  }
  out << "\n]}\n";
}

}  // namespace stealpool::mpi

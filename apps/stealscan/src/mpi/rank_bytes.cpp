// rank_bytes.cpp: gather_bytes() (rank_bytes.hpp).
#include "mpi/rank_bytes.hpp"

#include <algorithm>
#include <cstdint>

namespace stealscan::mpi {
namespace {

constexpr std::size_t kPiece = std::size_t{1} << 30;  // bytes per MPI call: within int
constexpr int kGatherTag = 1;

int piece_at(std::size_t size, std::size_t at) { return static_cast<int>(std::min(kPiece, size - at)); }

}  // namespace

std::vector<std::string> gather_bytes(MPI_Comm comm, std::string_view mine) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::uint64_t size = mine.size();
  std::vector<std::uint64_t> sizes(rank == 0 ? static_cast<std::size_t>(ranks) : 0);
  MPI_Gather(&size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, 0, comm);
  if (rank != 0) {
    // Blocking sends: rank 0 receives every rank's pieces in turn, so none waits on another.
    for (std::size_t at = 0; at < mine.size(); at += kPiece)
      MPI_Send(mine.data() + at, piece_at(mine.size(), at), MPI_BYTE, 0, kGatherTag, comm);
    return {};
  }
  std::vector<std::string> all(sizes.size());
  all[0] = mine;
  for (std::size_t r = 1; r < all.size(); ++r) {
    all[r].resize(static_cast<std::size_t>(sizes[r]));
    for (std::size_t at = 0; at < all[r].size(); at += kPiece)
      MPI_Recv(all[r].data() + at, piece_at(all[r].size(), at), MPI_BYTE, static_cast<int>(r), kGatherTag, comm,
               MPI_STATUS_IGNORE);
  }
  return all;
}

}  // namespace stealscan::mpi

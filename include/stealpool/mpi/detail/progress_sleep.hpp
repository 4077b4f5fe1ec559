// stealpool/mpi/detail/progress_sleep.hpp: how long the MPI progress thread
// sleeps after a round that did nothing (../README.md, "Threads"). Its own
// header so that the rank simulator (sim/ranks/, --progress sleeping) models
// the same policy that Progress::run() follows.
#pragma once

#include <algorithm>

namespace stealpool::mpi::detail {

// After `quiet_rounds` quiet rounds in a row (0 for the first): 5 us doubling,
// capped at 1 ms while the rank is passive, 50 us while a steal request of ours
// awaits its reply, 400 us while the rank has work.
constexpr unsigned progress_sleep_us(bool passive, bool hunting, unsigned quiet_rounds) noexcept {
  const unsigned cap_us = passive ? 1000u : hunting ? 50u : 400u;
  return std::min(cap_us, 5u << std::min(quiet_rounds, 8u));
}

// Messages one round receives at most before it makes its decisions.
inline constexpr int kProgressMessagesPerRound = 64;

}  // namespace stealpool::mpi::detail

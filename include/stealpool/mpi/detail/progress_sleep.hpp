// stealpool/mpi/detail/progress_sleep.hpp: how long the MPI progress thread
// sleeps after a round that did nothing (../README.md, "Threads"). Its own
// header so that the rank simulator (sim/ranks/, --progress sleeping) models
// the same policy that Progress::run() follows.
#pragma once

#include <algorithm>

namespace stealpool::mpi::detail {

// How long a round that did something keeps the rank alert: its next steal
// request is likely to follow soon (a thief that ran dry once runs dry again).
inline constexpr unsigned kProgressAlertUs = 2000;

// After `quiet_rounds` quiet rounds in a row (0 for the first), `since_busy_us`
// after the last round that did something: 5 us doubling, capped at 1 ms while
// the rank is passive; at 50 us while a steal request of ours awaits its reply,
// or while the rank has work and did something less than kProgressAlertUs ago
// (a thief waits for our reply no longer than this); else at 400 us. Passing
// data on is not "something" (rank_protocol.hpp, alerting_tag()).
constexpr unsigned progress_sleep_us(bool passive, bool hunting, unsigned quiet_rounds,
                                     unsigned since_busy_us) noexcept {
  const bool alert = hunting || since_busy_us < kProgressAlertUs;
  const unsigned cap_us = passive ? 1000u : alert ? 50u : 400u;
  return std::min(cap_us, 5u << std::min(quiet_rounds, 8u));
}

// Messages one round receives at most before it makes its decisions.
inline constexpr int kProgressMessagesPerRound = 64;

}  // namespace stealpool::mpi::detail

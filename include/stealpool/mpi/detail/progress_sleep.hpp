// stealpool/mpi/detail/progress_sleep.hpp: how long the MPI progress thread
// sleeps after a round that did nothing (../README.md, "Threads"). Its own
// header so that the rank simulator (sim/ranks/, --progress sleeping) models
// the same policy that Progress::run() follows.
#pragma once

#include <algorithm>
#include <cstdint>

namespace stealpool::mpi::detail {

// How long a round that did something keeps the rank alert: its next steal
// request is likely to follow soon (a thief that ran dry once runs dry again),
// and so is the push that refills a rank that ran dry.
inline constexpr std::uint64_t kProgressAlertUs = 2000;

// How long without such a round makes a rank that has work calm: no rank has
// asked it for anything in that time, so it probes less often and leaves its
// workers the core (on a node where the progress thread shares one with them,
// each nap and its round cost a worker about 24 us).
inline constexpr std::uint64_t kProgressCalmUs = 10000;

// How long a rank with work naps while its workers probe for messages
// ([MPI-worker-probe]): a thief's request rings it within the probe interval,
// so the nap only paces what no message starts (data for rank 0; a lifeline
// push once work appears, which is why a rank holding lifeline thieves does
// not nap this long).
inline constexpr std::uint64_t kProgressProbedUs = 5000;

// How long a passive rank goes round without napping after a round that did
// something (it ran dry and asked its lifelines then): the push that refills
// it usually comes within this, and a push that reaches a napping rank waits
// for the nap to end, since nothing wakes a rank whose workers are idle. Its
// workers are idle, so the spin takes no core from them on a node with a core
// a thread; on an oversubscribed one it costs at most this per dry spell.
inline constexpr std::uint64_t kProgressSpinUs = 50;

// After `quiet_rounds` quiet rounds in a row (0 for the first), `since_busy_us`
// after the last round that did something: 0 (no nap: go round again) while the
// rank is passive and did something less than kProgressSpinUs ago; else 5 us
// doubling, capped while the rank is passive at 50 us if it did something less
// than kProgressAlertUs ago, at 1 ms after that; at 50 us while a steal request
// of ours awaits its reply; at kProgressProbedUs while the rank has work and
// `probed` (its workers probe and no lifeline thief waits on it); else, while
// it has work, at 50 us if it did something less than kProgressAlertUs ago (a
// thief waits for our reply no longer than this), at 400 us if less than
// kProgressCalmUs ago, and at 1,280 us after that. Passing data on is not
// "something" (rank_protocol.hpp, alerting_tag()).
constexpr unsigned progress_sleep_us(bool passive, bool hunting, unsigned quiet_rounds, std::uint64_t since_busy_us,
                                     bool probed) noexcept {
  if (passive && since_busy_us < kProgressSpinUs) return 0;
  const bool alert = since_busy_us < kProgressAlertUs;
  const unsigned cap_us = passive                          ? (alert ? 50u : 1000u)
                          : hunting                        ? 50u
                          : probed                         ? static_cast<unsigned>(kProgressProbedUs)
                          : alert                          ? 50u
                          : since_busy_us < kProgressCalmUs  ? 400u
                                                             : 1280u;
  return std::min(cap_us, 5u << std::min(quiet_rounds, 10u));
}

// Messages one round receives at most before it makes its decisions.
inline constexpr int kProgressMessagesPerRound = 64;

}  // namespace stealpool::mpi::detail

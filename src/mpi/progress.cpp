// src/mpi/progress.cpp: the MPI transport of the distributed protocol: receives,
// sends, completes and sleeps; the decisions are RankProtocol's
// (src/mpi/rank_protocol.cpp, include/stealpool/mpi/README.md).
#include "stealpool/mpi/detail/progress.hpp"

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>

#include "stealpool/mpi/detail/progress_sleep.hpp"

namespace stealpool::mpi::detail {

namespace {

ProtocolConfig protocol_config(const DistConfig& config) {
  ProtocolConfig p;
  p.random_steals = config.random_steals;
  p.max_batch = config.max_batch;
  p.seed = config.seed;
  return p;
}

// The calling thread's timer slack set to 1 ns for the scope's life (Linux's
// PR_SET_TIMERSLACK; the default 50 us is added to every timed sleep).
class SlackScope {
 public:
  SlackScope() noexcept : saved_(prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0)) { (void)prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); }
  ~SlackScope() {
    if (saved_ > 0) (void)prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(saved_), 0, 0, 0);
  }
  SlackScope(const SlackScope&) = delete;
  SlackScope& operator=(const SlackScope&) = delete;

 private:
  const int saved_;  // -1 if it could not be read: then left as set
};

// CPU time the calling thread has used, in seconds (0 if the clock cannot be read).
double thread_cpu_s() noexcept {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int Progress::rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int Progress::size_of(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

Progress::Progress(MPI_Comm comm, const DistConfig& config, LocalPool& pool, WorkerProbe& probe)
    : comm_(comm), pool_(pool), probe_(probe),
      protocol_(rank_of(comm), size_of(comm), protocol_config(config), pool, *this) {}

void Progress::run() {
  // The naps below are short: the kernel's default timer slack (50 us) would
  // stretch a 5 us nap tenfold. Restored on the way out (the thread is the user's).
  const SlackScope slack;
  const double cpu0 = thread_cpu_s();
  // [MPI-worker-probe]: every MPI call of ours under the probe's lock, released
  // only for a nap; closed on the way out, normal or not, so no worker calls
  // MPI once run() has returned.
  std::unique_lock<std::mutex> mpi_calls(probe_.lock());
  struct CloseProbe {
    std::unique_lock<std::mutex>& held;
    WorkerProbe& probe;
    ~CloseProbe() {
      if (!held.owns_lock()) held.lock();
      probe.close();
    }
  } close_probe{mpi_calls, probe_};
  unsigned quiet_rounds = 0;
  auto last_busy = std::chrono::steady_clock::now();
  while (!protocol_.terminated()) {
    if (!mpi_calls.owns_lock()) mpi_calls.lock();
    bool busy = poll_messages();
    if (protocol_.terminated()) break;
    busy |= complete_sends();
    busy |= protocol_.step();
    const auto now = std::chrono::steady_clock::now();
    if (busy) {
      quiet_rounds = 0;
      last_busy = now;
      continue;
    }
    // Nothing happened: nap a little, longer the longer it stays quiet. A passive
    // rank goes round without a nap for 50 us after it ran dry and then probes
    // every 50 us for 2 ms (the push that refills it waits for a nap to end),
    // then once a millisecond. One with work naps up to 5 ms while its workers
    // probe for messages ([MPI-worker-probe]) and no lifeline thief waits on it;
    // else every 50 us while a steal of ours is in flight or for 2 ms after a
    // round that did something (a thief waits for our reply about that long),
    // then every 400 us, and every 1.28 ms once 10 ms pass without one
    // (progress_sleep.hpp).
    const auto since_busy = std::chrono::duration_cast<std::chrono::microseconds>(now - last_busy).count();
    const bool probed = probe_.enabled() && !protocol_.holds_lifeline_thieves() && !pool_.dry();
    const unsigned us = progress_sleep_us(protocol_.passive(), protocol_.hunting(), quiet_rounds,
                                          static_cast<std::uint64_t>(std::max<std::int64_t>(since_busy, 0)), probed);
    ++quiet_rounds;
    if (us == 0) continue;  // a refill is due: the rank spins (its workers are idle)
    ++protocol_.metrics().progress_naps;
    mpi_calls.unlock();
    pool_.nap(std::chrono::microseconds(us));  // ends early when the rank runs dry ([MPI-dry-bell]) or a probe rings
  }
  if (!mpi_calls.owns_lock()) mpi_calls.lock();
  // Every counted message has been received (the wave said so) and each rank got
  // its termination notice, so every send of ours completes.
  for (PendingSend& s : sends_) MPI_Wait(&s.request, MPI_STATUS_IGNORE);
  sends_.clear();
  protocol_.metrics().progress_cpu_s = thread_cpu_s() - cpu0;
}

bool Progress::poll_messages() {
  bool any = false;
  for (int i = 0; i < kProgressMessagesPerRound && !protocol_.terminated(); ++i) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &status);
    // A probe may look for a match before it drives the transport: Open MPI's
    // ob1 does, so the first probe after a nap pulls in what arrived during it
    // but answers "nothing", and without this second look the message would
    // wait a whole nap more (a steal request on a napping victim, twice the
    // nap). Later probes of a round follow one that found a message, and a
    // busy round is followed by another without a nap.
    if (!flag && i == 0) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &status);
    if (!flag) break;
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    std::vector<std::byte> buffer(static_cast<std::size_t>(bytes));
    MPI_Recv(buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, comm_, MPI_STATUS_IGNORE);
    protocol_.receive(status.MPI_SOURCE, status.MPI_TAG, buffer);
    any |= alerting_tag(status.MPI_TAG);
  }
  return any;
}

void Progress::send(int dest, int tag, std::vector<std::byte> bytes, bool /*counted*/) {
  PendingSend& s = sends_.emplace_back();
  s.bytes = std::move(bytes);
  s.alerting = alerting_tag(tag);
  MPI_Isend(s.bytes.data(), static_cast<int>(s.bytes.size()), MPI_BYTE, dest, tag, comm_, &s.request);
}

bool Progress::complete_sends() {
  bool alerting = false;
  std::erase_if(sends_, [&alerting](PendingSend& s) {
    int done = 0;
    MPI_Test(&s.request, &done, MPI_STATUS_IGNORE);
    alerting |= done != 0 && s.alerting;
    return done != 0;
  });
  return alerting;
}

}  // namespace stealpool::mpi::detail

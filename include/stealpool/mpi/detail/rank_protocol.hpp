// stealpool/mpi/detail/rank_protocol.hpp: RankProtocol, the decisions of one
// rank in the distributed protocol (../README.md): when to hunt, which victim,
// random steals then lifeline requests, recording and serving lifeline thieves,
// Dijkstra-Safra's count and colour gathered by waves along a tree of the ranks,
// the passive test, the cancel broadcast and the termination notice. Policy only: no MPI here. It is given
// events (a message arrived; a round of decisions is due) and acts through two
// small interfaces: the rank's pool (LocalPool: dry, take_half, give, cancel,
// failed) and a Transport that carries its messages.
//
// Two transports drive it: the MPI progress thread (detail/progress.hpp,
// src/mpi/progress.cpp) and the rank simulator (sim/ranks/), which runs N of
// them over a simulated network, so the protocol that is simulated is the one
// that runs. Compiled in src/mpi/rank_protocol.cpp (into stealpool_mpi and into
// the simulator). Single-threaded: every member is called by one thread (the
// progress thread of its rank).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stealpool/mpi/detail/local_pool.hpp"
#include "stealpool/mpi/rank_metrics.hpp"
#include "stealpool/rng.hpp"

namespace stealpool::mpi::detail {

// The message kinds, also the MPI tags. Counted (Safra) are all but the wave's
// two messages and the termination notice (README.md, "Termination").
enum Tag : int {
  kStealRequest = 1,
  kStealReply,
  kLifelineRequest,
  kLifelinePush,
  kCancel,
  kWaveDown,   // a termination wave reaches a rank from its parent in the wave tree
  kWaveUp,     // a rank's report (and its subtree's) to its parent: q and colour
  kTerminate,  // down the wave tree from rank 0
  kData,       // frames a rank's tasks emitted, to rank 0's data sink ([MPI-data-before-passive])
};
inline constexpr int kTagCount = kData + 1;  // tags are 1 ... kTagCount - 1
constexpr bool counted_tag(int tag) noexcept { return tag != kWaveDown && tag != kWaveUp && tag != kTerminate; }
// Whether receiving it makes the progress thread's round busy (no nap, and the
// rank alert for kProgressAlertUs: progress_sleep.hpp). Data is not stealing:
// frames come at the pace tasks finish, and a thief is not waiting on them.
constexpr bool alerting_tag(int tag) noexcept { return tag != kData; }
const char* tag_name(int tag) noexcept;

// Carries one message to another rank. The bytes are the payload (a batch of
// tasks, a cancel's text, a wave report); `counted` is counted_tag(tag), passed on for
// the simulator's checker. Must not call back into the protocol.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual void send(int dest, int tag, std::vector<std::byte> bytes, bool counted) = 0;
};

// Deliberately broken rules, for the rank simulator's mutant tests only (its
// checker must catch each, so that it cannot pass vacuously). The MPI transport
// always uses kNone.
enum class SafraMutant {
  kNone,
  kIgnoreBlack,        // rank 0 decides on q + count alone, ignoring the colours
  kPassTokenWhenBusy,  // a rank reports to its wave while it still holds work
  kDataAfterReport,    // a rank sends its emitted data after it reported to the wave
};

struct ProtocolConfig {
  std::size_t random_steals = 0;  // DistConfig::random_steals
  std::size_t max_batch = 4096;   // DistConfig::max_batch
  std::uint64_t seed = 0x5EEDu;   // victim choice, mixed with the rank
  int wave_arity = 8;             // children per rank in the wave tree (1: a chain); >= 1
  SafraMutant mutant = SafraMutant::kNone;
};

class RankProtocol {
 public:
  RankProtocol(int rank, int size, const ProtocolConfig& config, LocalPool& pool, Transport& transport);
  RankProtocol(const RankProtocol&) = delete;
  RankProtocol& operator=(const RankProtocol&) = delete;

  // Event: a message from `source` arrived (every message, in the order the
  // transport received them; MPI keeps the order of one sender's messages).
  void receive(int source, int tag, std::vector<std::byte>& bytes);
  // Event: a round of decisions (the transport calls it after receiving and
  // whenever its rank's pool may have changed): broadcast a cancel if a task
  // failed, serve lifeline thieves if the rank has work, hunt if it ran dry,
  // report to the termination wave if passive (rank 0: start or decide a
  // wave); and pass on the data its tasks emitted. True if it did anything
  // but the data (which, as alerting_tag() says, keeps no one waiting).
  bool step();

  // The termination notice arrived, or (rank 0) termination was declared and the
  // notices are sent. The transport then stops receiving and completes its sends.
  bool terminated() const noexcept { return terminated_; }
  // Safra's passive: dry, no reply awaited, the hunt over. Only a received
  // message makes such a rank active again.
  bool passive() const noexcept;
  // A steal request of ours awaits its reply.
  bool hunting() const noexcept { return hunting_; }
  // Ranks that asked us along their lifelines wait for a push of work from us.
  bool holds_lifeline_thieves() const noexcept { return !lifeline_thieves_.empty(); }
  int rank() const noexcept { return rank_; }

  RankMetrics& metrics() noexcept { return metrics_; }
  const RankMetrics& metrics() const noexcept { return metrics_; }
  // A cancel from another rank arrived: which, and the text of its exception.
  bool remote_failure() const noexcept { return failed_rank_ >= 0; }
  int failed_rank() const noexcept { return failed_rank_; }
  const std::string& failure_text() const noexcept { return failure_text_; }
  bool cancelled() const noexcept { return cancelled_; }

 private:
  struct Report {
    std::int64_t q;      // counted messages sent minus received, summed over a subtree
    std::int64_t black;  // 1: some rank of the subtree received one since its last report
  };

  void send(int dest, int tag, std::vector<std::byte> bytes);
  std::size_t take_batch();
  void accept(const std::vector<std::byte>& bytes);
  void answer_steal(int thief);
  void on_steal_reply(const std::vector<std::byte>& bytes);
  bool serve_lifelines();
  bool hunt();
  void request_random_steal();
  void send_lifeline_requests();
  void ask_lifelines();
  bool advance_wave();
  void start_wave();
  void open_wave();
  void broadcast_cancel();
  void flush_data();

  // Immutable after construction.
  const int rank_;
  const int size_;
  const ProtocolConfig config_;
  LocalPool& pool_;
  Transport& transport_;
  std::vector<int> lifeline_buddies_;  // hypercube neighbours: rank ^ 2^k below size
  int parent_ = -1;                    // in the wave tree: (rank - 1) / arity; -1 for rank 0
  std::vector<int> children_;          // arity * rank + 1 ... arity * rank + arity, below size

  XorShift64 rng_;
  std::int64_t count_ = 0;       // Safra: counted messages sent minus received
  bool black_ = false;           // Safra: received a late counted message since its last report
  // Waves this rank reported to (rank 0: decided); every counted message carries
  // its sender's, and a receiver turns black only for one above its own
  // ([MPI-late-stamp], README.md, "Termination").
  std::uint64_t waves_reported_ = 0;
  bool in_wave_ = false;         // a wave reached us (rank 0: we started one) and we have not reported
  std::size_t replies_due_ = 0;  // children of ours yet to report to this wave
  Report subtree_{0, 0};         // what the children reported to this wave, summed
  bool terminated_ = false;
  bool hunting_ = false;         // a steal request of ours awaits its reply
  bool hunt_done_ = false;       // random steals failed and lifeline requests are out: passive
  bool asked_ahead_ = false;     // ran low and asked its lifelines; no push since ([MPI-refill-ahead])
  std::size_t attempts_left_ = 0;
  std::vector<bool> lifeline_registered_;  // [buddy index]: our lifeline request is pending there
  std::vector<int> lifeline_thieves_;      // ranks whose lifeline request we hold
  bool cancelled_ = false;
  bool cancel_sent_ = false;
  int failed_rank_ = -1;
  std::string failure_text_;
  std::vector<std::byte> scratch_;  // batch message being built by take_batch
  std::vector<std::byte> data_;     // emitted frames taken from the pool, being sent
  RankMetrics metrics_;
};

}  // namespace stealpool::mpi::detail

// sim/ranks/rank_sim_test.cpp: the rank simulator running the real RankProtocol
// (README.md in this folder): exact counts at 1 to 1,024 ranks, termination with
// steal replies and lifeline pushes crossing the wave, waves of every arity, one rank holding all the
// work, a cancel, determinism, refused settings. Behaviour only: every check is
// a count or an invariant, never a time. Also one rank's protocol alone, with a
// fake pool and transport, for the order of its messages in one step.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "rank_sim.hpp"
#include "stealpool/mpi/detail/frames.hpp"
#include "stealpool/mpi/detail/progress_sleep.hpp"
#include "stealpool/mpi/detail/take_by_weight.hpp"

namespace stealpool::sim::ranks {
namespace {

using mpi::detail::kLifelinePush;
using mpi::detail::kStealReply;

RankSimConfig small(const workloads::UtsTree& tree, int ranks, int workers, std::uint64_t seed) {
  RankSimConfig c;
  c.tree = tree;
  c.ranks = ranks;
  c.workers = workers;
  c.node_cost_s = calibrated_node_cost_s(tree);
  c.seed = seed;
  c.jitter = 1;  // latencies between 1 and 2 x 1.5 us: more interleavings per seed
  return c;
}

std::string violations(const RankSimResult& r) {
  std::string all;
  for (const std::string& v : r.violations) all.append(v).append("\n");
  return all;
}

// With weighed takes too ([MPI-take-by-weight]): a take sends part of what it
// took and leaves the rest where it was.
TEST(RankSim, EveryNodeRunsExactlyOnceAt1_2_16_64And1024Ranks) {
  for (const auto* tree : {&kSmallGeometric, &kSmallBinomial}) {
    const workloads::UtsStats serial = workloads::uts_serial(*tree);
    for (int ranks : {1, 2, 16, 64, 1024}) {
      for (int workers : {1, 2}) {
        for (std::uint64_t pass = 1; pass <= 6; ++pass) {  // seeds 1-3, then again weighed
          RankSimConfig c = small(*tree, ranks, workers, (pass - 1) % 3 + 1);
          c.weigh_tasks = pass > 3;
          const RankSimResult r = run_rank_sim(c);
          SCOPED_TRACE(std::string(tree->name) + " ranks " + std::to_string(ranks) + " seed " + std::to_string(c.seed) +
                       (c.weigh_tasks ? " weighed" : ""));
          ASSERT_TRUE(r.violations.empty()) << violations(r);
          EXPECT_EQ(r.nodes, serial.nodes);
          EXPECT_EQ(r.leaves, serial.leaves);
          EXPECT_EQ(r.depth, serial.depth);
          EXPECT_EQ(r.dropped, 0u);
          std::uint64_t run = 0;
          for (const auto& m : r.per_rank) run += m.tasks_run;
          EXPECT_EQ(run, serial.nodes);
          if (ranks == 1) {
            EXPECT_EQ(r.messages, 0u);  // one rank terminates without a message
          }
        }
      }
    }
  }
}

// The case Safra's colours are for: a counted message reaching a rank after it
// reported to the wave under way. Steal replies and lifeline pushes must both
// do so on these seeds, and termination must still wait for them.
TEST(RankSim, TerminationWaitsForStealRepliesAndLifelinePushesThatCrossTheWave) {
  std::uint64_t replies = 0, pushes = 0;
  for (int ranks : {3, 16}) {
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
      RankSimConfig c = small(kSmallBinomial, ranks, 1, seed);
      c.protocol.random_steals = 2;  // steal replies as well as lifeline pushes
      const RankSimResult r = run_rank_sim(c);
      ASSERT_TRUE(r.violations.empty()) << "seed " << seed << "\n" << violations(r);
      ASSERT_EQ(r.nodes, r.per_rank.empty() ? 0u : workloads::uts_serial(kSmallBinomial).nodes);
      replies += r.crossings[kStealReply];
      pushes += r.crossings[kLifelinePush];
    }
  }
  EXPECT_GT(replies, 0u) << "no steal reply crossed a wave: the test lost its point";
  EXPECT_GT(pushes, 0u) << "no lifeline push crossed a wave: the test lost its point";
}

// The wave tree's shape does not change the outcome: from a chain (arity 1)
// through the default 8 to a star (every rank a child of rank 0), every node runs
// once and termination is declared only when it holds; a wave costs one wave-down
// and one wave-up per rank but rank 0.
TEST(RankSim, TerminationHoldsForEveryWaveTreeFromAChainToAStar) {
  const workloads::UtsStats serial = workloads::uts_serial(kSmallGeometric);
  for (int arity : {1, 2, 8, 63}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      RankSimConfig c = small(kSmallGeometric, 64, 1, seed);
      c.protocol.wave_arity = arity;
      const RankSimResult r = run_rank_sim(c);
      SCOPED_TRACE("arity " + std::to_string(arity) + " seed " + std::to_string(seed));
      ASSERT_TRUE(r.violations.empty()) << violations(r);
      EXPECT_EQ(r.nodes, serial.nodes);
      EXPECT_GE(r.token_waves, 1u);
      std::uint64_t sent = 0;
      for (const auto& m : r.per_rank) sent += m.messages_sent;
      // At least the waves' own messages (2 per rank but 0, per wave) and the notices.
      EXPECT_GE(sent, r.token_waves * 2 * 63 + 63);
    }
  }
}

TEST(RankSim, ARankThatStartsWithAllTheWorkFeedsRanksThatStartWithNone) {
  const workloads::UtsStats serial = workloads::uts_serial(kSmallGeometric);
  for (int start : {0, 7, 15}) {  // rank 0 (the wave tree's root), a middle rank, the last
    RankSimConfig c = small(kSmallGeometric, 16, 1, 5);
    c.start_rank = start;
    const RankSimResult r = run_rank_sim(c);
    ASSERT_TRUE(r.violations.empty()) << violations(r);
    EXPECT_EQ(r.nodes, serial.nodes);
    for (std::size_t rank = 0; rank < r.per_rank.size(); ++rank) {
      EXPECT_GT(r.per_rank[rank].tasks_run, 0u) << "rank " << rank << " never got work (start " << start << ")";
      if (static_cast<int>(rank) != start) {
        EXPECT_GT(r.per_rank[rank].batches_stolen, 0u);
      }
    }
  }
}

TEST(RankSim, ACancelReachesEveryRankAndTheRunStillTerminates) {
  const workloads::UtsStats serial = workloads::uts_serial(kSmallGeometric);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RankSimConfig c = small(kSmallGeometric, 16, 2, seed);
    c.fail_rank = static_cast<int>(seed % 16);
    c.fail_after = 1 + seed * 7;
    const RankSimResult r = run_rank_sim(c);
    // The checker asserts termination, no message left, no node twice, and that
    // every rank learned of the failure (the failing rank's own, or a cancel).
    ASSERT_TRUE(r.violations.empty()) << "seed " << seed << "\n" << violations(r);
    EXPECT_LT(r.nodes, serial.nodes);
  }
}

// The transport's rounds and sleeps (Progress::run()'s policy) in place of a
// thread that answers at once: messages wait in the inbox for the next round,
// and the same invariants must hold, a cancel included.
TEST(RankSim, WithTheProgressThreadsSleepsCountsStayExactAndACancelStillEndsTheRun) {
  const workloads::UtsStats serial = workloads::uts_serial(kSmallBinomial);
  for (int ranks : {1, 2, 16, 64}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      RankSimConfig c = small(kSmallBinomial, ranks, 2, seed);
      c.sleeping_progress = true;
      const RankSimResult r = run_rank_sim(c);
      ASSERT_TRUE(r.violations.empty()) << "ranks " << ranks << " seed " << seed << "\n" << violations(r);
      EXPECT_EQ(r.nodes, serial.nodes);
      EXPECT_EQ(r.leaves, serial.leaves);
      RankSimConfig failing = c;
      failing.fail_rank = 0;  // it holds the root: its 5th to 15th node exists
      failing.fail_after = 5 * seed;
      const RankSimResult f = run_rank_sim(failing);
      ASSERT_TRUE(f.violations.empty()) << "cancel, ranks " << ranks << " seed " << seed << "\n" << violations(f);
      EXPECT_LT(f.nodes, serial.nodes);
    }
  }
}

// Every leaf emits a frame for rank 0 (Context::emit): each reaches rank 0's sink
// once, before it terminates, at every rank count, with answers at once or after
// the progress threads' naps, and with a cancel the run still ends cleanly.
TEST(RankSim, EveryEmittedFrameReachesRankZeroOnceBeforeItTerminates) {
  const workloads::UtsStats serial = workloads::uts_serial(kSmallBinomial);
  for (int ranks : {1, 2, 5, 16, 64}) {
    for (bool sleeping : {false, true}) {
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        RankSimConfig c = small(kSmallBinomial, ranks, 2, seed);
        c.sleeping_progress = sleeping;
        c.emit_leaves = true;
        const RankSimResult r = run_rank_sim(c);
        ASSERT_TRUE(r.violations.empty()) << "ranks " << ranks << " seed " << seed << "\n" << violations(r);
        EXPECT_EQ(r.data_frames, serial.leaves);
        RankSimConfig failing = c;
        failing.fail_rank = 0;
        failing.fail_after = 5 * seed;
        const RankSimResult f = run_rank_sim(failing);
        ASSERT_TRUE(f.violations.empty()) << "cancel, ranks " << ranks << " seed " << seed << "\n" << violations(f);
      }
    }
  }
}

// One rank's protocol with a pool that is dry and holds emitted frames, inside a
// termination wave: the step that finds it passive sends the frames to rank 0
// before its report ([MPI-data-before-passive]), so the wave's sum counts them
// until rank 0 has them. The mutant that sends them after the report is caught.
class FakePool final : public mpi::detail::LocalPool {
 public:
  bool dry() const noexcept override { return is_dry; }
  bool running_low() const noexcept override { return is_low; }
  void nap(std::chrono::microseconds) noexcept override {}
  std::size_t take_half(std::size_t, std::vector<std::byte>&) override { return 0; }
  void give(std::span<const std::byte>, std::size_t) override {}
  void cancel() noexcept override {}
  bool failed() const noexcept override { return false; }
  std::string failure_text() const override { return {}; }
  bool take_data(std::vector<std::byte>& out) override {
    out.clear();
    out.swap(frames);
    return !out.empty();
  }
  std::vector<std::byte> frames;
  bool is_dry = true;
  bool is_low = false;
};
class FakeTransport final : public mpi::detail::Transport {
 public:
  void send(int dest, int tag, std::vector<std::byte> bytes, bool) override {
    sent.emplace_back(dest, tag);
    payloads.push_back(std::move(bytes));
  }
  std::vector<std::pair<int, int>> sent;  // (dest, tag) in order
  std::vector<std::vector<std::byte>> payloads;
};

std::vector<std::pair<int, int>> step_with_data(mpi::detail::SafraMutant mutant) {
  using namespace mpi::detail;
  FakePool pool;
  FakeTransport net;
  ProtocolConfig config;
  config.random_steals = 0;  // a dry rank goes straight to its lifeline (rank 0) and is passive
  config.mutant = mutant;
  RankProtocol rank1(1, 2, config, pool, net);
  (void)rank1.step();  // dry: the lifeline request goes out, the hunt is over
  std::vector<std::byte> none;
  rank1.receive(0, kWaveDown, none);  // rank 0's wave reaches us
  const std::byte three[3] = {};
  append_frame(pool.frames, three);
  net.sent.clear();
  (void)rank1.step();
  return net.sent;
}

TEST(RankProtocolAlone, APassiveRankSendsItsDataBeforeItReportsToTheWave) {
  using namespace mpi::detail;
  const std::vector<std::pair<int, int>> ordered = {{0, kData}, {0, kWaveUp}};
  EXPECT_EQ(step_with_data(SafraMutant::kNone), ordered);
  const std::vector<std::pair<int, int>> mutant = {{0, kWaveUp}, {0, kData}};
  EXPECT_EQ(step_with_data(SafraMutant::kDataAfterReport), mutant) << "the mutant must change the order";
}

// Passing data on is not stealing: a round that only sent frames to rank 0 is
// not busy, so the progress thread keeps its nap schedule instead of staying
// alert (50 us naps) for as long as tasks emit (stealscan-mpi: every file).
TEST(RankProtocolAlone, ARoundThatOnlyPassesDataOnIsNotBusy) {
  using namespace mpi::detail;
  FakePool pool;
  pool.is_dry = false;  // the rank has work, no thief asked for any
  FakeTransport net;
  RankProtocol rank1(1, 2, ProtocolConfig{}, pool, net);
  const std::byte three[3] = {};
  append_frame(pool.frames, three);
  EXPECT_FALSE(rank1.step());
  const std::vector<std::pair<int, int>> sent = {{0, kData}};
  EXPECT_EQ(net.sent, sent);
  for (int tag = 1; tag < kTagCount; ++tag) EXPECT_EQ(alerting_tag(tag), tag != kData) << tag_name(tag);
}

// [MPI-late-stamp] A counted message ends with the waves its sender had
// reported to when it sent it, and a receiver turns black only for one whose
// sender had reported to a wave the receiver has not: a message sent before
// the wave its receiver reports to is in both counts and needs no colour.
TEST(RankProtocolAlone, OnlyAMessageSentAfterItsSenderReportedToTheWaveMakesTheReceiverBlack) {
  using namespace mpi::detail;
  auto stamped = [](std::uint64_t waves) {
    std::vector<std::byte> m(sizeof waves);
    std::memcpy(m.data(), &waves, sizeof waves);
    return m;
  };
  auto stamp_of = [](const std::vector<std::byte>& m) {
    std::uint64_t waves = 0;
    std::memcpy(&waves, m.data() + m.size() - sizeof waves, sizeof waves);
    return waves;
  };
  // The report's colour (wave-up: q, then black, 8 bytes each).
  auto black_of = [](const std::vector<std::byte>& report) {
    std::int64_t black = -1;
    std::memcpy(&black, report.data() + sizeof black, sizeof black);
    return black;
  };
  FakePool pool;  // dry
  FakeTransport net;
  RankProtocol rank1(1, 3, ProtocolConfig{}, pool, net);  // parent rank 0, no children
  (void)rank1.step();  // dry: its lifeline request to rank 0, then passive
  ASSERT_EQ(net.sent, (std::vector<std::pair<int, int>>{{0, kLifelineRequest}}));
  EXPECT_EQ(stamp_of(net.payloads[0]), 0u) << "sent before any wave";
  std::vector<std::byte> none;
  for (std::uint64_t wave = 1; wave <= 3; ++wave) {
    rank1.receive(0, kWaveDown, none);
    // Rank 2 asks along a lifeline, having reported to the waves before this
    // one (a message inside the wave's cut), or to this one too (a late one).
    const bool late = wave == 2;
    std::vector<std::byte> ask = stamped(late ? wave : wave - 1);
    rank1.receive(2, kLifelineRequest, ask);
    net.sent.clear();
    net.payloads.clear();
    (void)rank1.step();
    ASSERT_EQ(net.sent, (std::vector<std::pair<int, int>>{{0, kWaveUp}})) << "wave " << wave;
    EXPECT_EQ(black_of(net.payloads[0]), late ? 1 : 0) << "wave " << wave;
  }
  // After its third report, what it sends carries 3.
  pool.frames.resize(0);
  const std::byte three[3] = {};
  append_frame(pool.frames, three);
  net.payloads.clear();
  (void)rank1.step();
  ASSERT_EQ(net.payloads.size(), 1u);
  EXPECT_EQ(stamp_of(net.payloads[0]), 3u);
}

// [MPI-refill-ahead] A rank with work whose pool runs low asks each of its
// lifelines once, before it runs dry, and stays active; a push allows the next
// ask, made only where no request of its own is pending; a rank not low asks
// nothing.
TEST(RankProtocolAlone, ARankRunningLowAsksItsLifelinesOnceBeforeItRunsDry) {
  using namespace mpi::detail;
  FakePool pool;
  pool.is_dry = false;
  FakeTransport net;
  RankProtocol rank5(5, 8, ProtocolConfig{}, pool, net);  // lifelines 4, 7, 1
  (void)rank5.step();
  EXPECT_TRUE(net.sent.empty()) << "not low: nothing to ask";
  pool.is_low = true;
  EXPECT_TRUE(rank5.step());
  const std::vector<std::pair<int, int>> asked = {{4, kLifelineRequest}, {7, kLifelineRequest}, {1, kLifelineRequest}};
  EXPECT_EQ(net.sent, asked);
  EXPECT_EQ(rank5.metrics().hunts_ahead, 1u);
  EXPECT_FALSE(rank5.passive());
  net.sent.clear();
  (void)rank5.step();
  EXPECT_TRUE(net.sent.empty()) << "asked once per refill";
  // Rank 7 pushes one task (count 1, no task bytes: the fake pool takes none).
  std::uint64_t one = 1, stamp = 0;
  std::vector<std::byte> push(sizeof one + sizeof stamp);
  std::memcpy(push.data(), &one, sizeof one);
  std::memcpy(push.data() + sizeof one, &stamp, sizeof stamp);
  rank5.receive(7, kLifelinePush, push);
  (void)rank5.step();
  const std::vector<std::pair<int, int>> again = {{7, kLifelineRequest}};
  EXPECT_EQ(net.sent, again) << "only the lifeline that pushed is asked again";
  EXPECT_EQ(rank5.metrics().hunts_ahead, 2u);
  // Running dry now: its requests are out, so it is passive at once.
  pool.is_dry = true;
  net.sent.clear();
  (void)rank5.step();
  EXPECT_TRUE(rank5.passive());
  for (const auto& [dest, tag] : net.sent) EXPECT_NE(tag, kLifelineRequest) << "to " << dest;
}

// The progress thread's nap policy (progress_sleep.hpp), which the real loop
// and the simulator's sleeping rounds share: a rank that just ran dry does not
// nap; one someone waits on, or that was just asked for work, or that ran dry
// less than kProgressAlertUs ago, naps short; one with work
// that no rank has asked anything for kProgressCalmUs naps longest, and a
// passive one that has waited kProgressAlertUs in between.
// Where the workers probe ([MPI-worker-probe]) a rank with work naps
// kProgressProbedUs whatever it was asked: a thief's request rings it.
TEST(ProgressNaps, ARankNapsLongerTheLongerNoRankHasAskedItForAnything) {
  using namespace mpi::detail;
  constexpr unsigned kLong = 20;  // quiet rounds: every cap reached
  constexpr bool kProbed = true;
  EXPECT_EQ(progress_sleep_us(false, false, 0, kProgressCalmUs, !kProbed), 5u) << "the first quiet round naps 5 us";
  EXPECT_EQ(progress_sleep_us(false, false, 3, kProgressCalmUs, !kProbed), 40u) << "doubling";
  EXPECT_EQ(progress_sleep_us(false, true, kLong, kProgressCalmUs, !kProbed), 50u) << "our steal request awaits its reply";
  EXPECT_EQ(progress_sleep_us(false, false, kLong, 0, !kProbed), 50u) << "just did something: alert";
  EXPECT_EQ(progress_sleep_us(false, false, kLong, kProgressAlertUs - 1, !kProbed), 50u);
  EXPECT_EQ(progress_sleep_us(false, false, kLong, kProgressAlertUs, !kProbed), 400u) << "has work, asked recently";
  EXPECT_EQ(progress_sleep_us(false, false, kLong, kProgressCalmUs - 1, !kProbed), 400u);
  EXPECT_EQ(progress_sleep_us(false, false, kLong, kProgressCalmUs, !kProbed), 1280u) << "has work, calm";
  EXPECT_EQ(progress_sleep_us(false, false, kLong, std::uint64_t{1} << 40, !kProbed), 1280u) << "no overflow, same cap";
  EXPECT_EQ(progress_sleep_us(true, false, 0, 0, !kProbed), 0u) << "ran dry just now: spins for its refill";
  EXPECT_EQ(progress_sleep_us(true, false, kLong, kProgressSpinUs - 1, !kProbed), 0u);
  EXPECT_EQ(progress_sleep_us(true, false, kLong, kProgressSpinUs, !kProbed), 50u) << "then alert";
  EXPECT_EQ(progress_sleep_us(true, false, kLong, kProgressAlertUs - 1, !kProbed), 50u);
  EXPECT_EQ(progress_sleep_us(true, false, kLong, kProgressAlertUs, !kProbed), 1000u) << "passive, no refill for long";
  EXPECT_EQ(progress_sleep_us(true, false, kLong, kProgressCalmUs, !kProbed), 1000u) << "passive";
}

TEST(ProgressNaps, ARankWhoseWorkersProbeNapsLongWhileItHasWorkWhateverItWasAsked) {
  using namespace mpi::detail;
  constexpr unsigned kLong = 20;
  constexpr bool kProbed = true;
  EXPECT_EQ(progress_sleep_us(false, false, 0, 0, kProbed), 5u) << "still 5 us doubling";
  EXPECT_EQ(progress_sleep_us(false, false, kLong, 0, kProbed), kProgressProbedUs) << "just asked: a probe rings it";
  EXPECT_EQ(progress_sleep_us(false, false, kLong, kProgressCalmUs, kProbed), kProgressProbedUs);
  EXPECT_EQ(progress_sleep_us(false, true, kLong, 0, kProbed), 50u) << "our own reply is awaited";
  EXPECT_EQ(progress_sleep_us(true, false, kLong, 0, kProbed), 0u) << "passive: the workers are idle, ran dry just now";
  EXPECT_EQ(progress_sleep_us(true, false, kLong, kProgressSpinUs, kProbed), 50u) << "passive: alert";
  EXPECT_EQ(progress_sleep_us(true, false, kLong, kProgressAlertUs, kProbed), 1000u) << "passive: no probe rings it";
  EXPECT_GT(kProgressProbedUs, 1280u) << "longer than any nap without probes";
}

// [MPI-worker-probe] in the model: a steal request that reaches a rank whose
// workers are running nodes is received within one probe interval and the
// bell, whatever the victim's nap; without probes it waits for the nap to end
// (up to 1.28 ms), which is what makes the check able to fail.
TEST(RankSim, AStealRequestToABusyRankIsReceivedWithinOneProbeIntervalWhenItsWorkersProbe) {
  RankSimConfig c = small(workloads::kUtsT3, 4, 1, 1);
  c.jitter = 0;
  c.sleeping_progress = true;
  c.protocol.random_steals = 2;  // steal requests, to busy ranks among others
  c.worker_probe_s = 100e-6;
  const RankSimResult probed = run_rank_sim(c);
  ASSERT_TRUE(probed.violations.empty()) << violations(probed);
  EXPECT_GT(probed.max_busy_request_wait_s, 0.0) << "no steal request reached a busy rank: the check saw nothing";
  EXPECT_LE(probed.max_busy_request_wait_s, 100e-6 + 5e-6 + 1e-9) << "the probe interval and the bell";
  c.worker_probe_s = 0;
  const RankSimResult napping = run_rank_sim(c);
  ASSERT_TRUE(napping.violations.empty()) << violations(napping);
  EXPECT_GT(napping.max_busy_request_wait_s, 300e-6) << "without probes a request waits for the victim's nap";
}

// time_s is when the last rank stopped. With the progress threads' naps, a
// nap that something cut short (the dry bell, a message) leaves its first
// wake-up behind, superseded; that wake-up must not move the clock. A lone
// rank stops one bell (5 us) and one round after its last node, not at the
// end of the nap the bell cut short (the small trees' runs left 0.2-2 ms).
TEST(RankSim, WithTheProgressThreadsSleepsTheRunEndsWhenTheLastRankStops) {
  for (const auto* tree : {&kSmallGeometric, &kSmallBinomial}) {
    RankSimConfig c = small(*tree, 1, 1, 1);
    c.sleeping_progress = true;
    const RankSimResult r = run_rank_sim(c);
    ASSERT_TRUE(r.violations.empty()) << violations(r);
    EXPECT_GT(r.time_s, r.last_node_s) << tree->name;
    EXPECT_LE(r.time_s - r.last_node_s, 5e-6 + 1e-6 + 1e-9) << tree->name << ": the bell and a round";
  }
}

// [MPI-take-by-weight]'s rule (take_by_weight.hpp), which the real rank and
// the simulator's both follow: the oldest prefix of the tasks taken whose
// weight is closest to half of theirs plus as many again at the youngest's.
TEST(TakeByWeight, EqualWeightsSendTheWholeTakeAndADepthFirstQueueItsOldestFew) {
  using mpi::detail::tasks_to_send;
  EXPECT_EQ(tasks_to_send({}), 0u);
  const std::vector<double> one{7.0};
  EXPECT_EQ(tasks_to_send(one), 1u);
  const std::vector<double> equal(9, 3.0);
  EXPECT_EQ(tasks_to_send(equal), 9u) << "alike tasks: half of the tasks is half of the work";
  // The oldest third of a depth-first queue of a tree with 4 children a node:
  // three siblings of each height, each a quarter of its parent's subtree.
  const std::vector<double> depth_first{341, 341, 341, 85, 85, 85, 21};
  EXPECT_EQ(tasks_to_send(depth_first), 2u) << "2 of the 3 oldest: half of 1,446";
  const std::vector<double> one_heavy{1000, 1, 1, 1};
  EXPECT_EQ(tasks_to_send(one_heavy), 1u);
  const std::vector<double> tie{4, 2, 2};  // 8 + 3 x 2 = 14: the prefixes of 6 and 8 are 1 from 7
  EXPECT_EQ(tasks_to_send(tie), 2u) << "the shorter prefix on a tie";
}

// On a depth-first queue of a geometric tree, half of the tasks is nearly all
// of the work: weighed, a steal sends fewer nodes a batch, and the thief keeps
// what it got for longer, so fewer batches move at all.
TEST(RankSim, WeighedTakesMoveFewerNodesOfAGeometricTreeInFewerBatches) {
  RankSimConfig c = small(kSmallGeometric, 16, 1, 1);
  const RankSimResult plain = run_rank_sim(c);
  c.weigh_tasks = true;
  const RankSimResult weighed = run_rank_sim(c);
  ASSERT_TRUE(plain.violations.empty()) << violations(plain);
  ASSERT_TRUE(weighed.violations.empty()) << violations(weighed);
  auto moved = [](const RankSimResult& r) {
    std::uint64_t batches = 0, tasks = 0;
    for (const auto& m : r.per_rank) {
      batches += m.batches_stolen;
      tasks += m.tasks_stolen;
    }
    return std::pair{batches, tasks};
  };
  const auto [plain_batches, plain_tasks] = moved(plain);
  const auto [weighed_batches, weighed_tasks] = moved(weighed);
  ASSERT_GT(weighed_batches, 0u);
  EXPECT_LT(weighed_tasks * plain_batches, plain_tasks * weighed_batches) << "fewer nodes a batch";
  EXPECT_LT(weighed_batches, plain_batches);
}

// A rank that runs dry asks its lifelines in that round, and nothing wakes its
// napping progress thread when the push that refills it arrives
// (progress_sleep.hpp). So for kProgressSpinUs it goes round without napping,
// and takes a batch that comes then within a round (1 us in the model; up to
// 40 us with the 5 us doubling naps of before); after that it naps at most
// 50 us for kProgressAlertUs (up to 1 ms before). A one-way latency of 20-40 us
// brings batches in both spells: the same runs left them waiting 133-148 us
// with the passive naps at 1 ms.
TEST(RankSim, WithTheProgressThreadsSleepsADryRankTakesItsRefillWithinARoundThenWithinAnAlertNap) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    RankSimConfig c = small(kSmallBinomial, 64, 1, seed);
    c.sleeping_progress = true;
    c.latency_s = 20e-6;  // x (1 + jitter U[0,1))
    const RankSimResult r = run_rank_sim(c);
    ASSERT_TRUE(r.violations.empty()) << violations(r);
    EXPECT_GT(r.spin_refills, 0u) << "seed " << seed << ": no batch reached a rank that had just run dry";
    EXPECT_LE(r.max_spin_refill_wait_s, 1e-6 + 1e-9) << "seed " << seed << ": longer than a round";
    EXPECT_GT(r.max_dry_refill_wait_s, 0.0) << "seed " << seed << ": no batch reached a dry rank";
    EXPECT_LE(r.max_dry_refill_wait_s, 50e-6 + 1e-9) << "seed " << seed << ": longer than an alert nap";
  }
}

// spread_s and startup_share say how much of a run's loss is the work's first
// spread: every rank starts a node, the last one early in a T1 run at 64 ranks,
// and the waits before the first node are a small share of ranks x time.
TEST(RankSim, ReportsWhenTheWorkFirstReachedEveryRank) {
  RankSimConfig c = small(workloads::kUtsT1, 64, 1, 1);
  c.jitter = 0;
  const RankSimResult r = run_rank_sim(c);
  ASSERT_TRUE(r.violations.empty()) << violations(r);
  EXPECT_GT(r.spread_s, 0.0) << "64 ranks, the root on rank 0: the others wait for their first node";
  EXPECT_LT(r.spread_s, 0.1 * r.time_s);
  EXPECT_GT(r.startup_share, 0.0);
  EXPECT_LT(r.startup_share, 1.0 - r.efficiency) << "a part of the loss, not more than all of it";
}

TEST(RankSim, ItsTimelineOfBusyWorkersAddsUpToTheEfficiency) {
  RankSimConfig c = small(kSmallGeometric, 16, 1, 1);  // 0.2 ms simulated: a tenth is about 140 nodes' time
  c.jitter = 0;
  const RankSimResult r = run_rank_sim(c);
  ASSERT_TRUE(r.violations.empty()) << violations(r);
  double sum = 0;
  for (const double b : r.busy_by_tenth) {
    EXPECT_GE(b, 0.0);
    EXPECT_LE(b, 1.01) << "a node counts in the tenth where the node-long slot it ends in starts, so a tenth "
                          "may hold one node more per worker";
    sum += b;
  }
  EXPECT_NEAR(sum / 10, r.efficiency, 1e-9) << "the tenths share out the same busy time";
  EXPECT_LT(r.busy_by_tenth[0], r.busy_by_tenth[4]) << "16 ranks start with one root: the first tenth spreads the work";
}

TEST(RankSim, ItsQueuedNodesPerWorkerAtOneWorkerAreTheDepthFirstWalksStack) {
  // One worker pops the newest node and queues its children when it finishes:
  // while a node runs, the queue is a depth-first walk's stack without it.
  std::vector<workloads::UtsNode> stack{workloads::uts_root(kSmallBinomial)}, children;
  double stacked = 0, nodes = 0;
  while (!stack.empty()) {
    const workloads::UtsNode node = stack.back();
    stack.pop_back();
    stacked += static_cast<double>(stack.size());
    ++nodes;
    workloads::uts_children(kSmallBinomial, node, children);
    stack.insert(stack.end(), children.begin(), children.end());
  }
  const RankSimResult r = run_rank_sim(small(kSmallBinomial, 1, 1, 1));
  ASSERT_TRUE(r.violations.empty()) << violations(r);
  EXPECT_NEAR(r.queued_per_worker, stacked / nodes, 1e-9 * stacked / nodes);
  EXPECT_GT(r.queued_per_worker, 1.0);
}

TEST(RankSim, ARunLongerThanItsEventGuardIsReportedAsALivelock) {
  RankSimConfig c = small(kSmallBinomial, 4, 1, 1);
  c.max_events = 1000;
  const RankSimResult r = run_rank_sim(c);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_NE(r.violations.front().find("liveness: no termination after 1000 events"), std::string::npos)
      << r.violations.front();
}

// [MPI-refill-ahead] in the simulated runs: ranks ask ahead when they run low,
// and never with refill_ahead 0; every node still runs once (checked by the
// simulator on each run).
TEST(RankSim, RanksRunningLowAskTheirLifelinesAheadOnlyWhenConfigured) {
  for (std::size_t ahead : {std::size_t{0}, std::size_t{4}}) {
    RankSimConfig c = small(kSmallGeometric, 16, 1, 1);
    c.refill_ahead = ahead;
    const RankSimResult r = run_rank_sim(c);
    ASSERT_TRUE(r.violations.empty()) << violations(r);
    std::uint64_t hunts_ahead = 0;
    for (const mpi::RankMetrics& m : r.per_rank) hunts_ahead += m.hunts_ahead;
    if (ahead == 0) EXPECT_EQ(hunts_ahead, 0u);
    else EXPECT_GT(hunts_ahead, 16u) << "most ranks run low more than once";
  }
}

TEST(RankSim, ASeedGivesTheSameRunEveryTime) {
  const RankSimResult a = run_rank_sim(small(kSmallBinomial, 16, 2, 9));
  const RankSimResult b = run_rank_sim(small(kSmallBinomial, 16, 2, 9));
  const RankSimResult other = run_rank_sim(small(kSmallBinomial, 16, 2, 10));
  EXPECT_EQ(a.time_s, b.time_s);
  EXPECT_EQ(a.messages, b.messages);
  EXPECT_EQ(a.events, b.events);
  EXPECT_TRUE(a.messages != other.messages || a.time_s != other.time_s) << "the seed changes nothing";
}

TEST(RankSim, BadSettingsAreRefusedNamingTheValue) {
  auto refused = [](RankSimConfig c, const std::string& expected) {
    try {
      (void)run_rank_sim(c);
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "accepted; expected: " << expected;
  };
  RankSimConfig c = small(kSmallGeometric, 4, 1, 1);
  RankSimConfig zero_ranks = c;
  zero_ranks.ranks = 0;
  refused(zero_ranks, "ranks must be 1..1048576, got 0");
  RankSimConfig negative = c;
  negative.latency_s = -1e-6;
  refused(negative, "latency must be >= 0 s, got -0.000001");
  RankSimConfig start = c;
  start.start_rank = 4;
  refused(start, "start rank must be 0..ranks-1, got 4");
  RankSimConfig flat = c;
  flat.protocol.wave_arity = 0;
  refused(flat, "wave_arity must be >= 1 (got 0)");
  EXPECT_THROW((void)tree_by_name("T9"), std::invalid_argument);
  try {
    (void)tree_by_name("T9");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'T9'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace stealpool::sim::ranks

// detail::SleepRegistry: who sleeps, and who wakes them. Wake-ups go only to
// announced sleepers, at most n per notify, each sleeper's bit is cleared by
// exactly one thread (the waker or the sleeper cancelling), a sleeper whose
// bit lies anywhere in a multi-word mask is found, and the latest sleeper is
// woken first.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <thread>
#include <vector>

#include "../support/test_support.hpp"
#include "stealpool/engine/sleep/sleep_registry.hpp"

namespace spd = stealpool::detail;
using namespace std::chrono_literals;

namespace {

using Registry = spd::SleepRegistry<>;

using sptest::kRace3Rounds;
using sptest::kRaceRounds;

// Whether worker w's parker holds a token (consumes it).
bool has_token(Registry& r, std::size_t w) { return r.parker(w).park(0ns); }

TEST(SleepRegistry, NotifyWithNobodySleepingWakesNobody) {
  Registry r(4);
  EXPECT_EQ(r.notify(1), 0u);
  EXPECT_EQ(r.notify(4), 0u);
  for (std::size_t w = 0; w < 4; ++w) EXPECT_FALSE(has_token(r, w)) << "worker " << w << " got a token";
  EXPECT_EQ(r.sleeping_hint(), 0u);
}

TEST(SleepRegistry, NotifyZeroWakesNobodyEvenIfSomeoneSleeps) {
  Registry r(2);
  r.announce(1);
  EXPECT_EQ(r.notify(0), 0u);
  EXPECT_FALSE(has_token(r, 1));
  EXPECT_TRUE(r.cancel(1));
}

TEST(SleepRegistry, AnnounceThenNotifyWakesExactlyThatWorker) {
  for (std::size_t sleeper = 0; sleeper < 5; ++sleeper) {
    Registry r(5);
    r.announce(sleeper);
    EXPECT_EQ(r.sleeping_hint(), 1u);
    EXPECT_EQ(r.notify(1), 1u);
    for (std::size_t w = 0; w < 5; ++w) EXPECT_EQ(has_token(r, w), w == sleeper) << "worker " << w;
    EXPECT_FALSE(r.cancel(sleeper)) << "the waker cleared the bit; the sleeper must see that";
    EXPECT_EQ(r.sleeping_hint(), 0u);
    EXPECT_EQ(r.notify(1), 0u) << "a sleeper was woken twice";
  }
}

TEST(SleepRegistry, CancelWithoutAWakerClearsOwnBit) {
  Registry r(3);
  r.announce(2);
  EXPECT_TRUE(r.cancel(2));
  EXPECT_EQ(r.sleeping_hint(), 0u);
  EXPECT_FALSE(r.cancel(2)) << "a bit was cleared twice";
  EXPECT_EQ(r.notify(3), 0u);
  EXPECT_FALSE(has_token(r, 2));
}

TEST(SleepRegistry, NotifyNWakesAtMostN) {
  Registry r(6);
  for (std::size_t w : {0u, 2u, 3u, 5u}) r.announce(w);
  EXPECT_EQ(r.notify(3), 3u);
  std::size_t tokens = 0, still_mine = 0;
  for (std::size_t w = 0; w < 6; ++w) tokens += has_token(r, w);
  for (std::size_t w : {0u, 2u, 3u, 5u}) still_mine += r.cancel(w);
  EXPECT_EQ(tokens, 3u);
  EXPECT_EQ(still_mine, 1u) << "exactly one sleeper should still own its bit";
  EXPECT_EQ(r.sleeping_hint(), 0u);
}

TEST(SleepRegistry, NotifyMoreThanSleepingWakesOnlyTheSleepers) {
  Registry r(4);
  r.announce(1);
  r.announce(3);
  EXPECT_EQ(r.notify(10), 2u);
  EXPECT_TRUE(has_token(r, 1));
  EXPECT_TRUE(has_token(r, 3));
  EXPECT_FALSE(has_token(r, 0));
  EXPECT_FALSE(has_token(r, 2));
}

// The scan starts at the latest worker to announce, which may have cancelled
// since: a lone sleeper anywhere else, below the start in its word or in
// another word, must still be found (and with one worker, where the start is
// the sleeper itself, found there).
TEST(SleepRegistry, ALoneSleeperIsFoundWhereverTheScanStarts) {
  for (std::size_t workers : {1u, 2u, 7u, 64u, 65u, 130u, 200u}) {
    Registry r(workers);
    for (std::size_t i = 0; i < 3 * workers; ++i) {
      const std::size_t w = (i * 37) % workers;
      const std::size_t start = (i * 11 + 1) % workers;
      r.announce(w);
      if (start != w) {
        r.announce(start);  // the scan's start now
        ASSERT_TRUE(r.cancel(start));
      }
      ASSERT_EQ(r.notify(1), 1u) << "workers " << workers << " sleeper " << w << " start " << start;
      ASSERT_TRUE(has_token(r, w));
      if (start != w) {
        ASSERT_FALSE(has_token(r, start));
      }
      ASSERT_FALSE(r.cancel(w));
    }
  }
}

// One wake-up goes to the worker that announced last, the one idle the
// shortest time, wherever its bit lies.
TEST(SleepRegistry, OneWakeUpGoesToTheLatestSleeper) {
  for (std::size_t workers : {4u, 64u, 150u}) {
    Registry r(workers);
    const std::vector<std::size_t> order = {workers - 1, 0, 1, workers / 2};
    for (std::size_t w : order) r.announce(w);
    ASSERT_EQ(r.notify(1), 1u);
    for (std::size_t w = 0; w < workers; ++w)
      ASSERT_EQ(has_token(r, w), w == order.back()) << "workers " << workers << ", worker " << w;
  }
}

TEST(SleepRegistry, MultiWordMaskWakesEverySleeperOnce) {
  Registry r(150);
  const std::vector<std::size_t> sleepers = {0, 63, 64, 65, 127, 128, 149};
  for (std::size_t w : sleepers) r.announce(w);
  EXPECT_EQ(r.sleeping_hint(), sleepers.size());
  EXPECT_EQ(r.notify(150), sleepers.size());
  for (std::size_t w = 0; w < 150; ++w) {
    const bool expected = std::find(sleepers.begin(), sleepers.end(), w) != sleepers.end();
    ASSERT_EQ(has_token(r, w), expected) << "worker " << w;
  }
}

TEST(SleepRegistry, UnparkAllGivesEveryWorkerAToken) {
  Registry r(3);
  r.announce(1);
  r.unpark_all();
  for (std::size_t w = 0; w < 3; ++w) EXPECT_TRUE(has_token(r, w)) << "worker " << w;
  EXPECT_TRUE(r.cancel(1)) << "unpark_all must not claim sleep bits";
}

// The race the protocol resolves with fetch_and: a sleeper cancelling (it found
// work) against a producer waking it. Exactly one of them clears the bit; if the
// waker did, the sleeper's parker holds the token.
TEST(SleepRegistryRace, CancelVersusWakeClearsTheBitExactlyOnce) {
  std::optional<Registry> r;
  bool cancelled = false;
  std::size_t woken = 0;
  int cancel_won = 0;  // for the XML report only
  sptest::repeat_race(
      kRaceRounds,
      [&](int) {
        r.emplace(2);
        r->announce(1);
      },
      {[&] { cancelled = r->cancel(1); }, [&] { woken = r->notify(1); }},
      [&](int round) {
        ASSERT_EQ(static_cast<int>(cancelled) + static_cast<int>(woken), 1) << "round " << round;
        ASSERT_EQ(has_token(*r, 1), woken == 1) << "round " << round;
        ASSERT_EQ(r->sleeping_hint(), 0u);
        cancel_won += cancelled;
      });
  RecordProperty("cancel_won", cancel_won);
}

TEST(SleepRegistryRace, ConcurrentNotifiersNeverWakeOneSleeperTwice) {
  std::optional<Registry> r;
  std::size_t a = 0, b = 0, c = 0;
  sptest::repeat_race(
      kRace3Rounds,
      [&](int) {
        r.emplace(4);
        r->announce(0);
        r->announce(2);
      },
      {[&] { a = r->notify(1); }, [&] { b = r->notify(1); }, [&] { c = r->notify(1); }},
      [&](int round) {
        ASSERT_EQ(a + b + c, 2u) << "round " << round;
        ASSERT_TRUE(has_token(*r, 0));
        ASSERT_TRUE(has_token(*r, 2));
        ASSERT_EQ(r->sleeping_hint(), 0u);
      });
}

// The full sleeper/producer handshake with real threads: a sleeper that announces,
// re-checks a flag and parks forever must always be woken by a producer that sets
// the flag and notifies (a lost wake-up would hang; the watchdog aborts). Its
// limit is generous: each round needs both threads on a CPU at once, and under
// ctest -j2 beside busy tests the rounds have taken over a minute in all.
TEST(SleepRegistryRace, DekkerHandshakeNeverStrandsPublishedWork) {
  sptest::Watchdog dog("DekkerHandshakeNeverStrandsPublishedWork", 240s);
  std::optional<Registry> r;
  std::atomic<bool> work{false};
  int parks = 0;  // written by the sleeper only
  sptest::repeat_race(
      kRaceRounds,
      [&](int) {
        r.emplace(1);
        work.store(false, std::memory_order::relaxed);
      },
      {
          [&] {  // the sleeper
            for (;;) {
              r->announce(0);
              if (work.load(std::memory_order::relaxed)) {  // the re-check, after the fence
                (void)r->cancel(0);
                return;
              }
              ++parks;
              (void)r->parker(0).park(spd::Parker::kForever);
              (void)r->cancel(0);
            }
          },
          [&] {  // the producer
            work.store(true, std::memory_order::relaxed);  // publish
            (void)r->notify(1);
          },
      },
      [&](int) {});
  RecordProperty("parks", parks);
}

}  // namespace

TEST(SleepRegistry, AnnounceReturnsHowManyWorkersAreAnnouncedNow) {
  stealpool::detail::SleepRegistry<> reg(3);
  EXPECT_EQ(reg.announce(0), 1u);
  EXPECT_EQ(reg.announce(2), 2u);
  EXPECT_TRUE(reg.cancel(0));
  EXPECT_EQ(reg.announce(1), 2u);
  EXPECT_EQ(reg.announce(0), 3u);  // the last one: every worker announced
}

// detail::StateWord: the combined gate bit + in-flight count. Sequential checks
// of each transition, overflow refusal on a deliberately narrow word, and the
// seed's four model-checked races run with real threads many times (Relacy covers
// the memory orders; these catch a broken step on this machine).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "../support/test_support.hpp"
#include "stealpool/engine/core/state_word.hpp"

namespace spd = stealpool::detail;
using Narrow = spd::StateWord<spd::StdSync, std::uint8_t>;
using Wide = spd::StateWord<>;
using spd::Terminal;

namespace {

using sptest::kRace3Rounds;
using sptest::kRaceRounds;

TEST(StateWord, StartsAcceptingWithZeroCount) {
  Wide s;
  EXPECT_TRUE(s.accepting());
  EXPECT_EQ(s.in_flight_upper_bound(), 0u);
  EXPECT_EQ(s.raw(), Wide::kAcceptingBit);
}

TEST(StateWord, AcquireCountsWhileOpenAndIsRefusedOnceClosed) {
  Wide s;
  EXPECT_TRUE(s.try_acquire_external(1));
  EXPECT_TRUE(s.try_acquire_external(5));
  EXPECT_EQ(s.in_flight_upper_bound(), 6u);
  EXPECT_EQ(s.close(), Terminal::no);  // 6 in flight
  EXPECT_FALSE(s.accepting());
  EXPECT_FALSE(s.try_acquire_external(1));
  EXPECT_EQ(s.in_flight_upper_bound(), 6u) << "a refused acquire must not count";
}

TEST(StateWord, CloseWithNothingInFlightIsTerminalExactlyOnce) {
  Wide s;
  EXPECT_EQ(s.close(), Terminal::yes);
  EXPECT_EQ(s.close(), Terminal::no) << "a second close must not signal termination again";
  EXPECT_FALSE(s.accepting());
}

TEST(StateWord, LastSettleAfterCloseIsTheOnlyTerminal) {
  Wide s;
  ASSERT_TRUE(s.try_acquire_external(3));
  EXPECT_EQ(s.settle(1), Terminal::no);  // open: never terminal
  EXPECT_EQ(s.close(), Terminal::no);
  EXPECT_EQ(s.settle(1), Terminal::no);
  EXPECT_EQ(s.settle(1), Terminal::yes);
  EXPECT_EQ(s.in_flight_upper_bound(), 0u);
  EXPECT_EQ(s.close(), Terminal::no);
}

TEST(StateWord, SettleToZeroWhileOpenIsNotTerminal) {
  Wide s;
  ASSERT_TRUE(s.try_acquire_external(2));
  EXPECT_EQ(s.settle(2), Terminal::no);
  EXPECT_TRUE(s.accepting());
  EXPECT_EQ(s.close(), Terminal::yes);
}

TEST(StateWord, InternalSpawnCountsEvenWhenClosed) {
  Wide s;
  ASSERT_TRUE(s.try_acquire_external(1));
  EXPECT_EQ(s.close(), Terminal::no);
  s.add_internal(4);  // a running task's children during the drain
  EXPECT_EQ(s.in_flight_upper_bound(), 5u);
  EXPECT_EQ(s.settle(4), Terminal::no);
  EXPECT_EQ(s.settle(1), Terminal::yes);
}

TEST(StateWord, NarrowWordRefusesOverflowWithLengthErrorInsteadOfWrapping) {
  Narrow s;
  ASSERT_EQ(Narrow::kMaxCount, 127u);
  ASSERT_TRUE(s.try_acquire_external(Narrow::kMaxCount));
  const auto before = s.raw();
  try {
    (void)s.try_acquire_external(1);
    ADD_FAILURE() << "acquire past kMaxCount did not throw";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("overflow"), std::string::npos) << e.what();
  }
  EXPECT_EQ(s.raw(), before) << "a refused acquire changed the word";
  EXPECT_EQ(s.in_flight_upper_bound(), Narrow::kMaxCount);
  EXPECT_TRUE(s.accepting()) << "the count carried into the gate bit";
  // The word still works: settle everything and terminate normally.
  EXPECT_EQ(s.settle(Narrow::kMaxCount), Terminal::no);
  EXPECT_EQ(s.close(), Terminal::yes);
}

TEST(StateWord, NarrowWordRefusesABatchLargerThanTheField) {
  Narrow s;
  EXPECT_THROW((void)s.try_acquire_external(Narrow::kMaxCount + 1), std::length_error);
  EXPECT_THROW((void)s.try_acquire_external(255), std::length_error);
  EXPECT_EQ(s.raw(), Narrow::kAcceptingBit);
  ASSERT_TRUE(s.try_acquire_external(100));
  EXPECT_THROW((void)s.try_acquire_external(28), std::length_error);
  EXPECT_TRUE(s.try_acquire_external(27));
  EXPECT_EQ(s.in_flight_upper_bound(), 127u);
}

TEST(StateWordDeathTest, InternalOverflowAbortsLoudly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        Narrow s;
        (void)s.try_acquire_external(100);
        s.add_internal(64);
      },
      "overflow");
}

TEST(StateWordDeathTest, SettlingMoreThanInFlightAbortsLoudly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        Wide s;
        (void)s.try_acquire_external(1);
        (void)s.settle(2);
      },
      "negative");
}

// --- the seed's four races, with real threads -------------------------------

TEST(StateWordRace, SpawnVersusCloseGateIsAtomic) {
  std::optional<Narrow> s;
  bool spawned = false;
  Terminal closed = Terminal::no;
  int spawn_won = 0;  // how often each side won, for the XML report only
  sptest::repeat_race(
      kRaceRounds, [&](int) { s.emplace(); },
      {[&] { spawned = s->try_acquire_external(1); }, [&] { closed = s->close(); }},
      [&](int round) {
        // Either the spawn got in before the gate closed (then close cannot be
        // terminal and the task's settle is), or it was refused (then close is).
        int terminals = closed == Terminal::yes ? 1 : 0;
        ASSERT_EQ(s->in_flight_upper_bound(), spawned ? 1u : 0u) << "round " << round;
        if (spawned) terminals += s->settle(1) == Terminal::yes ? 1 : 0;
        ASSERT_EQ(terminals, 1) << "round " << round << " spawned=" << spawned;
        ASSERT_FALSE(s->accepting());
        ASSERT_FALSE(s->try_acquire_external(1)) << "spawn accepted after close";
        spawn_won += spawned;
      });
  RecordProperty("spawn_won", spawn_won);
}

TEST(StateWordRace, CompletionVersusCloseTerminatesExactlyOnce) {
  std::optional<Narrow> s;
  Terminal settled = Terminal::no, closed = Terminal::no;
  sptest::repeat_race(
      kRaceRounds,
      [&](int) {
        s.emplace();
        ASSERT_TRUE(s->try_acquire_external(1));
      },
      {[&] { settled = s->settle(1); }, [&] { closed = s->close(); }},
      [&](int round) {
        ASSERT_EQ((settled == Terminal::yes) + (closed == Terminal::yes), 1) << "round " << round;
        ASSERT_EQ(s->raw(), 0u);
      });
}

TEST(StateWordRace, ConcurrentSpawnsLoseNoCount) {
  std::optional<Narrow> s;
  bool a = false, b = false, c = false;
  sptest::repeat_race(
      kRace3Rounds, [&](int) { s.emplace(); },
      {[&] { a = s->try_acquire_external(1); }, [&] { b = s->try_acquire_external(1); },
       [&] { c = s->try_acquire_external(2); }},
      [&](int round) {
        ASSERT_TRUE(a && b && c);
        ASSERT_EQ(s->in_flight_upper_bound(), 4u) << "round " << round;
        ASSERT_TRUE(s->accepting());
      });
}

TEST(StateWordRace, ThreeWaySpawnCompleteCloseEndsTerminalOnce) {
  std::optional<Narrow> s;
  bool spawned = false;
  Terminal by_spawner = Terminal::no, by_completion = Terminal::no, by_close = Terminal::no;
  sptest::repeat_race(
      kRace3Rounds,
      [&](int) {
        s.emplace();
        ASSERT_TRUE(s->try_acquire_external(1));  // one task already in flight
        by_spawner = Terminal::no;
      },
      {
          [&] {
            spawned = s->try_acquire_external(1);
            if (spawned) by_spawner = s->settle(1);  // the new task runs and finishes
          },
          [&] { by_completion = s->settle(1); },
          [&] { by_close = s->close(); },
      },
      [&](int round) {
        const int terminals =
            (by_spawner == Terminal::yes) + (by_completion == Terminal::yes) + (by_close == Terminal::yes);
        ASSERT_EQ(terminals, 1) << "round " << round << " spawned=" << spawned;
        ASSERT_EQ(s->raw(), 0u) << "round " << round;
      });
}

}  // namespace

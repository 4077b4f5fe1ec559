// Fork-join stress (label `stress`, run serially; sizes divided by
// STEALPOOL_STRESS_SCALE under sanitizers): fib(27) with a join at every call,
// repeated on 2, 8 and 32 workers; a tree of 10^5 TaskGroup tasks, every inner
// task spawning into a group of its own; pools created and destroyed a thousand
// times, each running a small join.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "../support/forkjoin_workloads.hpp"
#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using namespace std::chrono_literals;

namespace {

using sptest::worker_count_name;


class ForkJoinFibRepeated : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ForkJoinFibRepeated, Fib27TwentyTimesGivesTheRightValueEveryTime) {
  sptest::Watchdog dog("ForkJoinFibRepeated.Fib27", 600s);
  sp::ThreadPool pool(GetParam());
  // fib(27) is 6 * 10^5 joins; sanitizers repeat it fewer times.
  const int reps = static_cast<int>(sptest::scaled(20, 2));
  for (int r = 0; r < reps; ++r)
    ASSERT_EQ(pool.run([] { return sptest::fib_join(27); }), sptest::fib_serial(27)) << "repetition " << r;
}

INSTANTIATE_TEST_SUITE_P(Workers, ForkJoinFibRepeated, ::testing::Values(2, 8, 32),
                         [](const auto& info) { return worker_count_name(info.param); });

// A tree of TaskGroups: each inner task creates its own group, spawns `fanout`
// children into it (each child may do the same) and waits; the leaves count.
// Every task also spawns one extra task into its parent's group, so tasks spawn
// into groups other than their own as well.
struct GroupTree {
  std::atomic<std::uint64_t> tasks{0};
  std::atomic<std::uint64_t> extras{0};
  int fanout;
  int depth;

  void node(int level, sp::TaskGroup* parent) {
    tasks.fetch_add(1, std::memory_order::relaxed);
    if (parent != nullptr && level % 2 == 0)
      parent->spawn([this] { extras.fetch_add(1, std::memory_order::relaxed); });
    if (level == depth) return;
    sp::TaskGroup tg;
    for (int i = 0; i < fanout; ++i) tg.spawn([this, level, &tg] { node(level + 1, &tg); });
    (void)tg.wait();
  }
  std::uint64_t expected_tasks() const {
    std::uint64_t total = 0, level_size = 1;
    for (int l = 0; l <= depth; ++l, level_size *= static_cast<std::uint64_t>(fanout)) total += level_size;
    return total;
  }
  std::uint64_t expected_extras() const {
    std::uint64_t total = 0, level_size = 1;
    for (int l = 0; l <= depth; ++l, level_size *= static_cast<std::uint64_t>(fanout))
      if (l > 0 && l % 2 == 0) total += level_size;
    return total;
  }
};

TEST(ForkJoinStress, TaskGroupsSpawningFromInsideTasksRunEveryTaskOnce) {
  sptest::Watchdog dog("ForkJoinStress.GroupTree", 600s);
  // fanout 10, depth 5: 111,111 tasks, plus 10,100 extras.
  for (std::size_t workers : {2, 8}) {
    sp::ThreadPool pool(workers);
    GroupTree tree;
    tree.fanout = 10;
    tree.depth = 5;
    pool.run([&] { tree.node(0, nullptr); });
    EXPECT_EQ(tree.tasks.load(), tree.expected_tasks()) << workers << " workers";
    EXPECT_EQ(tree.extras.load(), tree.expected_extras()) << workers << " workers";
  }
}

TEST(ForkJoinStress, PoolsCreatedAndDestroyedAThousandTimesEachRunAJoin) {
  sptest::Watchdog dog("ForkJoinStress.CreateDestroy", 600s);
  const int rounds = static_cast<int>(sptest::scaled(1000, 50));
  for (int r = 0; r < rounds; ++r) {
    sp::PoolOptions o = sp::PoolOptions::with_workers(1 + static_cast<std::size_t>(r % 4));
    o.config.pin_threads = false;
    sp::ThreadPool pool(o);
    auto [a, b] = pool.run([] { return sp::join([] { return sptest::fib_join(8); }, [] { return 2; }); });
    ASSERT_EQ(a + b, 23) << "round " << r;
    if (r % 3 == 0) {  // and some TaskGroup traffic from outside, destroyed right after
      std::atomic<int> ran{0};
      sp::TaskGroup tg(pool);
      for (int i = 0; i < 4; ++i) tg.spawn([&] { ran.fetch_add(1); });
      ASSERT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
      ASSERT_EQ(ran.load(), 4);
    }
  }
}

}  // namespace

// stealpool::join(): results (fib, N-queens), deep unbalanced recursions on
// default and large stacks, join from outside any pool (default_pool()), nesting
// with TaskGroup and run(), exceptions from either or both branches, void and
// move-only results.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "../support/forkjoin_workloads.hpp"
#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using namespace std::chrono_literals;

namespace {

using sptest::unpinned;
using sptest::worker_count_name;



TEST(ForkJoinJoin, FibWithAJoinAtEveryCallGivesTheRightValues) {
  sptest::Watchdog dog("ForkJoinJoin.Fib");
  sp::ThreadPool pool(unpinned(2));
  for (int n = 0; n <= 27; n += (n < 20 ? 5 : 1)) {
    EXPECT_EQ(pool.run([n] { return sptest::fib_join(n); }), sptest::fib_serial(n)) << "fib(" << n << ")";
  }
}

TEST(ForkJoinJoin, NQueensWithJoinsCountsEverySolutionForOneToTwelve) {
  sptest::Watchdog dog("ForkJoinJoin.NQueens");
  sp::ThreadPool pool(unpinned(2));
  for (int n = 1; n <= 12; ++n) {
    EXPECT_EQ(pool.run([n] { return sptest::nqueens_join(n); }), sptest::kQueens[static_cast<std::size_t>(n)])
        << "n = " << n;
  }
}

TEST(ForkJoinJoin, SerialReferencesAgreeWithTheTables) {
  EXPECT_EQ(sptest::fib_serial(27), 196418);
  for (int n = 1; n <= 12; ++n)
    EXPECT_EQ(sptest::nqueens_serial_from({n, 0, 0, 0, 0}), sptest::kQueens[static_cast<std::size_t>(n)]);
}

// --- deep, unbalanced recursion ----------------------------------------------

TEST(ForkJoinJoin, LeftDeepChainOfDepth3000RunsOnDefaultStacks) {
  sptest::Watchdog dog("ForkJoinJoin.LeftDeepChain");
  for (std::size_t workers : {1, 2, 4}) {
    sp::ThreadPool pool(unpinned(workers));
    EXPECT_EQ(pool.run([] { return sptest::chain_left(3000); }), 3001) << workers << " workers";
  }
}

TEST(ForkJoinJoin, RightDeepChainOfDepth3000RunsOnDefaultStacks) {
  sptest::Watchdog dog("ForkJoinJoin.RightDeepChain");
  for (std::size_t workers : {1, 2, 4}) {
    sp::ThreadPool pool(unpinned(workers));
    EXPECT_EQ(pool.run([] { return sptest::chain_right(3000); }), 3001) << workers << " workers";
  }
}

TEST(ForkJoinJoin, CombOfDepth2000WithStealableSubtreesRunsOnDefaultStacks) {
  sptest::Watchdog dog("ForkJoinJoin.Comb");
  for (std::size_t workers : {2, 4}) {
    sp::ThreadPool pool(unpinned(workers));
    EXPECT_EQ(pool.run([] { return sptest::chain_comb(2000, 7); }), 2000 * sptest::fib_serial(7) + 1)
        << workers << " workers";
  }
}

TEST(ForkJoinJoin, DefaultWorkerStackIsEightMiB) {
  EXPECT_EQ(sp::ThreadOptions{}.stack_size, std::size_t{8} << 20);
}

// Depth 20000 overflows the 8192-job deque (its joins then run both branches
// inline) and needs more than the default stack.
TEST(ForkJoinJoin, DepthTwentyThousandRunsOnA64MiBStack) {
  sptest::Watchdog dog("ForkJoinJoin.Depth20000");
  for (std::size_t workers : {1, 2}) {
    sp::PoolOptions o = unpinned(workers);
    o.threads.stack_size = std::size_t{64} << 20;
    sp::ThreadPool pool(o);
    EXPECT_EQ(pool.run([] { return sptest::chain_left(20000); }), 20001) << workers << " workers";
    EXPECT_EQ(pool.run([] { return sptest::chain_right(20000); }), 20001) << workers << " workers";
  }
}

// --- where join runs ----------------------------------------------------------

TEST(ForkJoinJoin, JoinFromOutsideAnyPoolRunsBothBranchesOnTheDefaultPool) {
  sptest::Watchdog dog("ForkJoinJoin.FromOutside");
  ASSERT_FALSE(sp::current_worker_id().has_value());
  const void* def = &sp::default_pool().shared();
  auto [a, b] = sp::join([&] { return sp::detail::current_executor() == def; },
                         [&] { return sp::detail::current_executor() == def; });
  EXPECT_TRUE(a) << "branch a did not run on a default_pool() worker";
  EXPECT_TRUE(b) << "branch b did not run on a default_pool() worker";
  EXPECT_EQ(sp::join([] { return sptest::fib_join(18); }, [] { return 1; }).first, sptest::fib_serial(18));
}

TEST(ForkJoinJoin, ManyThreadsJoinFromOutsideAtOnce) {
  sptest::Watchdog dog("ForkJoinJoin.ManyOutsideThreads");
  std::atomic<int> wrong{0};
  std::vector<std::function<void()>> bodies;
  for (int t = 0; t < 4; ++t)
    bodies.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        const int n = 10 + (t + i) % 6;
        auto [x, y] = sp::join([n] { return sptest::fib_join(n); }, [n] { return sptest::fib_join(n + 1); });
        if (x + y != sptest::fib_serial(n + 2)) wrong.fetch_add(1);
      }
    });
  sptest::run_concurrently(std::move(bodies));
  EXPECT_EQ(wrong.load(), 0);
}

TEST(ForkJoinJoin, JoinNestedInATaskGroupInsideRunGivesTheRightValues) {
  sptest::Watchdog dog("ForkJoinJoin.NestedInTaskGroup");
  for (std::size_t workers : {1, 2, 4}) {
    sp::ThreadPool pool(unpinned(workers));
    std::vector<long> out(12, -1);
    pool.run([&] {
      sp::TaskGroup tg;
      for (int i = 0; i < 12; ++i)
        tg.spawn([&out, i] {
          auto [a, b] = sp::join([i] { return sptest::fib_join(8 + i); }, [i] { return sptest::nqueens_join(1 + i % 8); });
          out[static_cast<std::size_t>(i)] = a * 1000 + b;
        });
      EXPECT_EQ(tg.wait(), sp::TaskGroupStatus::complete);
    });
    for (int i = 0; i < 12; ++i)
      EXPECT_EQ(out[static_cast<std::size_t>(i)],
                sptest::fib_serial(8 + i) * 1000 + sptest::kQueens[static_cast<std::size_t>(1 + i % 8)])
          << "task " << i << ", " << workers << " workers";
  }
}

TEST(ForkJoinJoin, BranchesAcceptNamedLvalueCallablesAndMutableLambdas) {
  sp::ThreadPool pool(unpinned(2));
  int calls_a = 0, calls_b = 0;
  auto a = [&calls_a]() mutable { return ++calls_a; };
  auto b = [&calls_b] { return ++calls_b + 10; };
  auto r = pool.run([&] { return sp::join(a, b); });
  EXPECT_EQ(r.first, 1);
  EXPECT_EQ(r.second, 11);
  int counter = 0;
  auto [x, y] = pool.run([&] {
    return sp::join([counter]() mutable { return ++counter; }, [counter]() mutable { return counter += 2; });
  });
  EXPECT_EQ(x, 1);
  EXPECT_EQ(y, 2);
}

// --- results -----------------------------------------------------------------

TEST(ForkJoinJoin, VoidBranchesReturnMonostate) {
  sp::ThreadPool pool(unpinned(2));
  std::atomic<int> ran{0};
  auto r = pool.run([&] { return sp::join([&] { ran.fetch_add(1); }, [&] { ran.fetch_add(10); }); });
  static_assert(std::is_same_v<decltype(r), std::pair<std::monostate, std::monostate>>);
  EXPECT_EQ(ran.load(), 11);
  auto mixed = sp::join([] { return 5; }, [&] { ran.fetch_add(100); });  // from outside
  static_assert(std::is_same_v<decltype(mixed), std::pair<int, std::monostate>>);
  EXPECT_EQ(mixed.first, 5);
  EXPECT_EQ(ran.load(), 111);
}

TEST(ForkJoinJoin, MoveOnlyResultsComeBackThroughJoinAndRun) {
  sptest::Watchdog dog("ForkJoinJoin.MoveOnly");
  sp::ThreadPool pool(unpinned(2));
  std::pair<std::unique_ptr<int>, std::unique_ptr<std::string>> r = pool.run([] {
    return sp::join([] { return std::make_unique<int>(7); }, [] { return std::make_unique<std::string>("b"); });
  });
  ASSERT_TRUE(r.first && r.second);
  EXPECT_EQ(*r.first, 7);
  EXPECT_EQ(*r.second, "b");
  std::unique_ptr<int> p = pool.run([] { return std::make_unique<int>(42); });
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, 42);
  // Move-only callables too: the branches are called in place, never copied.
  auto owned = std::make_unique<int>(3);
  auto [sum, ignored] = sp::join([o = std::move(owned)] { return *o + 1; }, [] {});
  EXPECT_EQ(sum, 4);
  (void)ignored;
  // And a deep tree of them, so that some are produced by stolen branches.
  std::function<std::unique_ptr<long>(int)> tree = [&](int n) -> std::unique_ptr<long> {
    if (n < 2) return std::make_unique<long>(n);
    auto [a, b] = sp::join([&] { return tree(n - 1); }, [&] { return tree(n - 2); });
    return std::make_unique<long>(*a + *b);
  };
  EXPECT_EQ(*pool.run([&] { return tree(16); }), sptest::fib_serial(16));
}

// --- exceptions ----------------------------------------------------------------
//
// Each case runs twice: on 1 worker (b is popped back and run inline after a) and
// on 2 workers with a waiting until b has started elsewhere (b stolen, still
// running when a throws). Either way join() must rethrow only after both branches
// completed.

struct ErrorA : std::runtime_error {
  ErrorA() : std::runtime_error("from a") {}
};
struct ErrorB : std::runtime_error {
  ErrorB() : std::runtime_error("from b") {}
};

class ForkJoinJoinException : public ::testing::TestWithParam<std::size_t> {
 protected:
  bool stolen() const { return GetParam() > 1; }
  // In branch a: with a thief around, wait (bounded) until b runs elsewhere.
  void a_waits_for_b_to_start(const std::atomic<bool>& b_started) const {
    if (stolen()) (void)sptest::wait_until([&] { return b_started.load(); }, 10s);
  }
  // In branch b: say it started; when stolen, outlive a's throw by a little.
  void b_started_now(std::atomic<bool>& b_started) const {
    b_started.store(true);
    if (stolen()) std::this_thread::sleep_for(20ms);
  }
};

TEST_P(ForkJoinJoinException, FromBranchAIsRethrownAfterBranchBCompleted) {
  sptest::Watchdog dog("ForkJoinJoinException.FromA");
  sp::ThreadPool pool(unpinned(GetParam()));
  std::atomic<bool> b_started{false}, b_done{false}, b_done_at_rethrow{false};
  pool.run([&] {
    try {
      (void)sp::join(
          [&]() -> int {
            a_waits_for_b_to_start(b_started);
            throw ErrorA();
          },
          [&] {
            b_started_now(b_started);
            b_done.store(true);
            return 2;
          });
      ADD_FAILURE() << "join did not rethrow";
    } catch (const ErrorA&) {
      b_done_at_rethrow.store(b_done.load());
    }
  });
  EXPECT_TRUE(b_done_at_rethrow.load()) << "join rethrew before branch b completed";
}

TEST_P(ForkJoinJoinException, FromBranchBIsRethrownAfterBranchACompleted) {
  sptest::Watchdog dog("ForkJoinJoinException.FromB");
  sp::ThreadPool pool(unpinned(GetParam()));
  std::atomic<bool> b_started{false}, a_done{false};
  bool a_done_at_rethrow = false;
  pool.run([&] {
    try {
      (void)sp::join(
          [&] {
            a_waits_for_b_to_start(b_started);
            if (stolen()) std::this_thread::sleep_for(20ms);  // b throws while a still runs
            a_done.store(true);
            return 1;
          },
          [&]() -> int {
            b_started.store(true);
            throw ErrorB();
          });
      ADD_FAILURE() << "join did not rethrow";
    } catch (const ErrorB&) {
      a_done_at_rethrow = a_done.load();
    }
  });
  EXPECT_TRUE(a_done_at_rethrow);
}

TEST_P(ForkJoinJoinException, FromBothBranchesRethrowsBranchAsAfterBothCompleted) {
  sptest::Watchdog dog("ForkJoinJoinException.FromBoth");
  sp::ThreadPool pool(unpinned(GetParam()));
  std::atomic<bool> b_started{false}, b_done{false};
  bool caught_a = false, b_done_at_rethrow = false;
  pool.run([&] {
    try {
      (void)sp::join(
          [&]() -> int {
            a_waits_for_b_to_start(b_started);
            throw ErrorA();
          },
          [&]() -> int {
            b_started_now(b_started);
            b_done.store(true);
            throw ErrorB();
          });
    } catch (const ErrorA&) {
      caught_a = true;
      b_done_at_rethrow = b_done.load();
    } catch (const ErrorB&) {
      ADD_FAILURE() << "b's exception won over a's";
    }
  });
  EXPECT_TRUE(caught_a);
  EXPECT_TRUE(b_done_at_rethrow);
}

TEST_P(ForkJoinJoinException, ExceptionsDeepInARecursionReachTheTopAndThePoolStaysUsable) {
  sptest::Watchdog dog("ForkJoinJoinException.Deep");
  sp::ThreadPool pool(unpinned(GetParam()));
  std::atomic<long> leaves{0};
  std::function<long(int)> walk = [&](int n) -> long {
    if (n < 2) {
      leaves.fetch_add(1);
      if (n == 0) throw std::runtime_error("leaf 0");
      return 1;
    }
    auto [a, b] = sp::join([&] { return walk(n - 1); }, [&] { return walk(n - 2); });
    return a + b;
  };
  EXPECT_THROW(pool.run([&] { return walk(15); }), std::runtime_error);
  // Both branches always complete, so every leaf of the tree ran.
  EXPECT_EQ(leaves.load(), sptest::fib_serial(16));
  EXPECT_EQ(pool.run([] { return sptest::fib_join(15); }), sptest::fib_serial(15));
}

INSTANTIATE_TEST_SUITE_P(Workers, ForkJoinJoinException, ::testing::Values(1, 2),
                         [](const auto& info) { return worker_count_name(info.param); });

TEST(ForkJoinJoin, JoinFromOutsideRethrowsOnTheCallingThreadAfterBothBranches) {
  sptest::Watchdog dog("ForkJoinJoin.OutsideRethrows");
  std::atomic<bool> b_done{false};
  EXPECT_THROW((void)sp::join([]() -> int { throw ErrorA(); }, [&] { b_done.store(true); }), ErrorA);
  EXPECT_TRUE(b_done.load());
  std::atomic<bool> a_done{false};
  EXPECT_THROW((void)sp::join([&] { a_done.store(true); }, []() -> int { throw ErrorB(); }), ErrorB);
  EXPECT_TRUE(a_done.load());
}

}  // namespace

// What a balancer outside an executor uses: Executor::take_half (engine/core/
// README.md, "Taking tasks out"), with which a thread that is not a worker takes
// about half of the queued tasks out of a running executor, oldest first (taken
// tasks never run there and no longer hold up join(); every other task still
// runs once), and ExecutorConfig::on_quiescent, called the moment the executor
// has run dry. The race of a take against the owner's pop and join()'s close is
// model-checked in tests/model/take_half_model.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;

namespace {

constexpr int kRoot = -1;

// One worker runs the root, which spawns 0..n-1 on its own deque and then holds
// the worker until released: the test sees a deque of known contents.
struct HeldQueue {
  std::atomic<bool> spawned{false};
  std::atomic<bool> release{false};
  std::vector<int> ran;  // the worker's only
  sp::Executor<int> ex;

  explicit HeldQueue(int n)
      : ex(sptest::config_with(1), [this, n](int task, sp::WorkerCtx<int, sp::NoScratch>& ctx) {
          ran.push_back(task);
          if (task != kRoot) return;
          for (int i = 0; i < n; ++i) ctx.spawn_local(i);
          spawned.store(true, std::memory_order::release);
          while (!release.load(std::memory_order::acquire)) std::this_thread::yield();
        }) {
    EXPECT_TRUE(ex.spawn_external(kRoot));
    while (!spawned.load(std::memory_order::acquire)) std::this_thread::yield();
  }
};

TEST(ExecutorTakeHalf, TakesTheOlderHalfAndTheRestRunsOnce) {
  sptest::Watchdog dog("ExecutorTakeHalf.Half");
  HeldQueue q(10);
  std::vector<int> out;
  EXPECT_EQ(q.ex.take_half(100, out), 5u);
  EXPECT_EQ(out, (std::vector<int>{0, 1, 2, 3, 4})) << "the oldest tasks, in the order spawned";
  EXPECT_EQ(q.ex.take_half(100, out), 2u) << "half of the 5 left, rounded down";
  EXPECT_EQ(out, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  q.release.store(true, std::memory_order::release);
  const sp::MetricsSnapshot m = q.ex.join();
  EXPECT_EQ(q.ran, (std::vector<int>{kRoot, 9, 8, 7})) << "taken tasks must not run here";
  EXPECT_EQ(m.tasks_executed, 4u);
  EXPECT_EQ(m.tasks_dropped, 0u);
}

// queued_hint() is what a take sees: the tasks in the deques and the injector,
// less what takes moved out (the MPI executor asks for more when it is low).
TEST(ExecutorTakeHalf, TheQueuedHintCountsWhatATakeSeesInTheDequesAndTheInjector) {
  sptest::Watchdog dog("ExecutorTakeHalf.QueuedHint");
  HeldQueue q(10);
  EXPECT_EQ(q.ex.queued_hint(), 10u) << "the held worker's deque; the running root is not queued";
  std::vector<int> out;
  EXPECT_EQ(q.ex.take_half(100, out), 5u);
  EXPECT_EQ(q.ex.queued_hint(), 5u);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(q.ex.spawn_external(100 + i));  // in the injector, behind the root
  EXPECT_EQ(q.ex.queued_hint(), 8u);
  q.release.store(true, std::memory_order::release);
  EXPECT_EQ(q.ex.join().tasks_executed, 9u);
  EXPECT_EQ(q.ex.queued_hint(), 0u) << "all run";
}

TEST(ExecutorTakeHalf, MaxBoundsTheTakeAndALoneQueuedTaskStays) {
  sptest::Watchdog dog("ExecutorTakeHalf.Max");
  HeldQueue q(10);
  std::vector<int> out{42};  // appended to, not replaced
  EXPECT_EQ(q.ex.take_half(2, out), 2u);
  EXPECT_EQ(q.ex.take_half(0, out), 0u);
  EXPECT_EQ(out, (std::vector<int>{42, 0, 1}));
  std::size_t more = 0;
  for (std::size_t n; (n = q.ex.take_half(100, out)) != 0;) more += n;
  EXPECT_EQ(more, 7u) << "repeated takes of the 8 left: 4, 2, 1, then a lone task stays";
  q.release.store(true, std::memory_order::release);
  const sp::MetricsSnapshot m = q.ex.join();
  EXPECT_EQ(q.ran, (std::vector<int>{kRoot, 9}));
  EXPECT_EQ(m.tasks_executed, 2u);
}

// External tasks not yet picked up are spare too: behind a held root on a lone
// worker they wait in the injector, and a take gets the older half of them.
TEST(ExecutorTakeHalf, TasksWaitingInTheInjectorAreSpareAndAJoinedExecutorGivesNothing) {
  sptest::Watchdog dog("ExecutorTakeHalf.Injector");
  std::atomic<bool> release{false};
  std::atomic<int> ran{0};
  std::vector<int> order;  // the worker's only, read after join
  sp::Executor<int> ex(sptest::config_with(1), [&](int task, sp::WorkerCtx<int, sp::NoScratch>&) {
    order.push_back(task);
    ran.fetch_add(1, std::memory_order::relaxed);
    if (task == kRoot)
      while (!release.load(std::memory_order::acquire)) std::this_thread::yield();
  });
  ASSERT_TRUE(ex.spawn_external(kRoot));
  while (ran.load(std::memory_order::relaxed) == 0) std::this_thread::yield();
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(ex.spawn_external(i));  // behind the held root: in the injector
  std::vector<int> out;
  EXPECT_EQ(ex.take_half(1000, out), 50u);
  std::vector<int> first_half(50);
  for (int i = 0; i < 50; ++i) first_half[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(out, first_half) << "the first given, in order";
  release.store(true, std::memory_order::release);
  EXPECT_EQ(ex.join().tasks_executed, 51u);
  ASSERT_EQ(order.size(), 51u);
  for (int i = 1; i <= 50; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], 49 + i);
  out.clear();
  EXPECT_EQ(ex.take_half(1000, out), 0u) << "a joined executor has nothing left";
}

// A lone worker takes external tasks into a private buffer, beyond a take's
// reach, unless lone_worker_batches is false: then the batch it took sits in its
// deque, and a take gets half of everything queued.
TEST(ExecutorTakeHalf, ALoneWorkersBatchIsSpareOnlyWithoutItsPrivateBuffer) {
  sptest::Watchdog dog("ExecutorTakeHalf.Lone");
  for (bool lone_batches : {true, false}) {
    std::atomic<bool> release{false};
    std::atomic<bool> started{false};
    sp::ExecutorConfig cfg = sptest::config_with(1);
    cfg.lone_worker_batches = lone_batches;
    sp::Executor<int> ex(cfg, [&](int task, sp::WorkerCtx<int, sp::NoScratch>&) {
      if (task != kRoot) return;
      started.store(true, std::memory_order::release);
      while (!release.load(std::memory_order::acquire)) std::this_thread::yield();
    });
    std::vector<int> batch{kRoot};
    for (int i = 0; i < 100; ++i) batch.push_back(i);
    ASSERT_TRUE(ex.spawn_external_batch(batch));  // the worker takes the root and a batch behind it
    while (!started.load(std::memory_order::acquire)) std::this_thread::yield();
    std::vector<int> out;
    const std::size_t taken = ex.take_half(1000, out);
    if (lone_batches) {
      EXPECT_EQ(taken, 0u) << "all 100 sit in the lone worker's private buffer";
    } else {
      EXPECT_EQ(taken, 50u) << "half of the 100 queued in the injector and the deque";
    }
    release.store(true, std::memory_order::release);
    EXPECT_EQ(ex.join().tasks_executed + taken, 101u);
  }
}

// A binary tree of tasks, each node's id its heap index. Every node must run
// exactly once, in the executor that spawned it or in the one it was moved to.
struct Node {
  std::uint32_t id;
  std::uint32_t depth;
};

struct TreeRun {
  std::uint32_t max_depth;
  std::unique_ptr<std::atomic<std::uint8_t>[]> runs;
  std::atomic<std::uint64_t> sink{0};
  explicit TreeRun(std::uint32_t d) : max_depth(d), runs(new std::atomic<std::uint8_t>[(2u << d) + 1]()) {}
  std::uint32_t nodes() const { return (2u << max_depth) - 1; }
  auto runner() {
    return [this](Node n, sp::WorkerCtx<Node, sp::NoScratch>& ctx) {
      runs[n.id].fetch_add(1, std::memory_order::relaxed);
      // About a microsecond of work, so that the tree lasts long enough for the
      // balancer to find spare tasks.
      std::uint64_t x = n.id;
      for (int i = 0; i < 64; ++i) x = sptest::mix64(x);
      sink.fetch_xor(x, std::memory_order::relaxed);
      if (n.depth == max_depth) return;
      ctx.spawn_local(Node{2 * n.id, n.depth + 1});
      ctx.spawn_local(Node{2 * n.id + 1, n.depth + 1});
    };
  }
};

// A balancer thread moves half of A's spare tasks to B as fast as it can while
// A runs the tree, and goes on while A's join() waits: no node is lost or run
// twice, A's join() returns once A's own share is done, and the task counts add
// up. Oversubscribed on purpose (up to 8 workers a side on 2 cores).
TEST(ExecutorTakeHalf, ABalancerMovingTasksToAnotherExecutorLosesAndRepeatsNone) {
  sptest::Watchdog dog("ExecutorTakeHalf.Balancer", std::chrono::seconds(120));
  const std::uint32_t depth = sptest::stress_scale() > 1 ? 12 : 15;
  std::size_t moved_in_all = 0;
  for (std::size_t workers : {1u, 2u, 4u, 8u}) {
    for (int round = 0; round < 4; ++round) {
      TreeRun tree(depth);
      sp::Executor<Node> a(sptest::config_with(workers), tree.runner());
      sp::Executor<Node> b(sptest::config_with(workers), tree.runner());
      std::atomic<bool> a_joined{false};
      std::size_t moved = 0;
      std::thread balancer([&] {
        std::vector<Node> out;
        // Until A has joined, and one take after (which must find nothing).
        for (bool last = false; !last;) {
          last = a_joined.load(std::memory_order::acquire);
          out.clear();
          const std::size_t n = a.take_half(64, out);
          EXPECT_EQ(n, out.size());
          if (last) {
            EXPECT_EQ(n, 0u) << "a joined executor has no spare tasks";
          }
          moved += n;
          if (n != 0) {
            EXPECT_TRUE(b.spawn_external_batch(out));
          }
        }
      });
      ASSERT_TRUE(a.spawn_external(Node{1, 0}));
      const sp::MetricsSnapshot ma = a.join();
      a_joined.store(true, std::memory_order::release);
      balancer.join();
      const sp::MetricsSnapshot mb = b.join();
      moved_in_all += moved;
      EXPECT_EQ(ma.tasks_executed + mb.tasks_executed, tree.nodes()) << workers << " workers, round " << round;
      EXPECT_EQ(ma.tasks_dropped + mb.tasks_dropped, 0u);
      EXPECT_GE(mb.tasks_executed, moved) << "every moved task runs in B, with the subtree it spawns there";
      for (std::uint32_t id = 1; id <= tree.nodes(); ++id)
        ASSERT_EQ(tree.runs[id].load(), 1u) << "node " << id << ", " << workers << " workers, round " << round
                                            << ", " << moved << " tasks moved";
    }
  }
  EXPECT_GT(moved_in_all, 0u) << "in 16 runs of a tree of " << (2u << depth) - 1
                              << " one-microsecond tasks, the balancer never found a spare task";
}

// on_quiescent: called once each time the count of unfinished tasks falls to 0
// with the gate open, after every task has run (its caller sees their writes),
// and not at join()'s end.
TEST(ExecutorQuiescence, TheHookRunsOnceEachTimeTheExecutorRunsDryAndSeesEveryTask) {
  sptest::Watchdog dog("ExecutorQuiescence.Rounds");
  for (std::size_t workers : {1u, 2u, 4u, 8u}) {
    constexpr int kRounds = 20;
    const int per_round = static_cast<int>(sptest::scaled(1000, 25)) * 2;  // half given, half spawned
    std::atomic<int> ran{0};
    std::atomic<int> calls{0};
    std::vector<int> seen(kRounds + 1, -1);  // what each call saw; written by the caller of the hook
    sp::ExecutorConfig cfg = sptest::config_with(workers);
    cfg.on_quiescent = [&] {
      const int call = calls.load(std::memory_order::relaxed);
      if (call < kRounds) seen[static_cast<std::size_t>(call)] = ran.load(std::memory_order::relaxed);
      calls.store(call + 1, std::memory_order::release);
      calls.notify_all();
    };
    sp::Executor<int> ex(cfg, [&](int depth, sp::WorkerCtx<int, sp::NoScratch>& ctx) {
      ran.fetch_add(1, std::memory_order::relaxed);
      if (depth > 0) ctx.spawn_local(depth - 1);  // the spawned tasks count too
    });
    std::vector<int> batch(static_cast<std::size_t>(per_round / 2), 1);  // each runs, and spawns one more
    for (int round = 0; round < kRounds; ++round) {
      ASSERT_TRUE(ex.spawn_external_batch(batch));  // one RMW: the count rises from 0 once a round
      // Wait for this round's call; the release above pairs with this acquire.
      for (int c; (c = calls.load(std::memory_order::acquire)) <= round;) calls.wait(c, std::memory_order::acquire);
      ASSERT_EQ(calls.load(std::memory_order::acquire), round + 1) << workers << " workers: one call a round";
      EXPECT_EQ(seen[static_cast<std::size_t>(round)], (round + 1) * per_round)
          << workers << " workers, round " << round << ": the hook ran before every task of the round had";
    }
    const sp::MetricsSnapshot m = ex.join();
    EXPECT_EQ(calls.load(), kRounds) << "join()'s end is terminal, not quiescent";
    EXPECT_EQ(m.tasks_executed, static_cast<std::uint64_t>(kRounds * per_round));
  }
}

}  // namespace

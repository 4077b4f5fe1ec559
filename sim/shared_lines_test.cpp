// sim/shared_lines_test.cpp: the simulator's count of shared cache-line writes
// (shared_lines.hpp, sim/README.md "Shared cache-line writes: a proxy for
// scaling"): exact counts on small cases, and how the count behaves as the
// worker count grows. Behaviour only: every figure is a count, never a time.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "case_file.hpp"
#include "scaling.hpp"
#include "shared_lines.hpp"
#include "simulator.hpp"

namespace stealpool::sim {
namespace {

std::uint64_t times(const SharedWrites& w, LineOp op) { return w.ops[static_cast<std::size_t>(op)]; }

// spin_iters 1000: the worker idles 1000 rounds before it may park, so the
// producer's external spawn and join come first on every seed (each step picks
// the producer with probability 1/2) and the run writes the same lines on every
// seed: no sleep, no wake-up but the final unpark_all.
constexpr const char* kOneTask = R"(
workers 1
spin_iters 1000
task leaf: complete
external leaf
join
)";

TEST(SimSharedLines, OneExternalTaskOnOneWorker) {
  const Case c = parse_case(kOneTask, "one_task");
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const RunResult r = run_case(c, seed, Mutant::none, false);
    ASSERT_TRUE(r.ok) << r.violation;
    ASSERT_EQ(r.executed, 1u);
    const SharedWrites& w = r.shared_writes;
    // spawn_one: the gate CAS on the state word, the injector's tail CAS.
    EXPECT_EQ(times(w, LineOp::state_acquire), 1u);
    EXPECT_EQ(times(w, LineOp::inj_claim_tail), 1u);
    // The worker's steal_batch_and_pop of one task: the head CAS and the
    // block's slots_read add (nothing moves to its deque).
    EXPECT_EQ(times(w, LineOp::inj_claim_head), 1u);
    EXPECT_EQ(times(w, LineOp::inj_slots_read), 1u);
    // join(): close; the worker's settle of its one owed unit is terminal:
    // the done store and unpark_all's exchange on its Parker.
    EXPECT_EQ(times(w, LineOp::state_close), 1u);
    EXPECT_EQ(times(w, LineOp::state_settle), 1u);
    EXPECT_EQ(times(w, LineOp::done_store), 1u);
    EXPECT_EQ(times(w, LineOp::unpark), 1u);
    // Its own deque was only ever popped empty: loads only. Nothing slept.
    EXPECT_EQ(w.of(LineKind::deque), 0u);
    EXPECT_EQ(w.of(LineKind::state), 4u);
    EXPECT_EQ(w.of(LineKind::injector), 3u);
    EXPECT_EQ(w.of(LineKind::sleep), 1u);
    EXPECT_EQ(w.of(LineKind::latch), 0u);
    EXPECT_EQ(w.total(), 8u) << "seed " << seed;
  }
}

// Two nested joins on one worker: the outer one pushes into an empty split
// deque, which publishes; the inner one pushes above it and pops back while
// the item is private, writing nothing shared.
constexpr const char* kNestedJoins = R"(
pool forkjoin
workers 1
spin_iters 1000
task outer: join inner leaf
task inner: join leaf leaf
task leaf: complete
external outer
join
)";

TEST(SimSharedLines, PrivateJoinWritesNothing) {
  const Case c = parse_case(kNestedJoins, "nested_joins");
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const RunResult r = run_case(c, seed, Mutant::none, false);
    ASSERT_TRUE(r.ok) << r.violation;
    ASSERT_EQ(r.executed, 5u);
    const SharedWrites& w = r.shared_writes;
    // The outer push publishes (the split store; no thief asked, so request
    // is down and not stored); its pop back takes the last public item (split,
    // the CAS on top, split). The inner join: 0.
    EXPECT_EQ(times(w, LineOp::sd_publish), 1u);
    EXPECT_EQ(times(w, LineOp::sd_clear_request), 0u);
    EXPECT_EQ(times(w, LineOp::sd_reclaim_last), 1u);
    EXPECT_EQ(w.of(LineKind::deque), 4u);
    // The first push reserves 64 units in the state word; the second uses one.
    EXPECT_EQ(times(w, LineOp::state_reserve), 1u);
    // state: acquire, reserve, close, settle, done; injector: tail, head,
    // slots_read; sleep: the final unpark.
    EXPECT_EQ(w.of(LineKind::state), 5u);
    EXPECT_EQ(w.of(LineKind::injector), 3u);
    EXPECT_EQ(w.of(LineKind::sleep), 1u);
    EXPECT_EQ(w.of(LineKind::latch), 0u);  // the popped-back job's latch is never touched
    EXPECT_EQ(w.total(), 13u) << "seed " << seed;
  }
}

ScalingStudy study(const std::string& file) {
  const Case c = load_case(std::string(STEALPOOL_SIM_SCALING_DIR) + "/" + file);
  ScalingStudy s = run_scaling(c, {1, 2, 4, 8, 16, 32, 64}, 1, 5);
  EXPECT_EQ(s.violation, "");
  return s;
}

// Fork-join fib(20), 21891 calls, ExecutorConfig's idle defaults. Measured
// (seeds 1..5, medians): writes per task 0.003 at 1 worker, 0.009 at 2, 0.337
// at 64; steals per task 0.0003 at 2, 0.029 at 64; extra writes per steal
// (above the 1-worker figure) 21 at 2 workers, falling to 11 at 64.
//
// "Writes per task at 64 workers at most K times that at 2" does not hold for
// any small K: a join that is not stolen writes nothing shared (its push and
// pop stay private), so the 2-worker figure is close to 0 and every steal
// multiplies it. What is bounded is the cost of a steal: each one brings a
// fixed set of writes (the victim's publish and its reclaim of the last public
// item, the thief's claim and ask, the latch set), 11 to 21, and fewer, not
// more, as workers are added. Writes per task then grow only with steals per
// task, which for a fixed tree grow with the worker count (about workers x
// depth steals in all), and a larger tree amortises them (fib(24) at 64
// workers: 0.097 writes per task).
TEST(SimSharedLines, ForkJoinWritesAreBoundedPerSteal) {
  const ScalingStudy s = study("forkjoin_fib.case");
  ASSERT_EQ(s.rows.size(), 7u);
  EXPECT_LT(s.rows.front().writes_per_task, 0.01);  // one worker: joins stay private
  for (const ScalingRow& r : s.rows) {
    // Below one write per task everywhere: twice the largest figure measured.
    EXPECT_LT(r.writes_per_task, 1.0) << r.workers << " workers";
    if (r.workers == 1) continue;
    ASSERT_GT(r.steals_per_task, 0) << r.workers << " workers";
    // Per steal: at most 40, about twice the largest figure measured.
    EXPECT_LT(r.extra_writes_per_steal, 40.0) << r.workers << " workers";
  }
  // No growth with the worker count: 64 workers' figure at most 1.25 times
  // 4's (measured 11.4 vs 17.5).
  EXPECT_LT(s.rows.back().extra_writes_per_steal, 1.25 * s.rows[2].extra_writes_per_steal);
}

// Executor workloads: every task is pushed and popped on a Chase-Lev deque (two
// writes of bottom, the baseline at 1 worker) and the extra writes come with
// the steals, so writes per task barely move: measured 2.003 at 2 workers,
// 2.058 (fan-out) and 2.135 (tree) at 64. K = 1.25 leaves room for three times
// that growth.
TEST(SimSharedLines, ExecutorWritesPerTaskDoNotGrowWithWorkers) {
  for (const char* file : {"executor_fanout.case", "executor_tree.case"}) {
    const ScalingStudy s = study(file);
    ASSERT_EQ(s.rows.size(), 7u);
    const ScalingRow& two = s.rows[1];
    const ScalingRow& sixty_four = s.rows.back();
    EXPECT_NEAR(two.writes_per_task, 2.0, 0.05) << file;
    EXPECT_LE(sixty_four.writes_per_task, 1.25 * two.writes_per_task) << file;
  }
}

}  // namespace
}  // namespace stealpool::sim

// sim/sim_internal.hpp: the simulator's state, shared by simulator.cpp (the
// scheduler, the executor's tasks, sleeping, the invariants) and forkjoin.cpp
// (fork-join jobs: join frames, take-back, helping waits, latches). Not part of
// the simulator's interface (simulator.hpp); see sim/README.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "case_file.hpp"
#include "shared_lines.hpp"
#include "sim_deque.hpp"
#include "sim_injector.hpp"
#include "simulator.hpp"
#include "stealpool/engine/core/ledger.hpp"
#include "stealpool/engine/core/state_word.hpp"
#include "stealpool/engine/core/tiered_idle.hpp"
#include "stealpool/engine/core/wait_step.hpp"
#include "stealpool/engine/core/worker_step.hpp"
#include "stealpool/metrics.hpp"
#include "stealpool/queue/steal.hpp"
#include "stealpool/rng.hpp"

namespace stealpool::sim::internal {

using Item = std::uint32_t;  // a task (executor) or job (fork-join): an index into Sim::tasks_
inline constexpr Item kNoItem = std::numeric_limits<Item>::max();
inline constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ull;
inline constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;

// New kinds go at the end: a kind's number is part of every pinned trace hash.
enum class TraceKind : std::uint8_t {
  pop, steal_attempt, run, task_end, idle, announce, cancel, park, unpark, exit,
  spawn_local, spawn_global, external, rejected, join, shutdown, settle, terminal, done, drop,
  // fork-join
  push, publish, fork, take_back, joined, latch_set, end, work, run_call, run_return, inline_run
};

// A failed invariant: ends the run.
struct Violation {
  std::string what;
};

enum class WorkerState : std::uint8_t { running, announced, parked, exited };

// WorkerLatch's states (forkjoin/latch.hpp); `none`: the task has no latch.
enum class LatchState : std::uint8_t { none, unset, sleeping, set };

struct TaskRec {
  std::uint32_t program;
  std::uint32_t depth;
  std::uint32_t first_op = 0;  // > 0: the continuation of a task that yielded
  std::uint32_t runs = 0;
  // fork-join
  bool counted = false;   // in the state word (pushed or injected), so it completes the ledger
  bool finished = false;  // its program ran to the end
  LatchState latch = LatchState::none;
  bool waiter_is_producer = false;  // run(): a ThreadLatch of producer `waiter`
  std::uint32_t waiter = 0;         // the joining worker, or the producer blocked in run()
};

// A fork-join program running on a worker: the job (or inline branch) at the
// top of the worker's frame stack takes the worker's next step. The phases are
// the points of join_on/take_back/wait_until (forkjoin/thread_pool.hpp) where a
// thread could be interrupted.
struct Frame {
  enum class Phase : std::uint8_t {
    ops,        // the next op of the program
    take_back,  // the inline branch returned: pop the pushed job back (take_back_step)
    waiting,    // the pushed job was stolen: help until its latch is set (wait_step)
    after_b,    // both branches done: the join returns
  };
  Item task;
  bool counted;  // a job taken from a queue (run via Ctx::run), not an inline branch
  std::uint32_t pc = 0;
  std::uint32_t work_left = 0;
  Phase phase = Phase::ops;
  Item b = kNoItem;       // the current join's pushed job
  bool b_pushed = false;  // false: the deque was full, b runs inline after a
  detail::TieredIdle idle{0, std::chrono::milliseconds(1)};  // the wait's own, as wait_until makes one
};

class Sim;

// The trace hooks of core/worker_step.hpp, recording into the simulator.
struct SimTrace {
  Sim* sim;
  void on_pop(std::size_t w, detail::PopSource s, std::size_t victim) noexcept;
  void on_steal_attempt(std::size_t w, std::size_t victim, StealStatus s) noexcept;
  void on_task_end(std::size_t w, bool ok) noexcept;
  void on_idle(std::size_t w, detail::IdleKind k) noexcept;
  void on_park(std::size_t) noexcept {}
  void on_unpark(std::size_t, bool) noexcept {}
  void on_exit(std::size_t w) noexcept;
};

// One virtual worker: the Ctx that the core policy (worker_step, pop_task,
// take_back_step, wait_step) runs on, as ExecutorWorker is for a thread.
class SimWorker {
 public:
  SimWorker(Sim& sim, std::size_t id, std::uint64_t seed, detail::StateWord<>& state, SharedWrites& lines,
            const Case& c, Mutant m)
      : sim_(sim), id_(id), victim_rng_(derive_worker_seed(~seed, id)), ledger_(state),
        idle_(c.spin_iters, std::chrono::milliseconds(1)) {
    deque_.configure(c.forkjoin, c.deque_capacity, m != Mutant::no_publish, lines);
  }

  // --- the core policy's Ctx interface ---------------------------------------
  std::optional<Item> pop_local();
  Steal<Item> steal_injector();
  Steal<Item> steal_from(std::size_t victim);
  std::size_t worker_id() const noexcept { return id_; }
  std::size_t worker_count() const noexcept;
  std::uint32_t steal_tries() const noexcept;
  XorShift64& victim_rng() noexcept { return victim_rng_; }
  WorkerMetrics& core_metrics() noexcept { return metrics_; }
  bool is_done() const noexcept;
  bool run(Item item);
  // fork-join (take_back_step)
  void ran_inline();
  void run_popped(Item item);

  Sim& sim_;
  std::size_t id_;
  XorShift64 victim_rng_;
  WorkerMetrics metrics_;
  detail::Ledger<> ledger_;
  detail::TieredIdle idle_;  // the main loop's
  SimDeque<Item> deque_;
  WorkerState state_ = WorkerState::running;
  bool registered_ = false;  // its SleepRegistry bit: set by announce, cleared by cancel or a waker
  bool token_ = false;       // its Parker's token: an unpark not yet consumed by a park
  std::uint32_t spawns_since_wake_ = 0;
  // fork-join
  // The jobs and branches it is running, innermost last. A deque: pushing a
  // frame keeps references to the others valid (wait_step holds the waiting
  // frame's idle policy while it runs a job).
  std::deque<Frame> frames_;
  Item sleep_latch_ = kNoItem;     // asleep in a wait: the job whose latch it sleeps on
  std::size_t sleep_frame_ = 0;    // ... and the waiting frame (whose idle policy it uses)
};

// The latch interface of core/wait_step.hpp over a job's latch state.
struct SimLatch {
  Sim* sim;
  Item job;
  bool probe() const;
};

class Sim {
 public:
  Sim(const Case& c, std::uint64_t seed, Mutant mutant, bool keep_trace);

  RunResult run();
  // Every event: folded into the FNV-1a hash, kept when asked (inline: the
  // simulator spends most of its time here).
  void record(TraceKind k, std::size_t worker, std::uint64_t a = 0, std::uint64_t b = 0) {
    const TraceRecord rec{step_, static_cast<std::uint8_t>(k), static_cast<std::uint32_t>(worker), a, b};
    for (std::uint64_t v : {rec.step, std::uint64_t{rec.kind}, std::uint64_t{rec.worker}, rec.a, rec.b})
      for (int i = 0; i < 8; ++i) hash_ = (hash_ ^ ((v >> (8 * i)) & 0xff)) * kFnvPrime;
    if (keep_trace_) trace_.push_back(rec);
  }
  bool chance(std::uint32_t percent) { return percent != 0 && mem_rng_.next_below(100) < percent; }

  // --- used by SimWorker and SimLatch -----------------------------------------
  bool run_task(SimWorker& w, Item item);  // executor pools: runs the whole program
  bool start_job(SimWorker& w, Item item);  // fork-join: pushes the job's frame
  void ran_inline(SimWorker& w);
  void wake_for_published(SimWorker& w);
  bool latch_probe(Item job) const;

  const Case& c_;
  Mutant mutant_;
  SharedWrites lines_;  // shared-line writes so far (shared_lines.hpp); before the queues that count into it
  SimInjector<Item> injector_{lines_};
  std::vector<std::unique_ptr<SimWorker>> workers_;
  std::vector<TaskRec> tasks_;
  bool done_ = false;

 private:
  [[noreturn]] void fail(const std::string& what);
  Item new_task(std::uint32_t program, std::uint32_t depth, bool counted = true);

  // executor pools (simulator.cpp)
  void ledger_spawn(SimWorker& w);
  void cancel_sleep(SimWorker& w);
  void spawn_local(SimWorker& w, Item id);
  void spawn_global(SimWorker& w, Item id);
  std::size_t sleeping_hint();
  std::size_t notify(std::size_t n);
  void unpark(SimWorker& w);
  void initiate_done();
  void saw(detail::Terminal t, std::size_t who);
  void shutdown();
  void settle(SimWorker& w);
  bool work_visible() const;
  bool publishable_work() const;
  void step_worker(SimWorker& w);
  void step_sleep(SimWorker& w);
  void step_producer(std::size_t p);
  void check_invariants();
  void loop();
  void finish(RunResult& r);

  // fork-join pools (forkjoin.cpp)
  void step_frame(SimWorker& w);
  void step_ops(SimWorker& w);
  void step_take_back(SimWorker& w);
  void step_wait(SimWorker& w);
  void start_inline(SimWorker& w, Item item);
  void end_frame(SimWorker& w);
  bool push_job(SimWorker& w, Item id);
  void push_global_job(SimWorker& w, Item id);
  void set_latch(Item job, std::size_t setter);
  void sleep_on_latch(SimWorker& w, Item job);
  bool latch_prepare_sleep(Item job);
  void end_sleep(SimWorker& w);
  detail::TieredIdle& sleeping_idle(SimWorker& w);
  void run_call(std::size_t producer, const Event& e);
  void check_latch_sleepers();

  bool keep_trace_;
  XorShift64 sched_rng_;  // picks who steps next
  XorShift64 mem_rng_;    // stale reads and lost races
  detail::StateWord<> state_;
  std::vector<std::size_t> next_event_;  // per producer
  std::vector<Item> blocked_;            // per producer: the job its run() waits for, or kNoItem
  std::uint64_t liveness_bound_;
  bool shutdown_ = false, joined_ = false, error_ = false;
  std::uint64_t step_ = 0, executed_ = 0, in_flight_ = 0, accepted_ = 0, rejected_ = 0;
  std::uint64_t terminal_count_ = 0, asleep_with_work_ = 0;
  std::size_t latest_sleeper_ = 0;  // SleepRegistry's latest_: where notify() looks first
  ForkJoinCounts fj_;
  std::uint64_t hash_;
  std::vector<TraceRecord> trace_;
};

}  // namespace stealpool::sim::internal

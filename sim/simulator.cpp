// sim/simulator.cpp: the simulator (see simulator.hpp and sim/README.md).
#include "simulator.hpp"

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "stealpool/detail/core/ledger.hpp"
#include "stealpool/detail/core/state_word.hpp"
#include "stealpool/detail/core/tiered_idle.hpp"
#include "stealpool/detail/core/worker_step.hpp"
#include "stealpool/metrics.hpp"
#include "stealpool/queue/steal.hpp"
#include "stealpool/rng.hpp"

namespace stealpool::sim {

namespace {

using Item = std::uint32_t;  // a task: an index into Sim::tasks_

// The same threshold as WorkerCtx::spawn_local (kWakeOnHoardThreshold).
constexpr std::uint32_t kHoardThreshold = 32;
constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;

enum class TraceKind : std::uint8_t {
  pop, steal_attempt, run, task_end, idle, announce, cancel, park, unpark, exit,
  spawn_local, spawn_global, external, rejected, join, shutdown, settle, terminal, done, drop
};
constexpr const char* kKindNames[] = {
  "pop", "steal_attempt", "run", "task_end", "idle", "announce", "cancel", "park", "unpark", "exit",
  "spawn_local", "spawn_global", "external", "rejected", "join", "shutdown", "settle", "terminal", "done", "drop"};

// A failed invariant: ends the run.
struct Violation {
  std::string what;
};

enum class WorkerState : std::uint8_t { running, announced, parked, exited };

struct TaskRec {
  std::uint32_t program;
  std::uint32_t depth;
  std::uint32_t first_op = 0;  // > 0: the continuation of a task that yielded
  std::uint32_t runs = 0;
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

// One virtual worker: the Ctx that detail::worker_step and detail::pop_task run
// on, as ExecutorWorker is for a thread.
class SimWorker {
 public:
  SimWorker(Sim& sim, std::size_t id, std::uint64_t seed, detail::StateWord<>& state, const Case& c)
      : sim_(sim), id_(id), victim_rng_(derive_worker_seed(~seed, id)), ledger_(state),
        idle_(c.spin_iters, std::chrono::milliseconds(1)) {}

  // --- the core policy's Ctx interface ---------------------------------------
  std::optional<Item> pop_local() {
    if (deque_.empty()) return std::nullopt;
    const Item it = deque_.back();  // owner: LIFO
    deque_.pop_back();
    return it;
  }
  Steal<Item> steal_injector();
  Steal<Item> steal_from(std::size_t victim);
  std::size_t worker_id() const noexcept { return id_; }
  std::size_t worker_count() const noexcept;
  std::uint32_t steal_tries() const noexcept;
  XorShift64& victim_rng() noexcept { return victim_rng_; }
  WorkerMetrics& core_metrics() noexcept { return metrics_; }
  bool is_done() const noexcept;
  bool run(Item item);

  Sim& sim_;
  std::size_t id_;
  XorShift64 victim_rng_;
  WorkerMetrics metrics_;
  detail::Ledger<> ledger_;
  detail::TieredIdle idle_;
  std::deque<Item> deque_;  // back: owner's end; front: thieves' end
  WorkerState state_ = WorkerState::running;
  bool registered_ = false;  // its SleepRegistry bit: set by announce, cleared by cancel or a waker
  bool token_ = false;       // its Parker's token: an unpark not yet consumed by a park
  std::uint32_t spawns_since_wake_ = 0;
};

class Sim {
 public:
  Sim(const Case& c, std::uint64_t seed, Mutant mutant, bool keep_trace)
      : c_(c), mutant_(mutant), keep_trace_(keep_trace),
        sched_rng_(derive_worker_seed(seed, 1000)), mem_rng_(derive_worker_seed(seed, 2000)),
        next_event_(c.producers.size(), 0),
        liveness_bound_(c.liveness_bound != 0 ? c.liveness_bound : 64 * c.workers * c.workers + 64) {
    for (std::size_t i = 0; i < c.workers; ++i)
      workers_.push_back(std::make_unique<SimWorker>(*this, i, seed, state_, c));
  }

  RunResult run() {
    RunResult r;
    try {
      loop();
      finish(r);
    } catch (const Violation& v) {
      r.ok = false;
      r.violation = v.what;
    }
    r.steps = step_;
    r.trace_hash = hash_;
    r.executed = executed_;
    r.rejected = rejected_;
    r.accepted = accepted_;
    r.error = error_;
    for (const auto& w : workers_) r.metrics += w->metrics_;
    r.trace = std::move(trace_);
    return r;
  }

  void record(TraceKind k, std::size_t worker, std::uint64_t a = 0, std::uint64_t b = 0) {
    const TraceRecord rec{step_, static_cast<std::uint8_t>(k), static_cast<std::uint32_t>(worker), a, b};
    for (std::uint64_t v : {rec.step, std::uint64_t{rec.kind}, std::uint64_t{rec.worker}, rec.a, rec.b})
      for (int i = 0; i < 8; ++i) hash_ = (hash_ ^ ((v >> (8 * i)) & 0xff)) * kFnvPrime;
    if (keep_trace_) trace_.push_back(rec);
  }

  bool chance(std::uint32_t percent) { return percent != 0 && mem_rng_.next_below(100) < percent; }

  // --- used by SimWorker ------------------------------------------------------
  const Case& c_;
  Mutant mutant_;
  std::deque<Item> injector_;
  std::vector<std::unique_ptr<SimWorker>> workers_;
  bool done_ = false;

  // A running task of worker w ran (ExecutorWorker::run and the spawn paths of
  // WorkerCtx). false: it threw.
  bool run_task(SimWorker& w, Item item) {
    TaskRec& t = tasks_[item];
    record(TraceKind::run, w.id_, item, t.program);
    if (done_) fail("task #" + std::to_string(item) + " started after termination was signalled");
    if (++t.runs > 1) fail("exactly-once: task #" + std::to_string(item) + " ran " + std::to_string(t.runs) + " times");
    ++executed_;
    const Program& p = c_.programs[t.program];
    const std::uint32_t depth = t.depth;  // tasks_ may grow below
    const std::uint32_t program = t.program;
    bool ok = true;
    if (p.depth_limit == 0 || depth < p.depth_limit) {
      for (std::uint32_t i = t.first_op; i < p.ops.size(); ++i) {
        const Op& op = p.ops[i];
        if (op.kind == Op::Kind::throw_error) {
          ok = false;
          break;
        }
        if (op.kind == Op::Kind::yield) {
          // The rest of the program becomes a new task on the own deque (a
          // continuation, counted like any local spawn); this one ends here.
          const Item cont = new_task(program, depth);
          tasks_[cont].first_op = i + 1;
          w.ledger_.spawn();
          spawn_local(w, cont);
          break;
        }
        for (std::uint32_t child : op.children) {
          const Item id = new_task(child, depth + 1);
          w.ledger_.spawn();
          if (op.kind == Op::Kind::spawn_local) spawn_local(w, id);
          else spawn_global(w, id);
        }
      }
    }
    w.ledger_.complete();
    --in_flight_;
    if (!ok) {
      error_ = true;
      shutdown();  // ExecutorWorker::run: record the error, stop the executor
    }
    return ok;
  }

 private:
  [[noreturn]] void fail(const std::string& what) { throw Violation{"step " + std::to_string(step_) + ": " + what}; }

  Item new_task(std::uint32_t program, std::uint32_t depth) {
    tasks_.push_back(TaskRec{program, depth});
    ++in_flight_;
    return static_cast<Item>(tasks_.size() - 1);
  }

  // WorkerCtx::spawn_local, with the sleeper-count read made stale on demand.
  void spawn_local(SimWorker& w, Item id) {
    w.deque_.push_back(id);
    ++w.metrics_.local_spawns;
    record(TraceKind::spawn_local, w.id_, id);
    if (mutant_ != Mutant::no_hoard && ++w.spawns_since_wake_ >= kHoardThreshold) {
      w.spawns_since_wake_ = 0;
      if (notify(1) != 0) ++w.metrics_.hoard_wakes;
    } else if (sleeping_hint() != 0) {
      if (notify(1) != 0) ++w.metrics_.spawn_wakes;
    }
  }

  void spawn_global(SimWorker& w, Item id) {
    injector_.push_back(id);
    ++w.metrics_.global_spawns;
    record(TraceKind::spawn_global, w.id_, id);
    if (notify(1) != 0) ++w.metrics_.spawn_wakes;
  }

  // The relaxed read of the sleeper count: sometimes a stale 0 (stale_reads %).
  std::size_t sleeping_hint() {
    std::size_t n = 0;
    for (const auto& w : workers_) n += w->registered_ ? 1 : 0;
    return chance(c_.stale_reads) ? 0 : n;
  }

  // SleepRegistry::notify: wakes up to n registered sleepers, round robin.
  std::size_t notify(std::size_t n) {
    std::size_t woken = 0;
    const std::size_t start = notify_cursor_++ % workers_.size();
    for (std::size_t i = 0; i < workers_.size() && woken < n; ++i) {
      SimWorker& w = *workers_[(start + i) % workers_.size()];
      if (!w.registered_) continue;
      w.registered_ = false;
      unpark(w);
      ++woken;
    }
    return woken;
  }

  // Parker::unpark: a token; a parked worker wakes and consumes it at once.
  void unpark(SimWorker& w) {
    w.token_ = true;
    if (w.state_ != WorkerState::parked) return;
    w.token_ = false;
    w.registered_ = false;  // its cancel() after waking
    w.state_ = WorkerState::running;
    ++w.metrics_.unparks;
    w.idle_.on_woken(true);
    record(TraceKind::unpark, w.id_);
  }

  void initiate_done() {
    if (!done_) record(TraceKind::done, 0);
    done_ = true;
    for (auto& w : workers_) unpark(*w);
  }

  void saw(detail::Terminal t, std::size_t who) {
    if (t != detail::Terminal::yes) return;
    record(TraceKind::terminal, who, in_flight_);
    if (++terminal_count_ > 1) fail("termination signalled twice");
    if (in_flight_ != 0) fail("termination signalled with " + std::to_string(in_flight_) + " tasks in flight");
  }

  void shutdown() {
    shutdown_ = true;
    (void)state_.close();  // as ExecutorShared::shutdown: the close's result is not used
    initiate_done();
  }

  void settle(SimWorker& w) {
    const std::uint64_t held = w.ledger_.held();
    const detail::Terminal t = w.ledger_.settle();
    if (held != 0) record(TraceKind::settle, w.id_, held);
    saw(t, w.id_);
    if (t == detail::Terminal::yes) initiate_done();
  }

  bool work_visible() const {
    if (!injector_.empty()) return true;
    for (const auto& w : workers_)
      if (!w->deque_.empty()) return true;
    return false;
  }

  // One step of worker w: ExecutorWorker::loop and ExecutorWorker::sleep_on, with the
  // sleep split in two steps (announce, then re-check and park) so that other
  // steps can come between them, as other threads can.
  void step_worker(SimWorker& w) {
    if (w.state_ == WorkerState::announced) {
      if (work_visible() || done_) {
        w.registered_ = false;  // cancel(); a token a waker sent stays for the next park
        w.state_ = WorkerState::running;
        record(TraceKind::cancel, w.id_);
      } else if (w.token_) {
        w.token_ = false;
        w.registered_ = false;
        w.state_ = WorkerState::running;
        ++w.metrics_.unparks;
        w.idle_.on_woken(true);
        record(TraceKind::unpark, w.id_, 1);
      } else {
        w.state_ = WorkerState::parked;
        ++w.metrics_.parks;
        record(TraceKind::park, w.id_);
      }
      return;
    }
    SimTrace trace{this};
    const detail::StepResult r = detail::worker_step(w, w.idle_, trace);
    switch (r.kind) {
      case detail::StepKind::ran_task:
      case detail::StepKind::no_work:
        break;
      case detail::StepKind::should_park:
        if (mutant_ != Mutant::skip_settle) settle(w);  // [LEDGER-bound]
        if (done_) break;
        w.registered_ = true;  // SleepRegistry::announce
        w.state_ = WorkerState::announced;
        record(TraceKind::announce, w.id_);
        break;
      case detail::StepKind::exit_done:
      case detail::StepKind::exit_panicked:
        settle(w);
        w.state_ = WorkerState::exited;
        break;
    }
  }

  void step_producer(std::size_t p) {
    const Event& e = c_.producers[p][next_event_[p]++];
    switch (e.kind) {
      case Event::Kind::external: {
        if (!state_.try_acquire_external(e.count)) {
          rejected_ += e.count;
          record(TraceKind::rejected, p, e.count);
          return;
        }
        accepted_ += e.count;
        for (std::uint32_t i = 0; i < e.count; ++i) injector_.push_back(new_task(e.program, 0));
        record(TraceKind::external, p, e.count, e.program);
        (void)notify(std::min<std::size_t>(e.count, workers_.size()));
        return;
      }
      case Event::Kind::join:
        record(TraceKind::join, p);
        joined_ = true;
        {
          const detail::Terminal t = state_.close();
          saw(t, p);
          if (t == detail::Terminal::yes) initiate_done();
        }
        return;
      case Event::Kind::shutdown:
        record(TraceKind::shutdown, p);
        shutdown();
        return;
    }
  }

  // After every step.
  void check_invariants() {
    // [LEDGER-bound]: count == in_flight + sum of what the ledgers hold, exactly.
    std::uint64_t held = 0;
    for (const auto& w : workers_) held += w->ledger_.held();
    const std::uint64_t count = detail::StateWord<>::count_of(state_.raw());
    if (count != in_flight_ + held)
      fail("[LEDGER-bound] broken: count " + std::to_string(count) + " != in flight " +
           std::to_string(in_flight_) + " + held " + std::to_string(held));
    // Liveness: no worker stays asleep while work it could take is queued.
    bool asleep = false;
    for (const auto& w : workers_) asleep = asleep || w->state_ == WorkerState::parked;
    if (asleep && work_visible()) {
      if (++asleep_with_work_ > liveness_bound_)
        fail("liveness: a worker slept for " + std::to_string(asleep_with_work_) +
             " steps while work was queued (lost wake-up)");
    } else {
      asleep_with_work_ = 0;
    }
  }

  void loop() {
    std::vector<std::size_t> cands;  // workers 0..n-1, producer p as n + p
    for (;;) {
      cands.clear();
      bool all_exited = true;
      for (const auto& w : workers_) {
        if (w->state_ != WorkerState::exited) all_exited = false;
        if (w->state_ == WorkerState::running || w->state_ == WorkerState::announced) cands.push_back(w->id_);
      }
      std::uint64_t next_at = UINT64_MAX;
      bool events_left = false;
      for (std::size_t p = 0; p < next_event_.size(); ++p) {
        if (next_event_[p] >= c_.producers[p].size()) continue;
        events_left = true;
        const std::uint64_t at = c_.producers[p][next_event_[p]].at;
        if (at <= step_) cands.push_back(workers_.size() + p);
        else next_at = std::min(next_at, at);
      }
      if (cands.empty()) {
        if (all_exited && !events_left) return;
        if (events_left) {
          step_ = next_at;  // nothing can move until the next timed event
          continue;
        }
        std::size_t parked = 0;
        for (const auto& w : workers_) parked += w->state_ == WorkerState::parked ? 1 : 0;
        fail("stuck: " + std::to_string(parked) + " workers asleep for good, no events left, done=" +
             (done_ ? "yes" : "no") + ", count " + std::to_string(detail::StateWord<>::count_of(state_.raw())) +
             ", in flight " + std::to_string(in_flight_) + " (termination never signalled, or a lost wake-up)");
      }
      if (step_ >= c_.max_steps) fail("no termination within max_steps " + std::to_string(c_.max_steps));
      const std::size_t pick = cands[sched_rng_.next_below(cands.size())];
      if (pick < workers_.size()) step_worker(*workers_[pick]);
      else step_producer(pick - workers_.size());
      check_invariants();
      ++step_;
    }
  }

  // After every worker exited and every event happened (Executor::join's drain).
  void finish(RunResult& r) {
    std::uint64_t dropped = 0;
    for (Item i = 0; i < tasks_.size(); ++i)
      if (tasks_[i].runs == 0) ++dropped;
    std::uint64_t queued = injector_.size();
    for (const auto& w : workers_) queued += w->deque_.size();
    record(TraceKind::drop, 0, queued);
    r.dropped = dropped;
    if (queued != dropped)
      fail("exactly-once: " + std::to_string(dropped) + " tasks never ran but " + std::to_string(queued) +
           " are left in the queues");
    if (dropped != 0 && !shutdown_)
      fail(std::to_string(dropped) + " tasks dropped without a shutdown or an error");
    if (!done_) fail("all workers exited but done was never set");
    if (!shutdown_ && terminal_count_ != 1)
      fail("termination signalled " + std::to_string(terminal_count_) + " times, expected exactly once");
    if (!joined_ && !shutdown_) fail("terminated without join or shutdown");
    for (const auto& w : workers_)
      if (w->ledger_.held() != 0) fail("worker " + std::to_string(w->id_) + " exited holding units");
    const std::uint64_t count = detail::StateWord<>::count_of(state_.raw());
    if (count != dropped) fail("final count " + std::to_string(count) + " != dropped " + std::to_string(dropped));
    if (in_flight_ != dropped) fail("in flight " + std::to_string(in_flight_) + " at the end");

    auto expect = [&](const char* what, const Expected& e, std::uint64_t v) {
      if (!e.matches(v)) fail(std::string("expected ") + what + " " + e.describe() + ", got " + std::to_string(v));
    };
    expect("executed", c_.expect_executed, executed_);
    expect("dropped", c_.expect_dropped, dropped);
    expect("rejected", c_.expect_rejected, rejected_);
    if (c_.expect_error && *c_.expect_error != error_)
      fail(std::string("expected ") + (*c_.expect_error ? "an error" : "no error") + ", got " +
           (error_ ? "one" : "none"));
  }

  bool keep_trace_;
  XorShift64 sched_rng_;  // picks who steps next
  XorShift64 mem_rng_;    // stale reads and lost races
  detail::StateWord<> state_;
  std::vector<TaskRec> tasks_;
  std::vector<std::size_t> next_event_;  // per producer
  std::uint64_t liveness_bound_;
  bool shutdown_ = false, joined_ = false, error_ = false;
  std::uint64_t step_ = 0, executed_ = 0, in_flight_ = 0, accepted_ = 0, rejected_ = 0;
  std::uint64_t terminal_count_ = 0, asleep_with_work_ = 0, notify_cursor_ = 0;
  std::uint64_t hash_ = kFnvOffset;
  std::vector<TraceRecord> trace_;
};

void SimTrace::on_pop(std::size_t w, detail::PopSource s, std::size_t victim) noexcept {
  sim->record(TraceKind::pop, w, static_cast<std::uint64_t>(s), victim);
}
void SimTrace::on_steal_attempt(std::size_t w, std::size_t victim, StealStatus s) noexcept {
  sim->record(TraceKind::steal_attempt, w, victim, static_cast<std::uint64_t>(s));
}
void SimTrace::on_task_end(std::size_t w, bool ok) noexcept { sim->record(TraceKind::task_end, w, ok ? 1 : 0); }
void SimTrace::on_idle(std::size_t w, detail::IdleKind k) noexcept {
  sim->record(TraceKind::idle, w, static_cast<std::uint64_t>(k));
}
void SimTrace::on_exit(std::size_t w) noexcept { sim->record(TraceKind::exit, w); }

// Injector::steal_batch_and_pop: up to 32 tasks, one to run, the rest into the own deque.
Steal<Item> SimWorker::steal_injector() {
  auto& inj = sim_.injector_;
  if (inj.empty()) return Steal<Item>::empty();
  if (sim_.chance(sim_.c_.retry_percent)) return Steal<Item>::retry();
  const Item first = inj.front();
  inj.pop_front();
  for (int i = 1; i < 32 && !inj.empty(); ++i) {
    deque_.push_back(inj.front());
    inj.pop_front();
  }
  return Steal<Item>::success(first);
}

Steal<Item> SimWorker::steal_from(std::size_t victim) {
  auto& d = sim_.workers_[victim]->deque_;
  if (d.empty()) return Steal<Item>::empty();
  if (sim_.chance(sim_.c_.retry_percent)) return Steal<Item>::retry();
  const Item it = d.front();  // thieves: FIFO
  if (sim_.mutant_ != Mutant::double_run) d.pop_front();
  return Steal<Item>::success(it);
}

std::size_t SimWorker::worker_count() const noexcept { return sim_.workers_.size(); }
std::uint32_t SimWorker::steal_tries() const noexcept { return sim_.c_.steal_tries; }
bool SimWorker::is_done() const noexcept { return sim_.done_; }
bool SimWorker::run(Item item) { return sim_.run_task(*this, item); }

}  // namespace

RunResult run_case(const Case& c, std::uint64_t seed, Mutant mutant, bool keep_trace) {
  return Sim(c, seed, mutant, keep_trace).run();
}

std::string format_trace(const Case& c, const std::vector<TraceRecord>& trace) {
  static constexpr const char* kSources[] = {"local", "injector", "steal"};
  static constexpr const char* kStatus[] = {"empty", "success", "retry"};
  static constexpr const char* kIdle[] = {"spin", "yield", "park"};
  std::ostringstream out;
  for (const TraceRecord& r : trace) {
    const auto k = static_cast<TraceKind>(r.kind);
    const bool producer = k == TraceKind::external || k == TraceKind::rejected || k == TraceKind::join ||
                          k == TraceKind::shutdown;
    out << "step " << r.step << (producer ? " producer " : " w") << r.worker << ' ' << kKindNames[r.kind];
    switch (k) {
      case TraceKind::pop: out << " from " << kSources[r.a % 3] << " victim " << r.b; break;
      case TraceKind::steal_attempt: out << " victim " << r.a << ' ' << kStatus[r.b % 3]; break;
      case TraceKind::run: out << " task #" << r.a << " (" << c.programs[r.b].name << ')'; break;
      case TraceKind::task_end: out << (r.a ? " ok" : " threw"); break;
      case TraceKind::idle: out << ' ' << kIdle[r.a % 3]; break;
      case TraceKind::unpark: out << (r.a ? " (token at re-check)" : ""); break;
      case TraceKind::spawn_local:
      case TraceKind::spawn_global: out << " task #" << r.a; break;
      case TraceKind::external: out << ' ' << r.a << " x " << c.programs[r.b].name; break;
      case TraceKind::rejected: out << ' ' << r.a << " tasks (gate closed)"; break;
      case TraceKind::settle: out << ' ' << r.a << " units"; break;
      case TraceKind::terminal: out << " (in flight " << r.a << ')'; break;
      case TraceKind::drop: out << ' ' << r.a << " tasks left queued"; break;
      default: break;
    }
    out << '\n';
  }
  return out.str();
}

}  // namespace stealpool::sim

// sim/simulator.cpp: the simulator (see simulator.hpp and sim/README.md): the
// scheduler loop, the executor's tasks and spawn paths, sleeping and waking, the
// invariants. Fork-join jobs, joins and latches are in forkjoin.cpp.
#include "simulator.hpp"

#include <algorithm>
#include <sstream>

#include "sim_internal.hpp"

namespace stealpool::sim {

namespace internal {

namespace {

// The same threshold as WorkerCtx::spawn_local (kWakeOnHoardThreshold).
constexpr std::uint32_t kHoardThreshold = 32;

}  // namespace

Sim::Sim(const Case& c, std::uint64_t seed, Mutant mutant, bool keep_trace)
    : c_(c), mutant_(mutant), keep_trace_(keep_trace),
      sched_rng_(derive_worker_seed(seed, 1000)), mem_rng_(derive_worker_seed(seed, 2000)),
      next_event_(c.producers.size(), 0), blocked_(c.producers.size(), kNoItem),
      liveness_bound_(c.liveness_bound != 0 ? c.liveness_bound : 64 * c.workers * c.workers + 64),
      hash_(kFnvOffset) {
  for (std::size_t i = 0; i < c.workers; ++i)
    workers_.push_back(std::make_unique<SimWorker>(*this, i, seed, state_, lines_, c, mutant));
}

RunResult Sim::run() {
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
  r.forkjoin = fj_;
  r.shared_writes = lines_;
  for (const auto& w : workers_) {
    r.metrics += w->metrics_;
    r.forkjoin.publishes += w->deque_.request_publishes();
  }
  r.trace = std::move(trace_);
  return r;
}

void Sim::fail(const std::string& what) { throw Violation{"step " + std::to_string(step_) + ": " + what}; }

Item Sim::new_task(std::uint32_t program, std::uint32_t depth, bool counted) {
  TaskRec t{program, depth};
  t.counted = counted;
  tasks_.push_back(t);
  if (counted) ++in_flight_;
  return static_cast<Item>(tasks_.size() - 1);
}

// A running task of worker w ran (ExecutorWorker::run and the spawn paths of
// WorkerCtx). false: it threw.
bool Sim::run_task(SimWorker& w, Item item) {
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
        ledger_spawn(w);
        spawn_local(w, cont);
        break;
      }
      for (std::size_t j = 0; j < op.children.size(); ++j) {
        const Item id = new_task(op.children[j], depth + op.depth_steps[j]);
        ledger_spawn(w);
        if (op.kind == Op::Kind::spawn_local) spawn_local(w, id);
        else spawn_global(w, id);
      }
    }
  }
  tasks_[item].finished = true;
  w.ledger_.complete();
  --in_flight_;
  if (!ok) {
    error_ = true;
    shutdown();  // ExecutorWorker::run: record the error, stop the executor
  }
  return ok;
}

// Ledger::spawn: a shared write only when it reserves (nothing owed, no credit).
void Sim::ledger_spawn(SimWorker& w) {
  if (w.ledger_.held() == 0) lines_.add(LineOp::state_reserve);
  w.ledger_.spawn();
}

// SleepRegistry::cancel after a sleep (cancelled, token, or woken): its
// fetch_and, and the count's fetch_sub if the bit was still its own; then the
// latch's end_sleep.
void Sim::cancel_sleep(SimWorker& w) {
  lines_.add(w.registered_ ? LineOp::cancel_own : LineOp::cancel_lost);
  w.registered_ = false;
  end_sleep(w);
}

// WorkerCtx::spawn_local, with the sleeper-count read made stale on demand.
void Sim::spawn_local(SimWorker& w, Item id) {
  (void)w.deque_.push(id);
  ++w.metrics_.local_spawns;
  record(TraceKind::spawn_local, w.id_, id);
  if (mutant_ != Mutant::no_hoard && ++w.spawns_since_wake_ >= kHoardThreshold) {
    w.spawns_since_wake_ = 0;
    if (notify(1) != 0) ++w.metrics_.hoard_wakes;
  } else if (sleeping_hint() != 0) {
    if (notify(1) != 0) ++w.metrics_.spawn_wakes;
  }
}

void Sim::spawn_global(SimWorker& w, Item id) {
  injector_.push(id);
  ++w.metrics_.global_spawns;
  record(TraceKind::spawn_global, w.id_, id);
  if (notify(1) != 0) ++w.metrics_.spawn_wakes;
}

// The relaxed read of the sleeper count: sometimes a stale 0 (stale_reads %).
std::size_t Sim::sleeping_hint() {
  std::size_t n = 0;
  for (const auto& w : workers_) n += w->registered_ ? 1 : 0;
  return chance(c_.stale_reads) ? 0 : n;
}

// SleepRegistry::notify: wakes up to n registered sleepers, the latest to
// announce first, then upward from it. With none registered (or n == 0) it
// writes nothing: a fence and a load.
std::size_t Sim::notify(std::size_t n) {
  std::size_t woken = 0;
  const std::size_t start = latest_sleeper_;
  for (std::size_t i = 0; i < workers_.size() && woken < n; ++i) {
    SimWorker& w = *workers_[(start + i) % workers_.size()];
    if (!w.registered_) continue;
    lines_.add(LineOp::wake_claim);
    w.registered_ = false;
    unpark(w);
    ++woken;
  }
  return woken;
}

// Parker::unpark: a token; a parked worker wakes and consumes it at once, then
// does what sleep_on does after park(): cancel, end_sleep on its latch, and
// tell its idle policy it was woken.
void Sim::unpark(SimWorker& w) {
  lines_.add(LineOp::unpark);
  w.token_ = true;
  if (w.state_ != WorkerState::parked) return;
  lines_.add(LineOp::park_woken);
  w.token_ = false;
  w.state_ = WorkerState::running;
  ++w.metrics_.unparks;
  sleeping_idle(w).on_woken(true);
  cancel_sleep(w);
  record(TraceKind::unpark, w.id_);
}

void Sim::initiate_done() {
  lines_.add(LineOp::done_store);  // every call stores; its unpark_all is counted per worker
  if (!done_) record(TraceKind::done, 0);
  done_ = true;
  for (auto& w : workers_) unpark(*w);
}

void Sim::saw(detail::Terminal t, std::size_t who) {
  if (t != detail::Terminal::yes) return;
  record(TraceKind::terminal, who, in_flight_);
  if (++terminal_count_ > 1) fail("termination signalled twice");
  if (in_flight_ != 0) fail("termination signalled with " + std::to_string(in_flight_) + " tasks in flight");
}

void Sim::shutdown() {
  shutdown_ = true;
  lines_.add(LineOp::state_close);
  (void)state_.close();  // as ExecutorShared::shutdown: the close's result is not used
  initiate_done();
}

void Sim::settle(SimWorker& w) {
  const std::uint64_t held = w.ledger_.held();
  const detail::Terminal t = w.ledger_.settle();
  if (held != 0) {
    lines_.add(LineOp::state_settle);
    record(TraceKind::settle, w.id_, held);
  }
  saw(t, w.id_);
  if (t == detail::Terminal::yes) initiate_done();
}

// ExecutorShared::work_visible: public items only (private ones are the owner's).
bool Sim::work_visible() const {
  if (!injector_.empty()) return true;
  for (const auto& w : workers_)
    if (!w->deque_.empty_hint()) return true;
  return false;
}

// Private items some thief asked for: the owner publishes them at its next push
// or pop, so a sleeper may not stay asleep beside them for long either.
bool Sim::publishable_work() const {
  for (const auto& w : workers_)
    if (w->deque_.publishable()) return true;
  return false;
}

// One step of worker w: ExecutorWorker::loop and ExecutorWorker::sleep_on, with the
// sleep split in two steps (announce, then re-check and park) so that other
// steps can come between them, as other threads can. A worker running fork-join
// jobs steps its innermost frame instead (forkjoin.cpp).
void Sim::step_worker(SimWorker& w) {
  if (w.state_ == WorkerState::announced) return step_sleep(w);
  if (!w.frames_.empty()) return step_frame(w);
  SimTrace trace{this};
  const detail::StepResult r = detail::worker_step(w, w.idle_, trace);
  switch (r.kind) {
    case detail::StepKind::ran_task:
    case detail::StepKind::no_work:
      break;
    case detail::StepKind::should_park:
      if (mutant_ != Mutant::skip_settle) settle(w);  // [LEDGER-bound]
      if (done_) break;                                // DoneLatch::prepare_sleep
      w.registered_ = true;  // SleepRegistry::announce
      lines_.add(LineOp::announce);
      if (latest_sleeper_ != w.id_) {  // announce's store of latest_, only when it changes
        latest_sleeper_ = w.id_;
        lines_.add(LineOp::announce_latest);
      }
      w.state_ = WorkerState::announced;
      w.sleep_latch_ = kNoItem;
      record(TraceKind::announce, w.id_);
      break;
    case detail::StepKind::exit_done:
    case detail::StepKind::exit_panicked:
      settle(w);
      w.state_ = WorkerState::exited;
      break;
  }
}

// The second half of sleep_on: re-check (work anyone could take, or the latch:
// `done` for the main loop), then cancel, consume a token, or park.
void Sim::step_sleep(SimWorker& w) {
  const bool latch = w.sleep_latch_ == kNoItem ? done_ : latch_probe(w.sleep_latch_);
  if (work_visible() || latch) {
    w.state_ = WorkerState::running;
    cancel_sleep(w);  // a token a waker sent stays for the next park
    record(TraceKind::cancel, w.id_);
  } else if (w.token_) {
    lines_.add(LineOp::park_token);
    w.token_ = false;
    w.state_ = WorkerState::running;
    ++w.metrics_.unparks;
    sleeping_idle(w).on_woken(true);
    cancel_sleep(w);
    record(TraceKind::unpark, w.id_, 1);
  } else {
    lines_.add(LineOp::park_sleep);
    w.state_ = WorkerState::parked;
    ++w.metrics_.parks;
    if (w.sleep_latch_ != kNoItem) ++fj_.latch_parks;
    record(TraceKind::park, w.id_);
  }
}

void Sim::step_producer(std::size_t p) {
  const Event& e = c_.producers[p][next_event_[p]++];
  switch (e.kind) {
    case Event::Kind::external: {
      if (!state_.try_acquire_external(e.count)) {
        rejected_ += e.count;
        record(TraceKind::rejected, p, e.count);
        return;
      }
      lines_.add(LineOp::state_acquire);
      accepted_ += e.count;
      // One push_batch for a batch (a single spawn is a batch of one).
      std::vector<Item> batch;
      for (std::uint32_t i = 0; i < e.count; ++i) batch.push_back(new_task(e.program, 0));
      injector_.push_batch(batch);
      record(TraceKind::external, p, e.count, e.program);
      (void)notify(std::min<std::size_t>(e.count, workers_.size()));
      return;
    }
    case Event::Kind::run:
      run_call(p, e);
      return;
    case Event::Kind::join:
      record(TraceKind::join, p);
      joined_ = true;
      lines_.add(LineOp::state_close);
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
void Sim::check_invariants() {
  // [LEDGER-bound]: count == in_flight + sum of what the ledgers hold, exactly.
  std::uint64_t held = 0;
  for (const auto& w : workers_) held += w->ledger_.held();
  const std::uint64_t count = detail::StateWord<>::count_of(state_.raw());
  if (count != in_flight_ + held)
    fail("[LEDGER-bound] broken: count " + std::to_string(count) + " != in flight " +
         std::to_string(in_flight_) + " + held " + std::to_string(held));
  // Liveness: no worker stays asleep while work it could take is queued, or
  // while private work a thief asked for waits for its owner to publish it.
  bool asleep = false;
  for (const auto& w : workers_) asleep = asleep || w->state_ == WorkerState::parked;
  if (asleep && (work_visible() || (c_.forkjoin && publishable_work()))) {
    if (++asleep_with_work_ > liveness_bound_)
      fail("liveness: a worker slept for " + std::to_string(asleep_with_work_) +
           " steps while work was queued or asked for (lost wake-up, or a publish that never came)");
  } else {
    asleep_with_work_ = 0;
  }
  if (asleep && c_.forkjoin) check_latch_sleepers();
}

void Sim::loop() {
  std::vector<std::size_t> cands;  // workers 0..n-1, producer p as n + p
  for (;;) {
    cands.clear();
    bool all_exited = true;
    for (const auto& w : workers_) {
      if (w->state_ != WorkerState::exited) all_exited = false;
      if (w->state_ == WorkerState::running || w->state_ == WorkerState::announced) cands.push_back(w->id_);
    }
    std::uint64_t next_at = UINT64_MAX;
    bool events_left = false, blocked = false;
    for (std::size_t p = 0; p < next_event_.size(); ++p) {
      if (blocked_[p] != kNoItem) {  // in run(), until its job's latch is set
        blocked = true;
        continue;
      }
      if (next_event_[p] >= c_.producers[p].size()) continue;
      events_left = true;
      const std::uint64_t at = c_.producers[p][next_event_[p]].at;
      if (at <= step_) cands.push_back(workers_.size() + p);
      else next_at = std::min(next_at, at);
    }
    if (cands.empty()) {
      if (all_exited && !events_left && !blocked) return;
      if (events_left) {
        step_ = next_at;  // nothing can move until the next timed event
        continue;
      }
      std::size_t parked = 0;
      for (const auto& w : workers_) parked += w->state_ == WorkerState::parked ? 1 : 0;
      fail("stuck: " + std::to_string(parked) + " workers asleep for good, no events left" +
           (blocked ? " (a producer is blocked in run())" : "") + ", done=" + (done_ ? "yes" : "no") +
           ", count " + std::to_string(detail::StateWord<>::count_of(state_.raw())) + ", in flight " +
           std::to_string(in_flight_) + " (termination never signalled, or a lost wake-up)");
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
void Sim::finish(RunResult& r) {
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
  for (const auto& w : workers_) {
    if (w->ledger_.held() != 0) fail("worker " + std::to_string(w->id_) + " exited holding units");
    if (!w->frames_.empty()) fail("worker " + std::to_string(w->id_) + " exited inside a job");
  }
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

// ExecutorWorker::pop_local: a fork-join worker publishes after a pop if a thief asked.
std::optional<Item> SimWorker::pop_local() {
  std::optional<Item> item = deque_.pop();
  if (item && sim_.c_.forkjoin && deque_.publish_requested() == PushResult::published) {
    sim_.record(TraceKind::publish, id_, deque_.size() - deque_.private_count());
    sim_.wake_for_published(*this);
  }
  return item;
}

// Executor pools: Injector::steal_batch_and_pop, up to 32 tasks, one to run, the
// rest into the own deque. Fork-join pools take one job at a time.
Steal<Item> SimWorker::steal_injector() {
  auto& inj = sim_.injector_;
  if (inj.empty()) return Steal<Item>::empty();
  if (sim_.chance(sim_.c_.retry_percent)) {
    inj.lost_race();
    return Steal<Item>::retry();
  }
  const std::size_t n = sim_.c_.forkjoin ? 1 : std::min<std::size_t>(32, inj.size());
  return Steal<Item>::success(inj.take(n, [&](Item rest) { (void)deque_.push(rest); }));
}

Steal<Item> SimWorker::steal_from(std::size_t victim) {
  auto& d = sim_.workers_[victim]->deque_;
  if (!d.has_public()) {
    d.ask();  // a split deque's thief raises `request`
    return Steal<Item>::empty();
  }
  if (sim_.chance(sim_.c_.retry_percent)) {
    d.lost_race();
    return Steal<Item>::retry();
  }
  const Item it = d.front();  // thieves: FIFO
  if (sim_.mutant_ != Mutant::double_run) d.take_front();
  return Steal<Item>::success(it);
}

std::size_t SimWorker::worker_count() const noexcept { return sim_.workers_.size(); }
std::uint32_t SimWorker::steal_tries() const noexcept { return sim_.c_.steal_tries; }
bool SimWorker::is_done() const noexcept { return sim_.done_; }
bool SimWorker::run(Item item) { return sim_.c_.forkjoin ? sim_.start_job(*this, item) : sim_.run_task(*this, item); }

}  // namespace internal

RunResult run_case(const Case& c, std::uint64_t seed, Mutant mutant, bool keep_trace) {
  return internal::Sim(c, seed, mutant, keep_trace).run();
}

std::string format_trace(const Case& c, const std::vector<TraceRecord>& trace) {
  using internal::TraceKind;
  static constexpr const char* kKindNames[] = {
    "pop", "steal_attempt", "run", "task_end", "idle", "announce", "cancel", "park", "unpark", "exit",
    "spawn_local", "spawn_global", "external", "rejected", "join", "shutdown", "settle", "terminal", "done", "drop",
    "push", "publish", "fork", "take_back", "joined", "latch_set", "end", "work", "run_call", "run_return",
    "inline"};
  static constexpr const char* kSources[] = {"local", "injector", "steal"};
  static constexpr const char* kStatus[] = {"empty", "success", "retry"};
  static constexpr const char* kIdle[] = {"spin", "yield", "park"};
  static constexpr const char* kPush[] = {"kept private", "published", "full"};
  static constexpr const char* kTakeBack[] = {"popped back", "ran another job", "stolen: wait"};
  std::ostringstream out;
  auto task = [&](std::uint64_t id) { return " #" + std::to_string(id); };
  for (const TraceRecord& r : trace) {
    const auto k = static_cast<TraceKind>(r.kind);
    const bool producer = k == TraceKind::external || k == TraceKind::rejected || k == TraceKind::join ||
                          k == TraceKind::shutdown || k == TraceKind::run_call || k == TraceKind::run_return;
    out << "step " << r.step << (producer ? " producer " : " w") << r.worker << ' ' << kKindNames[r.kind];
    switch (k) {
      case TraceKind::pop: out << " from " << kSources[r.a % 3] << " victim " << r.b; break;
      case TraceKind::steal_attempt: out << " victim " << r.a << ' ' << kStatus[r.b % 3]; break;
      case TraceKind::run:
      case TraceKind::inline_run:
      case TraceKind::run_call: out << " task" << task(r.a) << " (" << c.programs[r.b].name << ')'; break;
      case TraceKind::task_end: out << (r.a ? " ok" : " threw"); break;
      case TraceKind::idle: out << ' ' << kIdle[r.a % 3]; break;
      case TraceKind::announce: if (r.a) out << " on the latch of" << task(r.a - 1); break;
      case TraceKind::unpark: out << (r.a ? " (token at re-check)" : ""); break;
      case TraceKind::spawn_local:
      case TraceKind::spawn_global: out << " task" << task(r.a); break;
      case TraceKind::external: out << ' ' << r.a << " x " << c.programs[r.b].name; break;
      case TraceKind::rejected: out << ' ' << r.a << " tasks (gate closed)"; break;
      case TraceKind::settle: out << ' ' << r.a << " units"; break;
      case TraceKind::terminal: out << " (in flight " << r.a << ')'; break;
      case TraceKind::drop: out << ' ' << r.a << " tasks left queued"; break;
      case TraceKind::push: out << " job" << task(r.a) << ' ' << kPush[r.b % 3]; break;
      case TraceKind::publish: out << " on request: " << r.a << " public"; break;
      case TraceKind::fork: out << " a" << task(r.a) << " inline, b" << task(r.b); break;
      case TraceKind::take_back: out << " b" << task(r.a) << ": " << kTakeBack[r.b % 3]; break;
      case TraceKind::joined: out << " b" << task(r.a) << (r.b ? " (its latch was set)" : ""); break;
      case TraceKind::latch_set: out << " of" << task(r.a) << (r.b ? ", unparks its waiter" : ""); break;
      case TraceKind::end: out << " task" << task(r.a) << (r.b ? " (a job)" : " (inline)"); break;
      case TraceKind::work: out << " task" << task(r.a) << ", " << r.b << " steps left"; break;
      case TraceKind::run_return: out << " job" << task(r.a) << " done"; break;
      default: break;
    }
    out << '\n';
  }
  return out.str();
}

}  // namespace stealpool::sim

// sim/forkjoin.cpp: fork-join pools in the simulator (`pool forkjoin`,
// sim/README.md "Fork-join"). A worker runs jobs as a stack of frames, one step
// at a time; join, take-back and the helping wait are the points of
// join_on/take_back/wait_until (forkjoin/thread_pool.hpp,
// engine/executor_worker.hpp) at which a thread could be interrupted, and the
// decisions at those points are the real core policy's: take_back_step() and
// wait_step() (core/wait_step.hpp) run on SimWorker as they run on
// ExecutorWorker. Latches follow WorkerLatch (forkjoin/latch.hpp): unset ->
// sleeping -> unset ... -> set, the setter unparking a waiter it sees sleeping.
#include <string>

#include "sim_internal.hpp"

namespace stealpool::sim::internal {

namespace {
std::string job_name(Item id) { return "job #" + std::to_string(id); }
}  // namespace

// --- SimWorker: the fork-join parts of the Ctx --------------------------------

// ExecutorWorker::ran_inline: the joiner took its own job back.
void SimWorker::ran_inline() { sim_.ran_inline(*this); }

// ExecutorWorker::run_popped: a job left above the joiner's own (a spawn).
void SimWorker::run_popped(Item item) {
  detail::count_task(metrics_, detail::PopSource::local);
  (void)run(item);
}

bool SimLatch::probe() const { return sim->latch_probe(job); }

// --- Sim ------------------------------------------------------------------------

// Ctx::run for a fork-join pool: the job starts; its frame takes the worker's
// next steps, and it completes (ledger, latch) when its program ends.
bool Sim::start_job(SimWorker& w, Item item) {
  TaskRec& t = tasks_[item];
  record(TraceKind::run, w.id_, item, t.program);
  if (done_) fail(job_name(item) + " started after termination was signalled");
  if (++t.runs > 1) fail("exactly-once: " + job_name(item) + " ran " + std::to_string(t.runs) + " times");
  ++executed_;
  w.frames_.push_back(Frame{item, /*counted=*/true});
  return true;  // a job keeps its own exception (never false)
}

// A branch that runs inline on the joiner's stack: join's first branch, the
// pushed job when it comes back, or both when the deque was full.
void Sim::start_inline(SimWorker& w, Item item) {
  TaskRec& t = tasks_[item];
  record(TraceKind::inline_run, w.id_, item, t.program);
  if (++t.runs > 1) fail("exactly-once: " + job_name(item) + " ran " + std::to_string(t.runs) + " times");
  ++executed_;
  w.frames_.push_back(Frame{item, /*counted=*/false});
}

void Sim::ran_inline(SimWorker& w) {
  w.ledger_.complete();  // its unit: it is done as a job, the rest runs inline
  detail::count_task(w.metrics_, detail::PopSource::local);
  --in_flight_;
}

// ExecutorWorker::wake_for_published: the producer side of [SLEEP-dekker]; as
// many sleepers as there are public items (a publish is a batch).
void Sim::wake_for_published(SimWorker& w) {
  if (notify(mutant_ == Mutant::wake_one ? 1 : w.deque_.public_count()) != 0) ++w.metrics_.spawn_wakes;
}

bool Sim::latch_probe(Item job) const {
  return mutant_ == Mutant::join_no_wait || tasks_[job].latch == LatchState::set;
}

// WorkerLatch::prepare_sleep: CAS unset -> sleeping; false if already set.
bool Sim::latch_prepare_sleep(Item job) {
  lines_.add(LineOp::latch_prepare);  // a CAS, also when it fails
  LatchState& l = tasks_[job].latch;
  if (l != LatchState::unset) return false;
  l = LatchState::sleeping;
  return true;
}

// After a sleep on a latch (cancelled, token consumed, or unparked):
// WorkerLatch::end_sleep, CAS sleeping -> unset (fails harmlessly if set).
void Sim::end_sleep(SimWorker& w) {
  if (w.sleep_latch_ == kNoItem) return;
  lines_.add(LineOp::latch_end_sleep);
  LatchState& l = tasks_[w.sleep_latch_].latch;
  if (l == LatchState::sleeping) l = LatchState::unset;
  w.sleep_latch_ = kNoItem;
}

detail::TieredIdle& Sim::sleeping_idle(SimWorker& w) {
  return w.sleep_latch_ == kNoItem ? w.idle_ : w.frames_[w.sleep_frame_].idle;
}

// The job's runner finished it (StackJob::execute_stolen's set(), then
// ExecutorWorker::run's ledger completion). Nothing touches a latch once set.
void Sim::set_latch(Item job, std::size_t setter) {
  TaskRec& t = tasks_[job];
  if (t.latch == LatchState::none) return;  // a spawned or external job: nobody waits on it
  if (t.latch == LatchState::set) fail("the latch of " + job_name(job) + " was set twice");
  if (t.waiter_is_producer) {  // ThreadLatch: the thread blocked in run() returns
    lines_.add(LineOp::thread_latch_set);
    t.latch = LatchState::set;
    blocked_[t.waiter] = kNoItem;
    record(TraceKind::run_return, t.waiter, job);
    return;
  }
  const bool was_sleeping = t.latch == LatchState::sleeping;
  lines_.add(LineOp::latch_set);
  t.latch = LatchState::set;  // exchange(set)
  record(TraceKind::latch_set, setter, job, was_sleeping ? 1 : 0);
  if (was_sleeping && mutant_ != Mutant::latch_no_unpark) {
    SimWorker& waiter = *workers_[t.waiter];
    if (waiter.state_ == WorkerState::parked) ++fj_.latch_unparks;
    unpark(waiter);  // its Parker: a token if it has not parked yet
  }
}

// The first half of sleep_on for a waiter: settle, announce to the latch and the
// registry. The second half (re-check, park) is Sim::step_sleep.
void Sim::sleep_on_latch(SimWorker& w, Item job) {
  if (mutant_ != Mutant::skip_settle) settle(w);  // [LEDGER-bound]
  if (!latch_prepare_sleep(job)) return;          // already set
  w.registered_ = true;                           // SleepRegistry::announce
  lines_.add(LineOp::announce);
  w.state_ = WorkerState::announced;
  w.sleep_latch_ = job;
  w.sleep_frame_ = w.frames_.size() - 1;
  record(TraceKind::announce, w.id_, std::uint64_t{job} + 1);
}

// ExecutorWorker::push_local: false if the deque is full (nothing happened).
bool Sim::push_job(SimWorker& w, Item id) {
  const PushResult r = w.deque_.push(id);
  record(TraceKind::push, w.id_, id, static_cast<std::uint64_t>(r));
  if (r == PushResult::full) return false;
  ledger_spawn(w);
  tasks_[id].counted = true;
  ++in_flight_;
  ++w.metrics_.local_spawns;
  if (r == PushResult::published) wake_for_published(w);
  return true;
}

// ExecutorWorker::push_global.
void Sim::push_global_job(SimWorker& w, Item id) {
  ledger_spawn(w);
  tasks_[id].counted = true;
  ++in_flight_;
  injector_.push(id);
  ++w.metrics_.global_spawns;
  record(TraceKind::spawn_global, w.id_, id);
  if (notify(1) != 0) ++w.metrics_.spawn_wakes;
}

void Sim::step_frame(SimWorker& w) {
  Frame& f = w.frames_.back();
  switch (f.phase) {
    case Frame::Phase::ops: return step_ops(w);
    case Frame::Phase::take_back: return step_take_back(w);
    case Frame::Phase::waiting: return step_wait(w);
    case Frame::Phase::after_b: {
      // The join returns: its pushed job must have finished, wherever it ran.
      const TaskRec& b = tasks_[f.b];
      record(TraceKind::joined, w.id_, f.b, b.latch == LatchState::set ? 1 : 0);
      if (!b.finished)
        fail("a join returned before its pushed " + job_name(f.b) + " finished (" +
             (b.runs == 0 ? "it has not even started" : "it is still running") + ")");
      f.phase = Frame::Phase::ops;
      f.b = kNoItem;
      ++f.pc;
      return;
    }
  }
}

// The next op of the frame's program; a program past its last op (or a leaf:
// an instance at its depth limit) ends the frame.
void Sim::step_ops(SimWorker& w) {
  Frame& f = w.frames_.back();
  const TaskRec& t = tasks_[f.task];
  const Program& p = c_.programs[t.program];
  const std::uint32_t depth = t.depth;  // tasks_ may grow below
  if ((p.depth_limit != 0 && depth >= p.depth_limit) || f.pc >= p.ops.size()) return end_frame(w);
  const Op& op = p.ops[f.pc];
  switch (op.kind) {
    case Op::Kind::work:
      if (f.work_left == 0) f.work_left = op.count;
      --f.work_left;
      record(TraceKind::work, w.id_, f.task, f.work_left);
      if (f.work_left == 0) ++f.pc;
      return;
    case Op::Kind::spawn_local:
    case Op::Kind::spawn_global:
      // TaskGroup::spawn: the own deque, else (full) the injector.
      ++f.pc;
      for (std::size_t j = 0; j < op.children.size(); ++j) {
        const Item id = new_task(op.children[j], depth + op.depth_steps[j], /*counted=*/false);
        if (op.kind == Op::Kind::spawn_local && push_job(w, id)) continue;
        push_global_job(w, id);
      }
      return;
    case Op::Kind::join: {
      // join_on: b on the deque (its latch waits for the joiner), then a inline.
      const Item b = new_task(op.children[1], depth + op.depth_steps[1], /*counted=*/false);
      tasks_[b].latch = LatchState::unset;
      tasks_[b].waiter = static_cast<std::uint32_t>(w.id_);
      const bool pushed = push_job(w, b);
      if (!pushed) ++fj_.full;
      const Item a = new_task(op.children[0], depth + op.depth_steps[0], /*counted=*/false);
      record(TraceKind::fork, w.id_, a, b);
      f.b = b;
      f.b_pushed = pushed;
      f.phase = Frame::Phase::take_back;
      start_inline(w, a);
      return;
    }
    case Op::Kind::throw_error:
    case Op::Kind::yield:
      break;
  }
  fail("op not allowed in a fork-join program");  // the parser rejects these
}

// take_back (forkjoin/thread_pool.hpp): one take_back_step per simulator step.
void Sim::step_take_back(SimWorker& w) {
  Frame& f = w.frames_.back();
  const Item b = f.b;
  if (!f.b_pushed) {  // join_on: the deque was full, b runs inline after a
    f.phase = Frame::Phase::after_b;
    return start_inline(w, b);
  }
  const detail::TakeBack r = detail::take_back_step(w, b);
  record(TraceKind::take_back, w.id_, b, static_cast<std::uint64_t>(r));
  switch (r) {
    case detail::TakeBack::popped_back:
      // It must come back untouched: never run, latch never used.
      if (tasks_[b].runs != 0 || tasks_[b].latch != LatchState::unset)
        fail("the popped-back " + job_name(b) + " already ran or its latch was used");
      ++fj_.popped_back;
      f.phase = Frame::Phase::after_b;  // f is still valid: ran_inline pushed no frame
      return start_inline(w, b);
    case detail::TakeBack::ran_other:
      ++fj_.ran_other;
      return;  // that job's frame runs now; then pop again
    case detail::TakeBack::stolen:
      ++fj_.stolen;
      f.phase = Frame::Phase::waiting;
      f.idle = detail::TieredIdle(c_.spin_iters, std::chrono::milliseconds(1));  // wait_until's own
      return;
  }
}

// wait_until (engine/executor_worker.hpp): one wait_step per simulator step; a
// job it finds runs as a new frame above this one.
void Sim::step_wait(SimWorker& w) {
  Frame& f = w.frames_.back();  // stays valid while frames are pushed (a deque)
  const Item b = f.b;
  SimLatch latch{this, b};
  SimTrace trace{this};
  const detail::WaitResult r = detail::wait_step(w, latch, f.idle, trace);
  switch (r.kind) {
    case detail::WaitKind::latch_set: f.phase = Frame::Phase::after_b; return;
    case detail::WaitKind::ran_task:
    case detail::WaitKind::no_work: return;
    case detail::WaitKind::should_park: return sleep_on_latch(w, b);
  }
}

// A frame's program ended. A job taken from a queue then does what
// StackJob::execute_stolen and ExecutorWorker::run do: set its latch (the last
// touch: its joiner may return at once), complete its ledger unit.
void Sim::end_frame(SimWorker& w) {
  const Item task = w.frames_.back().task;
  const bool counted = w.frames_.back().counted;
  w.frames_.pop_back();
  tasks_[task].finished = true;
  record(TraceKind::end, w.id_, task, counted ? 1 : 0);
  if (!counted) return;  // an inline branch: its parent frame goes on
  set_latch(task, w.id_);
  w.ledger_.complete();
  --in_flight_;
}

// ThreadPool::run from a plain thread: inject a job with a ThreadLatch and block.
void Sim::run_call(std::size_t producer, const Event& e) {
  if (!state_.try_acquire_external(1)) {  // run() throws: the pool is being destroyed
    ++rejected_;
    record(TraceKind::rejected, producer, 1);
    return;
  }
  lines_.add(LineOp::state_acquire);
  ++accepted_;
  const Item id = new_task(e.program, 0);
  tasks_[id].latch = LatchState::unset;
  tasks_[id].waiter_is_producer = true;
  tasks_[id].waiter = static_cast<std::uint32_t>(producer);
  injector_.push(id);
  record(TraceKind::run_call, producer, id, e.program);
  blocked_[producer] = id;
  (void)notify(1);
}

// No lost wake-up of a waiter: one parked on a latch that is set must have been
// unparked by the setter (a parked worker wakes at once on a token).
void Sim::check_latch_sleepers() {
  for (const auto& w : workers_)
    if (w->state_ == WorkerState::parked && w->sleep_latch_ != kNoItem &&
        tasks_[w->sleep_latch_].latch == LatchState::set)
      fail("lost wake-up: worker " + std::to_string(w->id_) + " sleeps on the latch of " +
           job_name(w->sleep_latch_) + ", which is set (its setter did not unpark it)");
}

}  // namespace stealpool::sim::internal

// stealpool/forkjoin/task_group.hpp: TaskGroup, any number of tasks spawned
// and waited for together.
//
//   stealpool::TaskGroup tg;                  // the current worker's pool, else default_pool()
//   for (auto& item : items) tg.spawn([&item] { process(item); });
//   tg.wait();                                // helps run them; rethrows the first exception
//
// spawn(f): f is moved into a job. On a worker of the group's pool the job takes
//   a block of that worker's JobArena (no allocator call once the arena has
//   grown to the worker's peak of live jobs; callables over JobArena::kPayload
//   bytes go to the heap) and goes on the worker's deque; elsewhere it is
//   allocated with operator new and goes into the pool's injector.
//   std::runtime_error if the pool is being destroyed; std::bad_alloc if memory
//   runs out. Either way nothing was queued and the group is as before.
// wait(): returns when every task spawned so far has finished, tasks they spawn
//   into the group included. On a worker of the group's pool it runs jobs
//   meanwhile: its own deque's, the injector's, other workers' (any job of the
//   pool, not only this group's: a plain wait may run unrelated work on top of
//   the caller's frame, so do not hold a lock across it that such work may take).
//   Elsewhere it blocks. Then rethrows the first exception a task threw (the
//   others are discarded), else returns TaskGroupStatus::cancelled if cancel()
//   was called, else TaskGroupStatus::complete. Afterwards the group is empty and
//   not cancelled, and may be reused.
// wait_isolated(): the same, but the waiting worker runs only this group's tasks
//   (and jobs they create): for callers that hold a lock across the wait. It
//   never steals; unrelated jobs it meets on its own deque move to the injector.
// cancel(): tasks that have not started are skipped (they count as finished);
//   running ones may poll is_cancelled(). A task that throws cancels the group.
// The destructor waits (exceptions are then discarded: call wait() to see them).
// One thread may wait on a group at a time (waits from different threads must
// be ordered by the program, e.g. by the handing over of the group); any thread
// may spawn.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "stealpool/forkjoin/group_count.hpp"
#include "stealpool/forkjoin/jobs.hpp"
#include "stealpool/forkjoin/thread_pool.hpp"

namespace stealpool {

enum class TaskGroupStatus : std::uint8_t { complete, cancelled };

class TaskGroup;

namespace detail {

// Process-wide wake-up for threads (not workers) blocked in TaskGroup::wait.
// The last task of a group notifies here instead of inside the group, which
// its waiter may destroy the moment the count reaches zero.
struct ExternalWaiters {
  std::mutex mu;
  std::condition_variable cv;
  // Never destroyed: the task that finishes a group last may still be inside
  // notify_all() when its waiter has returned and the program is exiting (the
  // waiter can see the count at zero before the notifier takes the mutex), and
  // the default pool's workers outlive the static destructors that would run
  // before it. ThreadSanitizer found the race with a destroyed object.
  static ExternalWaiters& instance() {
    static ExternalWaiters* const w = new ExternalWaiters;
    return *w;
  }
};

// The JobArena of worker w (nullptr: no worker, no arena), and of the pool
// worker the calling thread is, if any.
inline JobArena* arena_of(PoolWorker* w) noexcept { return w != nullptr ? &w->scratch().arena() : nullptr; }
inline JobArena* current_arena() noexcept { return arena_of(PoolWorker::current()); }

// A TaskGroup task: f moved into a block of the spawning worker's JobArena (or
// onto the heap: too big, or spawned from outside the pool), with the group to
// report to.
template <class F>
class GroupJob final : public Job {
  static_assert(alignof(F) <= JobArena::kAlign,
                "TaskGroup::spawn: callables aligned to more than 16 bytes are not supported");

 public:
  // `arena`: the spawning worker's, or nullptr. Throws std::bad_alloc (nothing
  // allocated then) or what moving f throws (the storage is given back).
  static GroupJob* create(F&& f, TaskGroup* group, const void* isolation_tag, JobArena* arena) {
    constexpr bool kFits = JobArena::fits(sizeof(GroupJob), alignof(GroupJob));
    void* mem = kFits && arena != nullptr ? arena->allocate() : JobArena::allocate_heap(sizeof(GroupJob));
    try {
      return ::new (mem) GroupJob(std::move(f), group, isolation_tag);
    } catch (...) {
      JobArena::release(mem, arena);
      throw;
    }
  }
  // `current`: the arena of the calling worker (current_arena()).
  static void destroy(GroupJob* job, JobArena* current) noexcept {
    job->~GroupJob();
    JobArena::release(job, current);
  }

 private:
  GroupJob(F&& f, TaskGroup* group, const void* isolation_tag)
      : Job(&execute, isolation_tag), f_(std::move(f)), group_(group) {}

  static void execute(Job* job) noexcept;
  F f_;
  TaskGroup* group_;
};

}  // namespace detail

class TaskGroup {
 public:
  TaskGroup() : TaskGroup(current_or_default_shared()) {}
  explicit TaskGroup(ThreadPool& pool) noexcept : TaskGroup(&pool.shared()) {}
  ~TaskGroup() {
    try {
      (void)wait();
    } catch (...) {  // see the header comment
    }
  }
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  template <class F>
  void spawn(F&& f) {
    using Fn = std::decay_t<F>;
    detail::PoolWorker* w = on_own_worker();
    // The tag: the isolated wait the spawner runs under, if any (the job is part
    // of that region's work), else the group's own.
    const void* tag = w != nullptr && w->isolation() != nullptr ? w->isolation() : tag_;
    detail::JobArena* arena = detail::arena_of(w);
    auto* job = detail::GroupJob<Fn>::create(Fn(std::forward<F>(f)), this, tag, arena);
    if (w != nullptr && w == owner_) count_.owner_spawned();  // no read-modify-write: group_count.hpp
    else count_.shared_spawned();
    bool queued = false;
    try {
      if (w != nullptr) {
        if (!w->push_local(job)) w->push_global(job);  // may throw std::bad_alloc (a new injector block)
        queued = true;
      } else {
        detail::Job* j = job;
        queued = shared_->spawn_one(std::move(j));  // false: the pool is being destroyed
      }
    } catch (...) {
      unspawn(job, arena);
      throw;
    }
    if (!queued) {
      unspawn(job, arena);
      throw std::runtime_error("stealpool::TaskGroup::spawn: the pool is being destroyed");
    }
  }

  TaskGroupStatus wait() { return wait_impl(false); }
  TaskGroupStatus wait_isolated() { return wait_impl(true); }

  void cancel() noexcept { cancelled_.store(true, std::memory_order::relaxed); }  // a flag polled by tasks
  bool is_cancelled() const noexcept { return cancelled_.load(std::memory_order::relaxed); }

 private:
  template <class F>
  friend class detail::GroupJob;

  static constexpr std::uint64_t kExternal = detail::GroupCount::kExternal;
  static_assert(ExecutorConfig::kMaxWorkers < kExternal, "worker ids must fit the waiter field");

  // A job spawn() counted but could not queue: free it, and uncount it as if it
  // had finished, through the shared word whichever count took the spawn. A
  // waiter on another thread may have folded the owner's private spawn into the
  // word already: taken back privately, that unit would stay in the word, and
  // the finishes that bring the real count to zero would leave the word at one
  // and the waiter asleep. As a finish, it wakes the waiter if it is the last.
  // The spawner touches the group no more after this (it throws).
  template <class Fn>
  void unspawn(detail::GroupJob<Fn>* job, detail::JobArena* arena) noexcept {
    detail::GroupJob<Fn>::destroy(job, arena);
    finish_shared();
  }

  explicit TaskGroup(detail::PoolShared* shared) noexcept : shared_(shared) {
    // The isolation tag of this group's jobs: the isolated wait we are created
    // under, if any (so that its waiter may run them), else the group itself.
    detail::PoolWorker* w = on_own_worker();
    tag_ = w != nullptr && w->isolation() != nullptr ? w->isolation() : this;
    owner_ = w;
  }
  static detail::PoolShared* current_or_default_shared() {
    if (detail::PoolWorker* w = detail::PoolWorker::current()) return &w->shared();
    return &detail::pool_for_outside().shared();  // default_pool(), or the loop's in a caller's share
  }

  detail::PoolWorker* on_own_worker() const noexcept {
    detail::PoolWorker* w = detail::PoolWorker::current();
    return w != nullptr && &w->shared() == shared_ ? w : nullptr;
  }

  // The last touch of the group by a finishing task (`w`: the worker it ran on,
  // or nullptr). The owner waiting on the group counts its own finish privately.
  // Anyone else: after the fetch_sub the waiter may return and destroy the
  // group, so everything needed afterwards is read first, and the wake-up goes
  // to memory that outlives the group: the waiting worker's Parker (in its
  // pool) or the process-wide ExternalWaiters.
  void finish_one(detail::PoolWorker* w) noexcept {
    if (w != nullptr && w == owner_ && owner_waits_) {  // owner_waits_ is the owner's: read on its thread only
      count_.owner_finished();
      return;
    }
    finish_shared();
  }
  void finish_shared() noexcept {
    detail::PoolShared* shared = shared_;
    const std::uint64_t waiter = count_.shared_finished();
    if (waiter == 0) return;
    if (waiter == kExternal) {
      auto& ext = detail::ExternalWaiters::instance();
      std::lock_guard<std::mutex> lock(ext.mu);
      ext.cv.notify_all();
    } else {
      shared->sleep.parker(static_cast<std::size_t>(waiter - 1)).unpark();
    }
  }

  void record(std::exception_ptr e) noexcept {
    {
      std::lock_guard<std::mutex> lock(error_mu_);
      if (!error_) error_ = std::move(e);
      // relaxed: a hint that lets wait() skip the lock; error_ itself is read
      // under the lock. The task's finish_one (release) orders it before the
      // waiter's [TG-count] acquire.
      has_error_.store(true, std::memory_order::relaxed);
    }
    cancel();
  }

  // The latch interface ExecutorWorker::wait_until expects.
  struct Waiting {
    TaskGroup& g;
    std::size_t worker;
    bool probe() const noexcept { return g.count_.done(); }
    bool prepare_sleep() noexcept { return g.count_.announce(worker + 1); }
    void end_sleep() noexcept { g.count_.clear_waiter(); }
  };

  // The waiting part of wait_impl: helps on a worker of the pool, else blocks.
  [[gnu::noinline]] void wait_for_tasks(bool isolated) {
    if (detail::PoolWorker* w = on_own_worker()) {
      w->publish_before_wait();  // the tasks may run long: for siblings asleep or asking
      Waiting waiting{*this, w->id()};
      // The owner counts the tasks it finishes from here on privately.
      const bool owner = w == owner_;
      if (owner) owner_waits_ = true;
      if (isolated && w->isolation() == nullptr) {
        // A new isolated region. Nested inside one already, the wait keeps the
        // outer region (wait_until is isolated there anyway): the jobs it waits
        // for were tagged with it.
        w->set_isolation(tag_);
        w->wait_until(waiting);  // isolated: runs only jobs tagged tag_
        w->set_isolation(nullptr);
      } else {
        w->wait_until(waiting);
      }
      if (owner) owner_waits_ = false;
      // No clear_waiter() here: wait_until announces the waiter only around a
      // sleep, and Waiting::end_sleep clears it after every one.
    } else {
      // A plain thread, or a worker of another pool (it blocks: waiting on
      // another pool's group does not run this worker's own jobs). Each round
      // folds again: the owner may have spawned since (group_count.hpp).
      auto& ext = detail::ExternalWaiters::instance();
      std::unique_lock<std::mutex> lock(ext.mu);
      while (count_.announce(kExternal)) ext.cv.wait(lock);
      count_.clear_waiter();
    }
  }

  // Inline, because in the common case (every task done, nothing thrown or
  // cancelled) a wait is a few loads and no read-modify-write: a wait per node
  // of a recursive spawn tree adds up, and the destructor waits again. The
  // waiting and the outcome are out of line.
  TaskGroupStatus wait_impl(bool isolated) {
    // Nothing pending (the destructor's wait after an explicit one, a group
    // whose tasks all ran elsewhere): no waiting machinery at all.
    if (!count_.done()) wait_for_tasks(isolated);
    // relaxed: hints (record(), cancel()); the outcome is read under the lock.
    if (has_error_.load(std::memory_order::relaxed) || cancelled_.load(std::memory_order::relaxed)) [[unlikely]]
      return take_outcome();
    return TaskGroupStatus::complete;
  }

  // The end of a wait whose group had an error or was cancelled: rethrows the
  // first exception, else reports the cancellation; either way resets the group.
  [[gnu::noinline]] TaskGroupStatus take_outcome() {
    std::exception_ptr error;
    if (has_error_.load(std::memory_order::relaxed)) {  // see record()
      std::lock_guard<std::mutex> lock(error_mu_);
      error = std::exchange(error_, nullptr);
      has_error_.store(false, std::memory_order::relaxed);
    }
    const bool was_cancelled = cancelled_.load(std::memory_order::relaxed);
    if (was_cancelled) cancelled_.store(false, std::memory_order::relaxed);
    if (error) std::rethrow_exception(error);
    return was_cancelled ? TaskGroupStatus::cancelled : TaskGroupStatus::complete;
  }

  detail::PoolShared* shared_;
  const void* tag_ = nullptr;
  detail::PoolWorker* owner_ = nullptr;  // the worker that created the group, if any
  bool owner_waits_ = false;             // the owner's own: it is inside wait() on this group
  detail::GroupCount count_;             // spawners, tasks, the waiter: group_count.hpp
  std::atomic<bool> cancelled_{false};  // shared: a flag, no data hangs on it
  std::atomic<bool> has_error_{false};  // shared: error_ may be set (a hint)
  std::mutex error_mu_;
  std::exception_ptr error_;  // guarded by error_mu_
};

namespace detail {

template <class F>
void GroupJob<F>::execute(Job* job) noexcept {
  auto* self = static_cast<GroupJob*>(job);
  TaskGroup* group = self->group_;
  if (!group->is_cancelled()) {
    try {
      self->f_();
    } catch (...) {
      group->record(std::current_exception());
    }
  }
  PoolWorker* w = PoolWorker::current();
  destroy(self, arena_of(w));
  group->finish_one(w);  // the last touch of the group
}

}  // namespace detail

}  // namespace stealpool

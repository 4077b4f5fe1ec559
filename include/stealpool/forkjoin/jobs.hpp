// stealpool/forkjoin/jobs.hpp: the kinds of Job a fork-join pool runs.
//
//   StackJob<F, Latch>   join()'s second branch, or a run() call: lives in the
//                        waiter's frame; when stolen (or injected) its
//                        execute() runs F, keeps the outcome and sets the latch.
//                        When the joiner pops it back, it runs F inline and the
//                        latch is never touched.
// (TaskGroup's jobs are in task_group.hpp, next to their counter; their storage,
// a per-worker JobArena, is each pool worker's scratch, PoolScratch below.)
#pragma once

#include <memory>
#include <utility>

#include "stealpool/engine/executor_worker.hpp"
#include "stealpool/engine/job.hpp"
#include "stealpool/executor_config.hpp"
#include "stealpool/forkjoin/job_arena.hpp"
#include "stealpool/forkjoin/latch.hpp"

namespace stealpool::detail {

// A pool worker's scratch: the storage its TaskGroup spawns come from
// (job_arena.hpp). Held by pointer because an arena does not move (other
// workers return blocks to it) while worker scratch is moved into place.
class PoolScratch {
 public:
  PoolScratch() : arena_(std::make_unique<JobArena>()) {}
  JobArena& arena() noexcept { return *arena_; }

 private:
  std::unique_ptr<JobArena> arena_;
};

// The engine instance a ThreadPool is.
using PoolShared = ExecutorShared<Job*>;
using PoolWorker = ExecutorWorker<Job*, PoolScratch>;

template <class F, class Latch>
class StackJob final : public Job {
 public:
  using Result = BranchResult<F>;

  template <class... LatchArgs>
  StackJob(F& f, const void* isolation_tag, LatchArgs&&... latch_args)
      : Job(&execute_stolen, isolation_tag), f_(f), latch_(std::forward<LatchArgs>(latch_args)...) {}

  void run_inline() noexcept { outcome_.capture(f_); }
  Latch& latch() noexcept { return latch_; }
  Outcome<Result>& outcome() noexcept { return outcome_; }

 private:
  static void execute_stolen(Job* job) noexcept {
    auto* self = static_cast<StackJob*>(job);
    self->outcome_.capture(self->f_);
    self->latch_.set();  // the last touch: the joiner may return at once
  }

  F& f_;
  Outcome<Result> outcome_;
  Latch latch_;
};

}  // namespace stealpool::detail

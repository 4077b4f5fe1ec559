// stealpool/engine/job.hpp: the type-erased job that fork-join hands to the
// engine. A ThreadPool is an Executor whose task type is `Job*` (one pointer, so
// one atomic word per deque slot): the engine runs `job->execute(job)` and knows
// nothing else about it (one engine, a small type-erased job: engine/README.md).
//
// Where a job lives is up to its kind (forkjoin/jobs.hpp): a join's second branch
// on the joiner's stack, a TaskGroup task on the heap, a run() call on the
// caller's stack. execute() must not throw: each kind captures its exception
// for whoever waits on it.
#pragma once

namespace stealpool::detail {

struct Job {
  using Fn = void (*)(Job*) noexcept;
  explicit Job(Fn fn, const void* isolation_tag = nullptr) noexcept : execute(fn), isolation(isolation_tag) {}

  Fn execute;
  // The isolated wait the job was created under (forkjoin/README.md, "Isolated
  // waits"); nullptr outside any. Read only by the worker that pops the job.
  const void* isolation;
};

}  // namespace stealpool::detail

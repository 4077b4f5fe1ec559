// stealpool/forkjoin/thread_pool.hpp: ThreadPool, the fork-join face of the
// engine, and stealpool::join().
//
//   stealpool::ThreadPool pool(4);
//   long v = pool.run([] { return fib(30); });   // on a worker; result or exception back
//   // inside a job:
//   auto [a, b] = stealpool::join([] { return fib(n - 1); }, [] { return fib(n - 2); });
//
// A ThreadPool *is* an Executor whose task is a pointer to a type-erased Job
// (engine/job.hpp): the same workers, injector, sleep protocol and termination
// as typed executors, with the split deque (queue/split_deque.hpp) as each
// worker's deque. How join() works and what it costs: forkjoin/README.md.
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "stealpool/engine/core/wait_step.hpp"
#include "stealpool/executor.hpp"
#include "stealpool/executor_config.hpp"
#include "stealpool/forkjoin/jobs.hpp"
#include "stealpool/forkjoin/latch.hpp"
#include "stealpool/forkjoin/pool_options.hpp"

namespace stealpool {

class ThreadPool {
 public:
  // available_parallelism() workers (the CPUs this process may use, within its
  // cgroup CPU quota). Every constructor returns once all workers run; an
  // on_start hook's exception is rethrown (std::system_error if a thread cannot
  // be started, std::invalid_argument for a bad config).
  ThreadPool() : ThreadPool(PoolOptions{}) {}
  // `workers` >= 1 (std::invalid_argument otherwise).
  explicit ThreadPool(std::size_t workers) : ThreadPool(PoolOptions::with_workers(workers)) {}
  explicit ThreadPool(const ExecutorConfig& config) : ThreadPool(PoolOptions{config, {}}) {}
  explicit ThreadPool(PoolOptions options)
      : exec_(
            options.config, std::move(options.threads), [](std::size_t) { return detail::PoolScratch(); },
            // The Executor's runner, which its API requires. The workers do
            // not call it: for a Job* they call job->execute(job) themselves
            // (ExecutorWorker::run), one indirect call instead of two.
            [](detail::Job* job, WorkerCtx<detail::Job*, detail::PoolScratch>&) {
              job->execute(job);  // noexcept: every job kind keeps its own exception
            }) {
    // A start hook that throws would stop the engine and strand jobs already
    // accepted, so no job is accepted before every worker has started: the
    // constructor waits for them, and rethrows a hook's exception.
    if (std::exception_ptr e = exec_.shared_state()->wait_started()) {
      (void)exec_.join(std::nothrow);
      std::rethrow_exception(e);
    }
  }

  // Waits for nothing: every run() and join() has returned by the time a
  // caller can destroy the pool, and TaskGroups wait in their destructors. Must
  // not be called from one of the pool's own workers: that stops the program
  // with a message naming the mistake (a destructor cannot throw, and the
  // thread running it would have to join itself).
  ~ThreadPool() = default;

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  std::size_t workers() const { return exec_.workers(); }

  // Runs f() on a worker of this pool and returns its result (void: nothing),
  // rethrowing its exception.
  //  - from a worker of this pool: calls f() inline;
  //  - from a worker of another pool: that worker keeps running its own pool's
  //    jobs while it waits, so pools may call into each other without deadlock;
  //  - from any other thread: blocks on a condition variable.
  // std::runtime_error if the pool is being destroyed.
  template <class F>
  std::invoke_result_t<F&> run(F&& f) {
    using R = std::invoke_result_t<F&>;
    detail::PoolWorker* w = detail::PoolWorker::current();
    if (w != nullptr && &w->shared() == &shared()) return std::invoke(f);
    if (w != nullptr) {
      using Latch = detail::CrossPoolLatch<detail::PoolShared>;
      detail::StackJob<F, Latch> job(f, nullptr, w->shared_owner(), w->id());
      submit(&job);
      w->wait_until(job.latch());
      return unwrap<R>(job.outcome().take());
    }
    detail::StackJob<F, detail::ThreadLatch> job(f, nullptr);
    submit(&job);
    job.latch().wait();
    return unwrap<R>(job.outcome().take());
  }

  // Internal: the engine state, to tell pools apart and reach their queues.
  detail::PoolShared& shared() const { return *exec_.shared_state(); }

 private:
  template <class R, class V>
  static R unwrap(V&& v) {
    if constexpr (std::is_void_v<R>) return;
    else return std::forward<V>(v);
  }

  void submit(detail::Job* job) {
    if (!exec_.spawn_external(std::move(job)))
      throw std::runtime_error("stealpool::ThreadPool::run: the pool is being destroyed");
  }

  Executor<detail::Job*, detail::PoolScratch> exec_;
};

// The pool join(), TaskGroup and the parallel loops use when called from a
// thread that is not a pool worker: created on first use with
// available_parallelism() workers, destroyed at exit.
ThreadPool& default_pool();

namespace detail {

// The pool whose loop this thread, not a worker, is taking part in (the
// caller's share of a parallel loop, algorithms/README.md), else nullptr. A
// thread-local of src/forkjoin.cpp; it names no worker and carries no worker
// id: it only routes the pool-less calls below.
ThreadPool*& guest_pool_slot() noexcept;

// The pool that join(), TaskGroup and the loops use, when called without a
// pool from a thread that is not a worker: the pool whose loop the thread is
// taking part in, so that a loop body's nested calls stay on the loop's pool
// wherever the body runs; else default_pool().
inline ThreadPool& pool_for_outside() {
  ThreadPool* g = guest_pool_slot();
  return g != nullptr ? *g : default_pool();
}

// After `a`, takes the pushed job b back: jobs above it were pushed by `a` and
// left for us (a TaskGroup spawn): run them. An empty deque means b was stolen:
// help until it is done. The policy is core/wait_step.hpp's, shared with the
// simulator.
template <class StackJobB>
void take_back(PoolWorker& w, StackJobB& job_b) {
  Job* const pushed = &job_b;
  for (;;) {
    switch (take_back_step(w, pushed)) {
      case TakeBack::popped_back: job_b.run_inline(); return;
      case TakeBack::ran_other: break;
      case TakeBack::stolen: w.wait_until(job_b.latch()); return;
    }
  }
}

template <class A, class B>
std::pair<BranchResult<A>, BranchResult<B>> join_on(PoolWorker& w, A& a, B& b) {
  StackJob<B, WorkerLatch> job_b(b, w.isolation(), w.shared().sleep, w.id());
  const bool pushed = w.push_local(&job_b);  // false: the deque is full (very deep recursion)
  Outcome<BranchResult<A>> ra;
  ra.capture(a);
  if (pushed) take_back(w, job_b);
  else job_b.run_inline();
  // Both branches have completed; a's exception wins if both threw.
  BranchResult<A> va = ra.take();
  return {std::move(va), job_b.outcome().take()};
}

}  // namespace detail

// Runs a() and b(), possibly in parallel, and returns both results (void results
// come back as std::monostate). Inside a pool worker, b is pushed on the worker's
// deque and a runs at once; b runs inline when popped back, or elsewhere if
// stolen, in which case this worker runs other jobs until b is done. Outside any
// pool, the pair runs on default_pool() (or, in a loop body the calling thread
// runs as its share of a loop, on that loop's pool) and the caller blocks.
// Exceptions: both branches always complete; then a's exception, else b's, is
// rethrown.
template <class A, class B>
std::pair<detail::BranchResult<A>, detail::BranchResult<B>> join(A&& a, B&& b) {
  if (detail::PoolWorker* w = detail::PoolWorker::current()) return detail::join_on(*w, a, b);
  return detail::pool_for_outside().run([&] { return detail::join_on(*detail::PoolWorker::current(), a, b); });
}

}  // namespace stealpool

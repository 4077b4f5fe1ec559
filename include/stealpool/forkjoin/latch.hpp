// stealpool/forkjoin/latch.hpp: one-shot events that a waiter blocks on, and
// the outcome (value or exception) a job leaves for it.
//
// WorkerLatch: the waiter is a worker of a pool, which keeps running other jobs
// while it waits (ExecutorWorker::wait_until) and may sleep on its own Parker.
//
//   state: unset -> sleeping -> unset ... -> set      (set is final)
//   waiter: prepare_sleep = CAS unset->sleeping; park; end_sleep = CAS sleeping->unset
//   setter: exchange(set); if it replaced `sleeping`, unpark the waiter
//
// All transitions are RMWs on one word, so they are totally ordered: a setter
// that comes after prepare_sleep sees `sleeping` and unparks (the Parker keeps
// the token if the waiter has not parked yet); one that comes before makes
// prepare_sleep fail. No wake-up is lost, with or without a park timeout.
// [LATCH-set]: the exchange is a release and probe() an acquire, so the job's
// outcome, written before set(), is visible to the waiter that sees `set`.
//
// Lifetime: the latch lives in the waiter's frame, which may be gone the moment
// `set` is visible. So set() reads everything it needs before the exchange and
// touches only the waiter's Parker afterwards, which lives in its pool's sleep
// registry. Same-pool setters are workers of that pool, so the pool outlives
// them; a setter in another pool holds the waiter's pool alive (`keep_alive`).
//
// ThreadLatch: the waiter is a plain thread (not a worker): a mutex and a
// condition variable. The setter signals under the mutex, so the waiter cannot
// see `done` and return before the setter has let go of the mutex.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "stealpool/engine/sleep/sleep_registry.hpp"

namespace stealpool {

namespace detail {

// What a branch of join(), or a run() call, returns: its result type, with void
// mapped to std::monostate so that std::pair can hold it.
template <class F>
using BranchResult = std::conditional_t<std::is_void_v<std::invoke_result_t<F&>>, std::monostate,
                                        std::invoke_result_t<F&>>;

// A value or the exception that prevented it.
template <class R>
class Outcome {
  static_assert(!std::is_reference_v<R>,
                "stealpool: a join/run branch may not return a reference; return a value or a pointer");

 public:
  template <class F>
  [[gnu::always_inline]] void capture(F& f) noexcept {
    try {
      if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
        std::invoke(f);
        value_.emplace();
      } else {
        value_.emplace(std::invoke(f));
      }
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  bool failed() const noexcept { return error_ != nullptr; }
  std::exception_ptr error() const noexcept { return error_; }
  R take() {
    if (error_) std::rethrow_exception(error_);
    return std::move(*value_);
  }

 private:
  std::optional<R> value_;
  std::exception_ptr error_;
};

class WorkerLatch {
  static constexpr std::uint32_t kUnset = 0, kSleeping = 1, kSet = 2;

 public:
  // `waiter`: the waiting worker's id in `registry`.
  WorkerLatch(SleepRegistry<>& registry, std::size_t waiter) noexcept : registry_(&registry), waiter_(waiter) {}

  bool probe() const noexcept { return state_.load(std::memory_order::acquire) == kSet; }  // [LATCH-set]

  bool prepare_sleep() noexcept {
    std::uint32_t expected = kUnset;
    // acq_rel: totally ordered with set()'s exchange on this word.
    return state_.compare_exchange_strong(expected, kSleeping, std::memory_order::acq_rel,
                                          std::memory_order::acquire);
  }
  void end_sleep() noexcept {
    std::uint32_t expected = kSleeping;
    // acq_rel: as above; fails harmlessly if set() came first.
    (void)state_.compare_exchange_strong(expected, kUnset, std::memory_order::acq_rel,
                                         std::memory_order::acquire);
  }

  void set() noexcept {
    SleepRegistry<>* registry = registry_;  // read before the exchange: see "Lifetime"
    const std::size_t waiter = waiter_;
    // [LATCH-set] acq_rel: release publishes the outcome; acquire orders the read
    // of `sleeping` before the unpark.
    if (state_.exchange(kSet, std::memory_order::acq_rel) == kSleeping) registry->parker(waiter).unpark();
  }

 private:
  std::atomic<std::uint32_t> state_{kUnset};  // shared: waiter and setter
  SleepRegistry<>* registry_;
  std::size_t waiter_;
};

// A WorkerLatch whose setter may be a worker of another pool: it holds the
// waiter's pool alive until set() has returned (see "Lifetime").
template <class Shared>
class CrossPoolLatch {
 public:
  explicit CrossPoolLatch(std::shared_ptr<Shared> waiter_pool, std::size_t waiter) noexcept
      : latch_(waiter_pool->sleep, waiter), pool_(std::move(waiter_pool)) {}
  bool probe() const noexcept { return latch_.probe(); }
  bool prepare_sleep() noexcept { return latch_.prepare_sleep(); }
  void end_sleep() noexcept { latch_.end_sleep(); }
  void set() noexcept {
    std::shared_ptr<Shared> keep = pool_;  // copied before the latch may die
    latch_.set();
  }

 private:
  WorkerLatch latch_;
  std::shared_ptr<Shared> pool_;
};

class ThreadLatch {
 public:
  void set() noexcept {
    std::lock_guard<std::mutex> lock(mu_);
    // release: pairs with the waiter's acquire polls; the outcome written before
    // set() is visible to a waiter that sees `done`.
    done_.store(true, std::memory_order::release);
    cv_.notify_one();
  }
  // Polls for a while (yielding the CPU) before blocking: a job that takes a few
  // microseconds, such as a small parallel loop called from outside the pool,
  // then costs no futex round trip on the way back. Whatever the poll sees, the
  // waiter still takes the mutex once before it returns, so it cannot destroy
  // the latch while set() is between its store and its unlock.
  void wait() noexcept {
    for (int i = 0; i < kPolls && !done_.load(std::memory_order::acquire); ++i) std::this_thread::yield();
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return done_.load(std::memory_order::relaxed); });  // under mu_
  }

 private:
  static constexpr int kPolls = 64;
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<bool> done_{false};  // written under mu_, polled without it
};

}  // namespace detail

}  // namespace stealpool

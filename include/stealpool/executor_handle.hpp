// stealpool/executor_handle.hpp: ExecutorHandle<T>, the copyable, thread-safe
// way for producer threads to hand tasks to an Executor (see executor.hpp for the
// semantics of spawning, the gate and shutdown).
#pragma once

#include <concepts>
#include <memory>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>

#include "stealpool/engine/executor_shared.hpp"

namespace stealpool {

template <class T, class S>
class WorkerCtx;
template <class T, class S>
class Executor;
namespace detail {
template <class T, class S>
class ExecutorWorker;

// A contiguous range of T (or const T) other than a span: what spawn_batch takes.
template <class R, class T>
concept TaskRange = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                    std::same_as<std::remove_cv_t<std::ranges::range_value_t<R>>, T> &&
                    !std::same_as<std::remove_cvref_t<R>, std::span<T>> &&
                    !std::same_as<std::remove_cvref_t<R>, std::span<const T>>;

// A dynamic-extent span over a contiguous range (std::span(array) would be static).
template <class R>
auto as_span(R& range) {
  using Elem = std::remove_reference_t<std::ranges::range_reference_t<R>>;
  return std::span<Elem>(std::ranges::data(range), std::ranges::size(range));
}
}  // namespace detail

// A copyable, thread-safe handle for producers. Keeps the shared state alive, so
// it may outlive the executor (its spawns then return false).
template <class T>
class ExecutorHandle {
 public:
  // false: the gate is closed; `task` is left with the caller, unchanged.
  bool spawn(T&& task) { return shared_->spawn_one(std::move(task)); }
  bool spawn(const T& task) { return shared_->spawn_one(task); }
  // All or nothing. Tasks are moved from only when it returns true (const tasks,
  // and tasks whose move may throw, are copied). Any contiguous range of T works:
  // a std::vector, an array, a span.
  bool spawn_batch(std::span<T> tasks) { return shared_->spawn_batch(tasks); }
  bool spawn_batch(std::span<const T> tasks) { return shared_->spawn_batch(tasks); }
  template <detail::TaskRange<T> R>
  bool spawn_batch(R&& tasks) {
    return shared_->spawn_batch(detail::as_span(tasks));
  }
  bool is_accepting() const noexcept { return shared_->state.accepting(); }
  // Cooperative stop; see the header comment.
  void shutdown() noexcept { shared_->shutdown(); }

 private:
  template <class, class>
  friend class WorkerCtx;
  template <class, class>
  friend class Executor;
  explicit ExecutorHandle(std::shared_ptr<detail::ExecutorShared<T>> shared) : shared_(std::move(shared)) {}
  std::shared_ptr<detail::ExecutorShared<T>> shared_;
};

}  // namespace stealpool

// stealpool/queue/steal.hpp: the result of a steal, which says exactly what
// happened.
//
//   empty    the queue was observed empty: nothing to take right now
//   success  an item was taken; value() holds it
//   retry    the queue was not empty but another thread won a race for the item;
//            trying again may succeed
//
// "empty" and "lost a race" are different facts: a scheduler that treats a lost
// race as empty may put a worker to sleep while work exists. The type is
// [[nodiscard]] so a dropped result (a lost task) is a compiler warning.
#pragma once

#include <cassert>
#include <optional>
#include <utility>

namespace stealpool {

enum class StealStatus { empty, success, retry };

template <class T>
class [[nodiscard]] Steal {
 public:
  static Steal empty() noexcept { return Steal(StealStatus::empty); }
  static Steal retry() noexcept { return Steal(StealStatus::retry); }
  static Steal success(T value) { return Steal(std::move(value)); }

  StealStatus status() const noexcept { return status_; }
  bool is_empty() const noexcept { return status_ == StealStatus::empty; }
  bool is_success() const noexcept { return status_ == StealStatus::success; }
  bool is_retry() const noexcept { return status_ == StealStatus::retry; }

  // Precondition: is_success().
  T& value() & noexcept {
    assert(is_success());
    return *value_;
  }
  T&& value() && noexcept {
    assert(is_success());
    return std::move(*value_);
  }

 private:
  explicit Steal(StealStatus status) noexcept : status_(status) {}
  explicit Steal(T value) : status_(StealStatus::success), value_(std::move(value)) {}

  StealStatus status_;
  std::optional<T> value_;
};

}  // namespace stealpool

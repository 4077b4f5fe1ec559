// stealpool/engine/task_box.hpp: how a task of type T travels through the
// queues, which hold only small trivially copyable items.
//
// Small trivially copyable tasks (<= 32 bytes: an index, a pointer and a length,
// a small enum-tagged struct) travel by value. Anything else is moved into a heap
// box and the queues carry the pointer; the box is freed when the task is taken
// out to run, or when an unrun task is discarded. So any movable T works, and the
// recommended task shape (small, trivially copyable) costs no allocation.
// kInlineBytes: the largest task kept inline (32, the Executor's choice above;
// stealpool::mpi uses 64, the deque slot's limit, which its tasks always had).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace stealpool::detail {

// The largest T an Executor<T> keeps inline: 32 bytes, unless a task type of the
// library says otherwise (mpi/detail/rank_workers.hpp's RankItem, already a
// 64-byte-or-pointer item, specialises it to the queue slot's 64).
template <class T>
inline constexpr std::size_t kExecutorInlineBytes = 32;

template <class T, std::size_t kInlineBytes = 32>
struct TaskBox {
  static_assert(std::is_move_constructible_v<T>, "Executor task types must be move-constructible");
  static constexpr bool kInline = std::is_trivially_copyable_v<T> && sizeof(T) <= kInlineBytes;
  using Stored = std::conditional_t<kInline, T, T*>;

  static Stored box(T&& task) {
    if constexpr (kInline) return task;
    else return new T(std::move(task));
  }
  static T unbox(Stored stored) noexcept(kInline || std::is_nothrow_move_constructible_v<T>) {
    if constexpr (kInline) {
      return stored;
    } else {
      T task(std::move(*stored));
      delete stored;
      return task;
    }
  }
  static void discard(Stored stored) noexcept {
    if constexpr (!kInline) delete stored;
  }

  // Boxes `task` and hands it to push(Stored). If push throws (a queue that
  // cannot grow), the box is freed before the exception goes on: the queue
  // never took it, so nobody else would. (Found by LeakSanitizer in the
  // allocation-failure test.)
  template <class Push>
  static void box_and_push(T&& task, Push&& push) {
    const Stored stored = box(std::move(task));
    try {
      push(stored);
    } catch (...) {
      discard(stored);
      throw;
    }
  }
};

}  // namespace stealpool::detail

// stealpool/platform/native_thread.hpp: a joinable thread started with pthread_create,
// for pool workers that need what std::thread cannot give: a chosen stack size
// (deep fork-join recursion runs on the worker's own stack) and a thread name
// (shown by top -H, gdb, perf and /proc/<pid>/task/<tid>/comm).
//
// Contract, like std::thread's: one owner; move-only; the owner must join() before
// the destructor runs, or the destructor calls std::terminate (a thread silently
// left running would outlive the pool state it uses). There is no detach.
//
//   stack_size  0: the platform default (default_stack_size(), normally from
//               RLIMIT_STACK, 8 MiB on most Linux systems). Otherwise rounded up
//               to PTHREAD_STACK_MIN and to a whole number of pages, because
//               pthread_attr_setstacksize rejects smaller sizes and the stack is
//               mapped in pages anyway.
//   name        set by the new thread itself before `body` runs, truncated to 15
//               bytes (Linux's limit: 16 with the NUL), cut back to a UTF-8
//               character boundary. Empty: not set, so the thread keeps the name
//               Linux copies from the thread that created it.
//   body        runs once on the new thread. It must not throw: the start routine
//               is noexcept, so an escaping exception calls std::terminate (there is
//               nobody to rethrow it to, and a worker dying quietly would hang its
//               pool). For the same reason it must not call pthread_exit or be
//               cancelled: glibc unwinds those as a forced unwind, which a noexcept
//               frame turns into std::terminate.
//
// The constructor throws std::system_error naming the failing call and the
// requested stack size (pthread_create fails with EAGAIN when the stack cannot be
// mapped), or std::invalid_argument for a stack size that overflows when rounded up.
// The body is not run when it throws.
//
// POSIX only (pthread_getattr_np and the Linux name limit make it Linux-first; on
// other POSIX systems the name is set where the platform allows).
#pragma once

#include <pthread.h>

#include <cstddef>
#include <functional>
#include <string>

namespace stealpool::detail {

// The stack size a NativeThread with stack_size 0 gets, in bytes (what
// pthread_attr_getstacksize reports for a fresh attribute object); 0 if unknown.
std::size_t default_stack_size() noexcept;

class NativeThread {
 public:
  // Not a thread: joinable() is false. Lets NativeThread live in containers and be
  // a move target.
  NativeThread() noexcept = default;
  NativeThread(std::size_t stack_size, std::string name, std::function<void()> body);

  NativeThread(NativeThread&& other) noexcept;
  // std::terminate()s if *this is still joinable, for the destructor's reason.
  NativeThread& operator=(NativeThread&& other) noexcept;
  NativeThread(const NativeThread&) = delete;
  NativeThread& operator=(const NativeThread&) = delete;
  ~NativeThread();

  // Waits for the body to return; afterwards joinable() is false and everything
  // the body wrote is visible to the caller. Throws std::system_error if not
  // joinable (std::errc::invalid_argument) or if called from the thread itself
  // (std::errc::resource_deadlock_would_occur), as std::thread::join does.
  void join();
  [[nodiscard]] bool joinable() const noexcept { return joinable_; }

 private:
  pthread_t handle_{};     // meaningful only while joinable_
  bool joinable_ = false;  // started and not yet joined or moved from
};

}  // namespace stealpool::detail

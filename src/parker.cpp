#include "stealpool/platform/parker.hpp"

#include <cerrno>
#include <ctime>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#else
#include <thread>
#endif

namespace stealpool::detail {
namespace {

#if defined(__linux__)
// Sleeps while *addr == expected, at most `timeout` (nullptr: forever). Returns on
// a wake, a timeout, a signal, or at once if *addr != expected.
void futex_wait(std::atomic<std::int32_t>* addr, std::int32_t expected, const timespec* timeout) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::int32_t*>(addr), FUTEX_WAIT_PRIVATE, expected, timeout,
          nullptr, 0);
}
void futex_wake(std::atomic<std::int32_t>* addr) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::int32_t*>(addr), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}
#endif

}  // namespace

bool Parker::park(std::chrono::nanoseconds timeout) noexcept {
  // kNotified -> kEmpty (consume the token, return) or kEmpty -> kParked.
  // [PARK-token] acquire: pairs with unpark()'s release.
  if (state_.fetch_sub(1, std::memory_order::acquire) == kNotified) return true;

  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  // A timeout past the clock's range is forever (and now + timeout would overflow).
  const bool forever = timeout == kForever ||
                       timeout >= std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::time_point::max() - start);
  const Clock::time_point deadline =
      forever ? Clock::time_point::max() : start + std::chrono::duration_cast<Clock::duration>(timeout);
  for (;;) {
#if defined(__linux__)
    if (forever) {
      futex_wait(&state_, kParked, nullptr);
    } else {
      const auto left = deadline - Clock::now();
      if (left > Clock::duration::zero()) {
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
        const timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
        futex_wait(&state_, kParked, &ts);
      }
    }
#else
    std::this_thread::yield();
#endif
    std::int32_t notified = kNotified;
    // [PARK-token] acquire on success: consumes the token.
    if (state_.compare_exchange_strong(notified, kEmpty, std::memory_order::acquire,
                                       std::memory_order::relaxed))
      return true;
    if (!forever && Clock::now() >= deadline) {
      // Timed out; a token may have arrived since the CAS: take it if so.
      // [PARK-token] acquire.
      return state_.exchange(kEmpty, std::memory_order::acquire) == kNotified;
    }
    // Spurious wake-up (signal, stale futex word): sleep again.
  }
}

void Parker::wake_one_waiter() noexcept {
#if defined(__linux__)
  futex_wake(&state_);
#endif
}

}  // namespace stealpool::detail

// stealpool/platform/sync.hpp: the one seam between protocol code and the
// machine's atomics.
//
// Every lock-free protocol in stealpool (the Chase-Lev deque, the injector, the
// combined state word, the sleep registry) is a template over a `Sync` policy and
// reaches atomics and fences only through it:
//
//   typename Sync::template atomic<U>    an atomic with the std::atomic member
//                                        subset: load, store, exchange,
//                                        compare_exchange_{weak,strong},
//                                        fetch_{add,sub,and,or}
//   Sync::fence(order)                   std::atomic_thread_fence
//   Sync::spin_pause()                   a CPU relax hint inside spin loops
//
// `StdSync` is what production uses. The model-checking build supplies a policy
// whose atomics are Relacy's, so the code that is checked is the code that ships,
// not a copy of it (see tests/model/).
//
// Orders are always written `std::memory_order::x`, never `memory_order_x`:
// Relacy redefines the latter as macros.
#pragma once

#include <atomic>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace stealpool::detail {

struct StdSync {
  template <class U>
  using atomic = std::atomic<U>;

  static void fence(std::memory_order order) noexcept { std::atomic_thread_fence(order); }

  static void spin_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
  }
};

}  // namespace stealpool::detail

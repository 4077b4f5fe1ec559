// tests/model/relacy_sync.hpp: the Relacy side of the one sync seam
// (include/stealpool/platform/sync.hpp).
//
// `RelacySync` gives the protocol templates (ChaseLevDeque, StateWord, ...) atomics
// and fences that the Relacy race detector schedules and checks, so the code under
// model check is the code that ships, instantiated with another policy.
//
// Include order matters. <relacy/relacy.hpp> #defines `new`, `delete`, `malloc`,
// `assert` and `memory_order_*`, so it must come after every standard header and
// after the stealpool headers (which include only standard headers). This header
// includes it, so a model test includes, in order: standard headers, stealpool
// headers, then this file. Build with g++ -fno-sized-deallocation: Relacy replaces
// the unsized global operator delete only, and a sized delete would reach free()
// with Relacy's pointer.
//
// Mutants: a test makes a deliberately broken variant of a protocol by
// instantiating the real template with a policy derived from this one (a fence
// that drops seq_cst, an RMW split into a load and a store, ...). The broken
// variant must be reported by Relacy, so the checks cannot pass vacuously.
#pragma once

// Relacy's call-site macro is spelt `$`, which clang's -Wpedantic flags in every
// model source that uses it (they all include this header first).
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wdollar-in-identifier-extension"
#endif

#include <atomic>
#include <cstdint>
#include <source_location>
#include <type_traits>
// For model_main.hpp, which follows this header: every standard header must be
// seen before Relacy's macros.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <relacy/relacy.hpp>

namespace stealpool::model {

// The caller's position, for Relacy's execution histories. A default argument of
// std::source_location::current() is evaluated at the call site, so a report names
// the line in the stealpool header that made the access, not this file.
#if defined(__cpp_lib_source_location)
using SourceLocation = std::source_location;
#else
// clang 14 with libstdc++ 12 has no std::source_location (no
// __builtin_source_location): reports then name this file instead of the caller.
struct SourceLocation {
  static constexpr SourceLocation current() noexcept { return {}; }
  constexpr const char* function_name() const noexcept { return "(stealpool atomic)"; }
  constexpr const char* file_name() const noexcept { return __FILE__; }
  constexpr unsigned line() const noexcept { return __LINE__; }
};
#endif

inline rl::debug_info here(const SourceLocation& loc) noexcept {
  return rl::debug_info(loc.function_name(), loc.file_name(), static_cast<unsigned>(loc.line()));
}

constexpr rl::memory_order to_rl(std::memory_order order) noexcept {
  switch (order) {
    case std::memory_order::relaxed: return rl::mo_relaxed;
    case std::memory_order::consume: return rl::mo_consume;
    case std::memory_order::acquire: return rl::mo_acquire;
    case std::memory_order::release: return rl::mo_release;
    case std::memory_order::acq_rel: return rl::mo_acq_rel;
    case std::memory_order::seq_cst: return rl::mo_seq_cst;
  }
  return rl::mo_seq_cst;
}

// The failure order std::atomic derives from a single success order.
constexpr std::memory_order failure_order_of(std::memory_order order) noexcept {
  switch (order) {
    case std::memory_order::acq_rel: return std::memory_order::acquire;
    case std::memory_order::release: return std::memory_order::relaxed;
    default: return order;
  }
}

// std::atomic's member subset used by stealpool, over rl::atomic<U>.
//
// Construction mirrors C++20 std::atomic: the default constructor value-initialises
// (so `Atomic<T> x{};` and `std::array<Atomic<T>, N> a{}` hold T{}), and the value
// constructor initialises with the value. Relacy models either as a relaxed store
// by the constructing thread; every object in the protocols is published to other
// threads by a later synchronising operation (or by the start of the test threads).
template <class U>
class RelacyAtomic {
  static_assert(std::is_trivially_copyable_v<U>);
  using Src = SourceLocation;

 public:
  using value_type = U;

  RelacyAtomic() : a_(U{}) {}
  RelacyAtomic(U value) : a_(value) {}  // NOLINT(google-explicit-constructor): as std::atomic
  // Not copyable, as std::atomic: rl::atomic's copy operations are private. (No
  // `= delete` here: Relacy #defines `delete`.)

  U load(std::memory_order order = std::memory_order::seq_cst, const Src& loc = Src::current()) const {
    return a_(here(loc)).load(to_rl(order));
  }
  void store(U value, std::memory_order order = std::memory_order::seq_cst,
             const Src& loc = Src::current()) {
    a_(here(loc)).store(value, to_rl(order));
  }
  U exchange(U value, std::memory_order order = std::memory_order::seq_cst,
             const Src& loc = Src::current()) {
    return a_(here(loc)).exchange(value, to_rl(order));
  }

  bool compare_exchange_weak(U& expected, U desired, std::memory_order success,
                             std::memory_order failure, const Src& loc = Src::current()) {
    return a_(here(loc)).compare_exchange_weak(expected, desired, to_rl(success), to_rl(failure));
  }
  bool compare_exchange_weak(U& expected, U desired,
                             std::memory_order order = std::memory_order::seq_cst,
                             const Src& loc = Src::current()) {
    return compare_exchange_weak(expected, desired, order, failure_order_of(order), loc);
  }
  bool compare_exchange_strong(U& expected, U desired, std::memory_order success,
                               std::memory_order failure, const Src& loc = Src::current()) {
    return a_(here(loc)).compare_exchange_strong(expected, desired, to_rl(success), to_rl(failure));
  }
  bool compare_exchange_strong(U& expected, U desired,
                               std::memory_order order = std::memory_order::seq_cst,
                               const Src& loc = Src::current()) {
    return compare_exchange_strong(expected, desired, order, failure_order_of(order), loc);
  }

  using add_type = typename rl::atomic_add_type<U>::type;
  U fetch_add(add_type v, std::memory_order order = std::memory_order::seq_cst,
              const Src& loc = Src::current()) {
    return a_(here(loc)).fetch_add(v, to_rl(order));
  }
  U fetch_sub(add_type v, std::memory_order order = std::memory_order::seq_cst,
              const Src& loc = Src::current()) {
    return a_(here(loc)).fetch_sub(v, to_rl(order));
  }
  U fetch_and(U v, std::memory_order order = std::memory_order::seq_cst,
              const Src& loc = Src::current()) {
    return a_(here(loc)).fetch_and(v, to_rl(order));
  }
  U fetch_or(U v, std::memory_order order = std::memory_order::seq_cst,
             const Src& loc = Src::current()) {
    return a_(here(loc)).fetch_or(v, to_rl(order));
  }

 private:
  rl::atomic<U> a_;
};

struct RelacySync {
  template <class U>
  using atomic = RelacyAtomic<U>;

  static void fence(std::memory_order order,
                    const SourceLocation& loc = SourceLocation::current()) {
    rl::atomic_thread_fence(to_rl(order), here(loc));
  }

  // A spin loop must let the other threads run, or the checker would explore a
  // thread that spins forever (a livelock, reported once the depth limit is hit).
  static void spin_pause(const SourceLocation& loc = SourceLocation::current()) {
    rl::yield(1, here(loc));
  }
};

}  // namespace stealpool::model

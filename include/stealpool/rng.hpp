// stealpool/rng.hpp: XorShift64, the per-worker random source used to pick
// steal victims. Deterministic for a given seed, so runs and simulations replay.
//
// Cost: three shifts and three xors per draw. Not cryptographic. Not thread-safe:
// each worker owns one (WorkerCtx::rng()).
#pragma once

#include <cstddef>
#include <cstdint>

namespace stealpool {

class XorShift64 {
 public:
  // A zero state would be a fixed point (every draw 0), so seed 0 is remapped to a
  // fixed non-zero constant rather than rejected.
  explicit constexpr XorShift64(std::uint64_t seed) noexcept
      : state_(seed != 0 ? seed : kZeroSeedReplacement) {}

  constexpr std::uint64_t next_u64() noexcept {
    std::uint64_t x = state_;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    state_ = x;
    return x;
  }

  // Uniform in [0, bound) by Lemire's multiply-shift (no division). bound == 0
  // returns 0. The bias is below bound / 2^64 and irrelevant for victim choice.
  constexpr std::size_t next_below(std::size_t bound) noexcept {
    __extension__ using U128 = unsigned __int128;  // __extension__: no -Wpedantic noise
    const U128 product = static_cast<U128>(next_u64()) * static_cast<U128>(bound);
    return static_cast<std::size_t>(product >> 64);
  }

  constexpr std::uint64_t state() const noexcept { return state_; }

 private:
  static constexpr std::uint64_t kZeroSeedReplacement = 0x9E3779B97F4A7C15ull;
  std::uint64_t state_;
};

// A distinct, well-mixed seed per worker derived from the executor seed (splitmix64
// finaliser), so workers do not pick victims in lockstep.
constexpr std::uint64_t derive_worker_seed(std::uint64_t seed, std::size_t worker_id) noexcept {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(worker_id) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace stealpool

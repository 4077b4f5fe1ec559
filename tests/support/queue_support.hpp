// tests/support/queue_support.hpp: helpers shared by the queue unit tests
// (ChaseLevDeque, LockedWsq, Injector): the STEALPOOL_TEST_SCALE size helper,
// item types that show torn reads or exercise odd layouts, an exactly-once
// ledger, and the owner-near-empty race driver.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include "stealpool/queue/atomic_slot.hpp"
#include "stealpool/queue/steal.hpp"
#include "test_support.hpp"

namespace sptest::queue {

// Stress sizes: divided by 10 under sanitizers; STEALPOOL_TEST_SCALE=<k>
// multiplies them for long runs.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

inline std::size_t scaled(std::size_t n) {
  const char* env = std::getenv("STEALPOOL_TEST_SCALE");
  const std::size_t k = env != nullptr && std::atoi(env) > 0 ? static_cast<std::size_t>(std::atoi(env)) : 1;
  return n * k / (kSanitized ? 10 : 1);
}

// ---- item types ---------------------------------------------------------------

// An item whose second word is derived from the first: a torn or stale slot read
// that slipped through would show as a bad check.
struct Tagged {
  std::uint64_t id;
  std::uint64_t check;
};
inline Tagged tagged(std::uint64_t id) { return {id, id * 0x9E3779B97F4A7C15ull ^ 0x5bd1e995ull}; }
inline bool intact(const Tagged& x) { return x.check == tagged(x.id).check; }

struct Big {  // the largest inline item
  std::uint64_t w[8];
};
static_assert(sizeof(Big) == stealpool::detail::kMaxInlineItemBytes);

// Big{i, i + 1, ..., i + 7}.
inline Big big_from(std::uint64_t i) { return Big{{i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7}}; }

struct NoDefault {  // trivially copyable, not default-constructible
  explicit NoDefault(int v) : a(v), b(-v) {}
  int a;
  int b;
};
static_assert(std::is_trivially_copyable_v<NoDefault> && !std::is_default_constructible_v<NoDefault>);

struct ThreeBytes {  // not a multiple of a word
  unsigned char c[3];
};

inline std::uint64_t xorshift(std::uint64_t& s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return s;
}

// ---- exactly-once -------------------------------------------------------------

// Per-id take counters for ids [0, n): record() from any thread, then
// expect_each_taken_once() checks nothing was torn, lost or duplicated.
class ExactlyOnceLedger {
 public:
  explicit ExactlyOnceLedger(std::uint64_t n) : taken_(n) {}

  std::uint64_t size() const noexcept { return taken_.size(); }

  void record(const Tagged& x) noexcept {
    if (!intact(x) || x.id >= taken_.size()) torn_.fetch_add(1, std::memory_order::relaxed);
    else taken_[x.id].fetch_add(1, std::memory_order::relaxed);
  }

  void expect_each_taken_once() const {
    EXPECT_EQ(torn_.load(), 0u);
    std::uint64_t lost = 0, duplicated = 0;
    for (std::uint64_t i = 0; i < taken_.size(); ++i) {
      const std::uint32_t c = taken_[i].load();
      if (c == 0 && lost++ == 0) ADD_FAILURE() << "first lost id " << i;
      if (c > 1 && duplicated++ == 0) ADD_FAILURE() << "first duplicated id " << i << " taken " << c << " times";
    }
    EXPECT_EQ(lost, 0u);
    EXPECT_EQ(duplicated, 0u);
  }

 private:
  std::vector<std::atomic<std::uint32_t>> taken_;
  std::atomic<std::uint64_t> torn_{0};
};

// ---- race drivers -------------------------------------------------------------

// A thief's loop: calls attempt(take) until an attempt finds the victim empty
// with done() already true before it (read before the steal, so nothing pushed
// before done can be missed). attempt returns a Steal whose value goes to take;
// it may also pass take any extra items it took (a batch steal's spill).
template <class Done, class Attempt, class Take>
void steal_until_drained(Done&& done, Attempt&& attempt, Take&& take) {
  for (;;) {
    const bool finished = done();  // read before the steal
    auto s = attempt(take);
    if (s.is_success()) {
      take(s.value());
    } else if (s.is_empty()) {
      if (finished) return;
      std::this_thread::yield();
    }
  }
}

// One owner pushes scaled(1'000'000) unique Tagged ids into q in bursts of 1-3
// and mostly pops them all again, so q stays near empty and pop races steal for
// the last item (now and then a burst of 200 makes it grow while thieves read).
// `thieves` threads each call make_thief(i) once, on their own thread, for their
// steal attempt (see steal_until_drained). Per-id counters then show every id
// was taken exactly once, and that the thieves took some.
template <class Queue, class MakeThief>
void race_owner_near_empty(Queue& q, int thieves, MakeThief make_thief) {
  const std::uint64_t n = scaled(1'000'000);
  ExactlyOnceLedger ledger(n);
  std::atomic<bool> owner_done{false};
  std::atomic<int> thieves_ready{0};
  std::atomic<std::uint64_t> stolen{0};

  std::vector<std::thread> threads;
  for (int i = 0; i < thieves; ++i) {
    threads.emplace_back([&, i] {
      auto attempt = make_thief(i);
      thieves_ready.fetch_add(1, std::memory_order::relaxed);
      steal_until_drained([&] { return owner_done.load(std::memory_order::acquire); }, attempt,
                          [&](const Tagged& x) {
                            ledger.record(x);
                            stolen.fetch_add(1, std::memory_order::relaxed);
                          });
    });
  }

  while (thieves_ready.load(std::memory_order::relaxed) < thieves) std::this_thread::yield();
  std::uint64_t seed = 0x2545F4914F6CDD1Dull, next = 0;
  const std::uint64_t last = n - 1;  // kept for the end: see below
  while (next < last) {
    std::uint64_t burst = 1 + xorshift(seed) % 3;
    if (xorshift(seed) % 2048 == 0) burst = 200;
    for (std::uint64_t k = 0; k < burst && next < last; ++k) q.push(tagged(next++));
    // Mostly pop everything just pushed: thieves then win items only by racing
    // the owner for the last ones. Sometimes leave a few for them.
    const std::uint64_t pops = xorshift(seed) % 4 != 0 ? burst : xorshift(seed) % (burst + 1);
    for (std::uint64_t k = 0; k < pops; ++k) {
      std::optional<Tagged> x = q.pop();
      if (!x) break;
      ledger.record(*x);
    }
  }
  while (std::optional<Tagged> x = q.pop()) ledger.record(*x);
  // On a loaded machine the owner may finish before any thief ran. Then the
  // last item waits (up to 10 s) for one, so that a run never passes without a
  // steal; thieves that cannot take it fail the check below.
  q.push(tagged(last));
  (void)sptest::wait_until([&] { return stolen.load(std::memory_order::relaxed) != 0; }, std::chrono::seconds(10));
  while (std::optional<Tagged> x = q.pop()) ledger.record(*x);
  owner_done.store(true, std::memory_order::release);
  for (std::thread& t : threads) t.join();

  std::printf("  %llu of %llu items stolen\n", static_cast<unsigned long long>(stolen.load()),
              static_cast<unsigned long long>(n));
  EXPECT_GT(stolen.load(), 0u) << "the thieves never took anything: the test proved nothing";
  ledger.expect_each_taken_once();
}

}  // namespace sptest::queue

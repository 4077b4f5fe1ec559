// tests/support/test_support.hpp: helpers shared by the executor unit and stress
// tests: a watchdog that turns a hang into a loud abort, bounded waits, an
// instrumented task type that counts its own constructions and destructions, and
// the STEALPOOL_STRESS_SCALE divisor.
#pragma once

#include <gtest/gtest.h>

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "stealpool/platform/sync.hpp"
#include "stealpool/executor_config.hpp"

namespace sptest {

// "W<n>": a test-name suffix (built with +=: g++ 12's -Wrestrict misfires on "W" + string).
inline std::string worker_count_name(std::size_t n) {
  std::string name = "W";
  name += std::to_string(n);
  return name;
}

// A test config: `workers` threads, never pinned (pinning has its own test).
inline stealpool::ExecutorConfig config_with(std::size_t workers) {
  stealpool::ExecutorConfig cfg;
  cfg.workers = workers;
  cfg.pin_threads = false;
  return cfg;
}

// How much slower this build runs the tests than a Release build: the default
// divisor of test sizes when STEALPOOL_STRESS_SCALE is not set.
#if defined(__SANITIZE_THREAD__)
inline constexpr std::size_t kDefaultScale = 10;
#elif defined(__SANITIZE_ADDRESS__)
inline constexpr std::size_t kDefaultScale = 4;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr std::size_t kDefaultScale = 10;
#elif __has_feature(address_sanitizer)
inline constexpr std::size_t kDefaultScale = 4;
#else
inline constexpr std::size_t kDefaultScale = 1;
#endif
#else
inline constexpr std::size_t kDefaultScale = 1;
#endif

// STEALPOOL_STRESS_SCALE: an integer divisor for test sizes (CI sets it to 10 or
// 20 in sanitizer builds). Unset: kDefaultScale (10 under TSan, 4 under ASan, 1
// otherwise); values below 1 or not numbers count as 1.
inline std::size_t stress_scale() {
  const char* s = std::getenv("STEALPOOL_STRESS_SCALE");
  if (s == nullptr) return kDefaultScale;
  const long v = std::strtol(s, nullptr, 10);
  return v >= 1 ? static_cast<std::size_t>(v) : 1;
}
inline std::size_t scaled(std::size_t n, std::size_t at_least = 1) {
  const std::size_t v = n / stress_scale();
  return v < at_least ? at_least : v;
}

// Rounds per race of the engine's small protocols (two threads; three-thread
// races run fewer, since three threads share this machine's two cores by time
// slicing).
inline const int kRaceRounds = static_cast<int>(scaled(100000, 1000));
inline const int kRace3Rounds = static_cast<int>(scaled(4000, 200));

// The calling thread's name as the kernel has it.
inline std::string current_thread_name() {
  char buf[64] = {};
  if (pthread_getname_np(pthread_self(), buf, sizeof buf) != 0) return "<pthread_getname_np failed>";
  return buf;
}

// splitmix64's finaliser: a bijection on 64-bit words, a cheap good hash.
inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Aborts the process with `what` if it is still alive after `limit`: a lost
// wake-up or a termination bug then fails loudly instead of hanging CI.
class Watchdog {
 public:
  explicit Watchdog(std::string what, std::chrono::seconds limit = std::chrono::seconds(60))
      : what_(std::move(what)), thread_([this, limit] {
          std::unique_lock<std::mutex> lock(mu_);
          if (!cv_.wait_for(lock, limit, [this] { return done_; })) {
            std::fprintf(stderr, "WATCHDOG: %s did not finish within %lld s (a hang: lost wake-up or "
                         "missed termination?)\n", what_.c_str(), static_cast<long long>(limit.count()));
            std::fflush(stderr);
            std::abort();
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::string what_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;  // last: starts after the other members exist
};

// Waits until pred() holds or `limit` passes; returns pred()'s last value. The
// limit only turns a broken invariant into a failed assertion instead of a hang:
// no test asserts how long anything took.
template <class Pred>
bool wait_until(Pred pred, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (int i = 0;; ++i) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return pred();
    if (i < 64) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

// N jobs that must all be running at once: each calls arrive_and_wait(), which
// returns when all N have arrived, or after `limit`, when every job gives up
// (so that a failing test ends instead of hanging). For tests that each of N
// long jobs can start while the others run.
class StartTogether {
 public:
  explicit StartTogether(std::size_t n, std::chrono::milliseconds limit = std::chrono::seconds(20))
      : n_(n), limit_(limit) {}
  void arrive_and_wait() {
    arrived_.fetch_add(1);
    if (!wait_until([&] { return arrived_.load() >= n_ || gave_up_.load(); }, limit_) && !gave_up_.exchange(true))
      arrived_at_give_up_ = arrived_.load();
  }
  bool gave_up() const { return gave_up_.load(); }
  std::size_t arrived_at_give_up() const { return arrived_at_give_up_.load(); }

 private:
  std::size_t n_;
  std::chrono::milliseconds limit_;
  std::atomic<std::size_t> arrived_{0}, arrived_at_give_up_{0};
  std::atomic<bool> gave_up_{false};
};

// Busy-waits for about `d` (a fine-grained pause; sleep_for rounds up to tens of
// microseconds).
inline void busy_pause(std::chrono::nanoseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

// Runs every function on its own thread, released together by a spin gate so the
// bodies overlap as much as possible, and joins them all.
inline void run_concurrently(std::vector<std::function<void()>> fns) {
  std::atomic<std::size_t> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  threads.reserve(fns.size());
  for (auto& fn : fns)
    threads.emplace_back([&ready, &go, &fn] {
      ready.fetch_add(1);
      // Yield while waiting: with more threads than cores, pure spinning would keep
      // the releasing thread off the CPU for whole time slices.
      while (!go.load(std::memory_order::acquire)) std::this_thread::yield();
      fn();
    });
  while (ready.load() != fns.size()) std::this_thread::yield();
  go.store(true, std::memory_order::release);
  for (auto& t : threads) t.join();
}

// Runs `rounds` rounds of a race on persistent threads (one per function in
// `bodies`), so a round costs microseconds rather than thread start-ups:
//   setup(round)  before the bodies of that round (resets the shared state)
//   bodies        each on its own thread, released together by a barrier
//   check(round)  after every body of that round finished
// setup and check run on whichever body thread finished last (so no extra thread
// competes for the cores). Every round starts with a spinning barrier; the thread
// that opens it sees it open long before the others do (a cross-CPU hand-off
// takes ~100 ns on bare metal, tens of microseconds in some VMs), so each body
// then waits a pseudo-random delay, the opener's drawn from twice the measured
// hand-off time: every interleaving order is reached, not only "the opener
// wins". Release/acquire pairs on the barrier and the finish count order setup
// -> bodies -> check. Stops early on a fatal failure (an ASSERT in setup/check).
template <class Setup, class Check>
void repeat_race(int rounds, Setup setup, std::vector<std::function<void()>> bodies, Check check) {
  using Clock = std::chrono::steady_clock;
  const auto now_ns = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
  };
  const std::size_t n = bodies.size();
  std::atomic<std::size_t> arrived{0};
  std::atomic<int> opened{0};  // the barrier of round r opens by storing r + 1
  std::atomic<std::int64_t> opened_at{0};
  std::atomic<std::int64_t> handoff_ns{100};  // a running estimate; races on it are harmless
  std::atomic<std::size_t> finished{0};
  std::atomic<bool> stop{false};
  if (rounds <= 0) return;
  setup(0);
  if (::testing::Test::HasFatalFailure()) return;
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      std::uint64_t rng = 0x9E3779B97F4A7C15ull * (i + 1);
      for (int r = 0;; ++r) {
        bool opener = false;
        if (arrived.fetch_add(1, std::memory_order::acq_rel) == n - 1) {
          arrived.store(0, std::memory_order::relaxed);  // nobody arrives again before it opens
          opened_at.store(now_ns(), std::memory_order::relaxed);
          opened.store(r + 1, std::memory_order::release);
          opened.notify_all();  // a waiter asleep on the word, if any (no system call otherwise)
          opener = true;
        } else {
          // Plain loads, no pause instruction: in a VM a pause loop can make the
          // hypervisor deschedule the vCPU, which is exactly what must not happen.
          // After kSpins loads the opener is not running (more threads than
          // cores: another race test beside this one under ctest -j2): sleep
          // on the word until it changes, which hands the core to a thread
          // that can use it (a yield loop gave it back to the spinner).
          constexpr int kSpins = 20000;  // tens of microseconds
          bool slept = false;
          for (int spins = 0;; ++spins) {
            const int seen = opened.load(std::memory_order::acquire);
            if (seen == r + 1) break;
            if (stop.load(std::memory_order::acquire)) return;
            if (spins > kSpins) {
              opened.wait(seen, std::memory_order::acquire);
              slept = true;
            }
          }
          // Only a hand-off between running threads is a sample: after a
          // sleep the lag is the scheduler's. Counted (the first version took
          // any lag under 1 ms), such lags raised the estimate towards a
          // millisecond, each opener then spun up to twice that before its
          // body, and two 100,000-round races side by side under ctest -j2
          // took 70 s each instead of 0.3 s.
          const std::int64_t lag = now_ns() - opened_at.load(std::memory_order::relaxed);
          const std::int64_t est = handoff_ns.load(std::memory_order::relaxed);
          if (!slept && lag > 0 && lag < 1'000'000) handoff_ns.store((7 * est + lag) / 8, std::memory_order::relaxed);
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        const std::int64_t span = (opener ? 2 * handoff_ns.load(std::memory_order::relaxed) : 0) + 200;
        const std::int64_t until = now_ns() + static_cast<std::int64_t>(rng % static_cast<std::uint64_t>(span));
        while (now_ns() < until) {
        }
        bodies[i]();
        if (finished.fetch_add(1, std::memory_order::acq_rel) != n - 1) continue;
        // The last body of this round: check it and set up the next one.
        finished.store(0, std::memory_order::relaxed);  // the others wait in the barrier
        check(r);
        if (r + 1 < rounds && !::testing::Test::HasFatalFailure()) setup(r + 1);
        if (r + 1 >= rounds || ::testing::Test::HasFatalFailure()) {
          stop.store(true, std::memory_order::release);
          opened.store(-1, std::memory_order::release);  // wakes a waiter asleep on the word: it sees stop
          opened.notify_all();
          return;
        }
      }
    });
  for (auto& t : threads) t.join();
}

// What happened to the Tracked tasks of one test.
struct TaskCounters {
  std::atomic<long> made{0};             // live objects created (not counting moves)
  std::atomic<long> ran{0};              // mark_ran() calls
  std::atomic<long> destroyed_run{0};    // live objects destroyed after they ran
  std::atomic<long> destroyed_unrun{0};  // live objects destroyed without running
  long live() const { return made.load() - destroyed_run.load() - destroyed_unrun.load(); }
};

// A non-trivial (so boxed) task that counts itself. Moving transfers the identity:
// the moved-from object is "dead" and its destructor counts nothing.
class Tracked {
 public:
  Tracked(TaskCounters* c, int id) : c_(c), id_(id) { c_->made.fetch_add(1); }
  Tracked(Tracked&& o) noexcept : c_(std::exchange(o.c_, nullptr)), id_(o.id_), ran_(o.ran_) {}
  Tracked(const Tracked& o) : c_(o.c_), id_(o.id_), ran_(o.ran_) {
    if (c_ != nullptr) c_->made.fetch_add(1);
  }
  Tracked& operator=(Tracked&& o) noexcept {
    if (this != &o) {
      release();
      c_ = std::exchange(o.c_, nullptr);
      id_ = o.id_;
      ran_ = o.ran_;
    }
    return *this;
  }
  Tracked& operator=(const Tracked&) = delete;
  ~Tracked() { release(); }

  void mark_ran() {
    ran_ = true;
    c_->ran.fetch_add(1);
  }
  bool live() const { return c_ != nullptr; }
  int id() const { return id_; }

 private:
  void release() {
    if (c_ != nullptr) (ran_ ? c_->destroyed_run : c_->destroyed_unrun).fetch_add(1);
    c_ = nullptr;
  }
  TaskCounters* c_;
  int id_;
  bool ran_ = false;
};

}  // namespace sptest

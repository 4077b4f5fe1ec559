// detail::NativeThread: runs its body once on a new thread, join() waits for it,
// the name is set (truncated to Linux's 15 bytes) before the body runs, the
// requested stack size is what the thread gets, failures name the stack size, and
// the join duty moves with the object and is enforced by the destructor.
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

#include "../support/test_support.hpp"
#include "stealpool/platform/native_thread.hpp"

namespace spd = stealpool::detail;
using namespace std::chrono_literals;

namespace {

static_assert(!std::is_copy_constructible_v<spd::NativeThread>);
static_assert(!std::is_copy_assignable_v<spd::NativeThread>);
static_assert(std::is_nothrow_move_constructible_v<spd::NativeThread>);
static_assert(std::is_nothrow_move_assignable_v<spd::NativeThread>);

constexpr std::size_t kMiB = std::size_t{1} << 20;

#if defined(__linux__)
// The calling thread's stack size as glibc reports it (0 on failure).
std::size_t current_stack_size() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
  std::size_t size = 0;
  if (pthread_attr_getstacksize(&attr, &size) != 0) size = 0;
  pthread_attr_destroy(&attr);
  return size;
}
#endif

// Uses about (depth + 1) * 64 KiB of stack. The volatile frame and the use of the
// callee's result after the call keep the compiler from shrinking the frames or
// turning the recursion into a loop.
[[gnu::noinline]] std::size_t burn_stack(std::size_t depth) {
  volatile unsigned char frame[64 * 1024];
  frame[0] = static_cast<unsigned char>(depth);
  frame[sizeof frame - 1] = 1;
  if (depth == 0) return frame[sizeof frame - 1];
  return burn_stack(depth - 1) + frame[0] - frame[0] + frame[sizeof frame - 1];
}

TEST(NativeThread, RunsTheBodyOnceAndJoinWaitsForIt) {
  sptest::Watchdog dog("RunsTheBodyOnceAndJoinWaitsForIt");
  int runs = 0;  // plain int: join() must make the body's write visible
  spd::NativeThread t(0, "sp-test", [&] {
    std::this_thread::sleep_for(20ms);  // join() must wait this out, not return early
    ++runs;
  });
  EXPECT_TRUE(t.joinable());
  t.join();
  EXPECT_EQ(runs, 1);
  EXPECT_FALSE(t.joinable());
}

TEST(NativeThread, DefaultConstructedIsNotJoinableAndJoinSaysSo) {
  spd::NativeThread t;
  EXPECT_FALSE(t.joinable());
  try {
    t.join();
    ADD_FAILURE() << "join() on a non-joinable NativeThread did not throw";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), std::errc::invalid_argument);
  }
}

TEST(NativeThread, EmptyBodyIsRejectedBeforeAnyThreadStarts) {
  EXPECT_THROW(spd::NativeThread(0, "x", std::function<void()>{}), std::invalid_argument);
}

TEST(NativeThread, NameIsSetBeforeTheBodyRuns) {
  std::string seen;
  spd::NativeThread t(0, "sp-worker-3", [&] { seen = sptest::current_thread_name(); });
  t.join();
  EXPECT_EQ(seen, "sp-worker-3");
}

TEST(NativeThread, LongNameIsTruncatedToFifteenBytes) {
  std::string seen;
  spd::NativeThread t(0, "stealpool-worker-12345", [&] { seen = sptest::current_thread_name(); });
  t.join();
  EXPECT_EQ(seen, "stealpool-worke");
}

TEST(NativeThread, TruncationDoesNotSplitAUtf8Character) {
  // 14 ASCII bytes, then U+00E9 as C3 A9 straddling the 15-byte limit.
  const std::string name = std::string(14, 'a') + "\xC3\xA9xyz";
  std::string seen;
  spd::NativeThread t(0, name, [&] { seen = sptest::current_thread_name(); });
  t.join();
  EXPECT_EQ(seen, std::string(14, 'a'));
}

TEST(NativeThread, EmptyNameKeepsTheNameInheritedFromTheCreator) {
  std::string inner_seen;
  spd::NativeThread outer(0, "sp-creator", [&] {
    spd::NativeThread inner(0, "", [&] { inner_seen = sptest::current_thread_name(); });
    inner.join();
  });
  outer.join();
  EXPECT_EQ(inner_seen, "sp-creator");
}

#if defined(__linux__)
TEST(NativeThread, RequestedStackSizeIsHonouredAndUsable) {
  constexpr std::size_t kRequested = 16 * kMiB;
  std::size_t reported = 0;
  std::size_t burnt = 0;
  spd::NativeThread t(kRequested, "sp-deep", [&] {
    reported = current_stack_size();
    burnt = burn_stack(63);  // 64 frames of 64 KiB: about 4 MiB
  });
  t.join();
  EXPECT_GE(reported, kRequested);
  EXPECT_EQ(burnt, 64u);
}

TEST(NativeThread, TinyAndUnalignedStackSizesAreRoundedUp) {
  // A cast, not a constant: glibc >= 2.34 defines PTHREAD_STACK_MIN as a sysconf() call.
  const auto stack_min = static_cast<std::size_t>(PTHREAD_STACK_MIN);
  for (const std::size_t requested : {std::size_t{1}, stack_min - 1, kMiB + 1}) {
    std::size_t reported = 0;
    spd::NativeThread t(requested, "", [&] { reported = current_stack_size(); });
    t.join();
    EXPECT_GE(reported, requested) << "requested " << requested;
    EXPECT_GE(reported, stack_min) << "requested " << requested;
  }
}

TEST(NativeThread, ZeroStackSizeGivesThePlatformDefault) {
  const std::size_t def = spd::default_stack_size();
  ASSERT_GT(def, 0u);
  std::size_t reported = 0;
  spd::NativeThread t(0, "", [&] { reported = current_stack_size(); });
  t.join();
  // >=, not ==: sanitizer runtimes may enlarge thread stacks.
  EXPECT_GE(reported, def);
}
#endif

TEST(NativeThread, AbsurdStackSizeThrowsNamingTheValueAndRunsNothing) {
  for (const std::size_t requested : {SIZE_MAX / 2, SIZE_MAX}) {
    bool ran = false;
    std::string what;
    try {
      spd::NativeThread t(requested, "sp-absurd", [&] { ran = true; });
      t.join();
      ADD_FAILURE() << "a stack of " << requested << " bytes was created";
    } catch (const std::system_error& e) {
      what = e.what();
    } catch (const std::invalid_argument& e) {
      what = e.what();
    }
    EXPECT_NE(what.find(std::to_string(requested)), std::string::npos) << what;
    EXPECT_FALSE(ran);
  }
}

TEST(NativeThread, MovingTransfersTheJoinDuty) {
  std::atomic<int> runs{0};
  spd::NativeThread a(0, "sp-a", [&] { runs.fetch_add(1, std::memory_order::relaxed); });
  spd::NativeThread b(std::move(a));
  EXPECT_FALSE(a.joinable());  // NOLINT(bugprone-use-after-move): checking the moved-from state
  EXPECT_TRUE(b.joinable());

  spd::NativeThread c;
  c = std::move(b);
  EXPECT_FALSE(b.joinable());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(c.joinable());
  c.join();
  EXPECT_EQ(runs.load(std::memory_order::relaxed), 1);
}

TEST(NativeThread, JoiningItselfThrowsInsteadOfDeadlocking) {
  sptest::Watchdog dog("JoiningItselfThrowsInsteadOfDeadlocking");
  spd::NativeThread t;
  std::atomic<bool> assigned{false};
  std::error_code seen;
  t = spd::NativeThread(0, "sp-self", [&] {
    // acquire: pairs with the release below, so `t` holds this thread's handle.
    while (!assigned.load(std::memory_order::acquire)) std::this_thread::yield();
    try {
      t.join();
    } catch (const std::system_error& e) {
      seen = e.code();
    }
  });
  assigned.store(true, std::memory_order::release);
  t.join();
  EXPECT_EQ(seen, std::errc::resource_deadlock_would_occur);
}

TEST(NativeThreadDeathTest, DestroyingAJoinableThreadTerminates) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH({ spd::NativeThread t(0, "", [] {}); }, "destroyed while joinable");
}

}  // namespace

// Executor panic isolation (seed 000): a task that throws counts as finished, the
// first exception is kept, the executor stops (later spawns rejected, queued
// tasks dropped and destroyed) and join() rethrows it after every worker has
// stopped. Also exceptions from scratch_init, and the discarding destructor.
#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <chrono>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using sptest::config_with;
using sptest::TaskCounters;
using sptest::Tracked;

namespace {

TEST(ExecutorException, ThrowingTaskIsRethrownByJoinAfterEveryWorkerStopped) {
  sptest::Watchdog dog("ThrowingTaskIsRethrownByJoin");
  std::atomic<bool> slow_started{false}, slow_finished{false};
  sp::Executor<int> ex(config_with(2), [&](int v, sp::WorkerCtx<int, sp::NoScratch>& ctx) {
    if (v == 1) {  // a slow task still running on the other worker when the throw happens
      slow_started = true;
      (void)sptest::wait_until([&] { return !ctx.handle().is_accepting(); });
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      slow_finished = true;
      return;
    }
    (void)sptest::wait_until([&] { return slow_started.load(); });
    throw std::runtime_error("task 2 failed");
  });
  ASSERT_TRUE(ex.spawn_external(1));
  ASSERT_TRUE(ex.spawn_external(2));
  bool thrown = false;
  try {
    (void)ex.join();
  } catch (const std::runtime_error& e) {
    thrown = true;
    EXPECT_STREQ(e.what(), "task 2 failed");
    EXPECT_TRUE(slow_finished.load()) << "join() rethrew while a worker was still running a task";
  }
  EXPECT_TRUE(thrown);
  EXPECT_THROW((void)ex.join(), std::logic_error) << "a second join is a usage error, not a second rethrow";
}

TEST(ExecutorException, ThrowingTaskStopsTheExecutorAndEveryTaskIsRunOrDestroyed) {
  sptest::Watchdog dog("ThrowingTaskStopsTheExecutor");
  TaskCounters c;
  {
    sp::Executor<Tracked> ex(config_with(2), [&c](Tracked t, sp::WorkerCtx<Tracked, sp::NoScratch>& ctx) {
      t.mark_ran();
      if (t.id() == 10) {
        for (int k = 0; k < 5; ++k) ctx.spawn_local(Tracked(&c, 5000 + k));  // queued, then dropped
        throw std::invalid_argument("bad task 10");
      }
    });
    auto h = ex.handle();
    std::vector<Tracked> batch;
    for (int i = 0; i < 1000; ++i) batch.emplace_back(&c, i);
    ASSERT_TRUE(ex.spawn_external_batch(std::span<Tracked>(batch)));
    // The throw closes the gate: later spawns are rejected and left with the caller.
    ASSERT_TRUE(sptest::wait_until([&] { return !h.is_accepting(); }));
    Tracked late(&c, 9999);
    EXPECT_FALSE(h.spawn(std::move(late)));
    EXPECT_TRUE(late.live());
    try {
      (void)ex.join();
      ADD_FAILURE() << "join() did not rethrow";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), "bad task 10");
    }
  }
  // 1000 external + 5 children + 1 rejected; each ran or was destroyed unrun.
  EXPECT_EQ(c.made.load(), 1006);
  EXPECT_GE(c.ran.load(), 1);
  EXPECT_EQ(c.destroyed_run.load(), c.ran.load());
  EXPECT_EQ(c.ran.load() + c.destroyed_unrun.load(), 1006);
  EXPECT_EQ(c.live(), 0) << "tasks leaked after an exception";
}

TEST(ExecutorException, ManyTasksThrowingAtOnceRethrowExactlyOne) {
  sptest::Watchdog dog("ManyTasksThrowingAtOnce");
  for (int round = 0; round < 20; ++round) {
    TaskCounters c;
    std::atomic<int> thrown_by_tasks{0};
    int caught = 0;
    std::string message;
    {
      sp::Executor<Tracked> ex(config_with(4), [&](Tracked t, auto&) {
        t.mark_ran();
        thrown_by_tasks.fetch_add(1);
        throw std::runtime_error("fail " + std::to_string(t.id()));
      });
      std::vector<Tracked> batch;
      for (int i = 0; i < 500; ++i) batch.emplace_back(&c, i);
      ASSERT_TRUE(ex.spawn_external_batch(std::span<Tracked>(batch)));
      try {
        (void)ex.join();
      } catch (const std::runtime_error& e) {
        ++caught;
        message = e.what();
      }
    }
    ASSERT_EQ(caught, 1);
    ASSERT_EQ(message.rfind("fail ", 0), 0u) << message;
    ASSERT_GE(thrown_by_tasks.load(), 1);
    ASSERT_LE(thrown_by_tasks.load(), 4) << "workers kept taking tasks after the first exception";
    ASSERT_EQ(c.ran.load() + c.destroyed_unrun.load(), 500);
    ASSERT_EQ(c.live(), 0);
  }
}

struct CustomError {
  int code;
};

TEST(ExecutorException, NonStandardExceptionIsRethrownUnchanged) {
  sp::Executor<int> ex(config_with(1), [](int v, auto&) {
    if (v == 3) throw CustomError{v * 11};
  });
  for (int i = 0; i < 5; ++i) (void)ex.spawn_external(i);
  try {
    (void)ex.join();
    ADD_FAILURE() << "join() did not rethrow";
  } catch (const CustomError& e) {
    EXPECT_EQ(e.code, 33);
  }
}

TEST(ExecutorException, TaskThrowingWhileJoinDrainsIsRethrown) {
  sptest::Watchdog dog("TaskThrowingWhileJoinDrains");
  sp::Executor<int> ex(config_with(2), [](int depth, sp::WorkerCtx<int, sp::NoScratch>& ctx) {
    if (depth == 0) (void)sptest::wait_until([&] { return !ctx.handle().is_accepting(); });
    if (depth == 4) throw std::out_of_range("deep");
    ctx.spawn_local(depth + 1);
  });
  ASSERT_TRUE(ex.spawn_external(0));
  EXPECT_THROW((void)ex.join(), std::out_of_range);
}

TEST(ExecutorException, ScratchInitExceptionIsRethrownByJoin) {
  sptest::Watchdog dog("ScratchInitExceptionIsRethrownByJoin");
  for (std::size_t workers : {1u, 3u}) {
    TaskCounters c;
    {
      sp::Executor<Tracked, int> ex(
          config_with(workers),
          [workers](std::size_t id) -> int {
            if (id == workers - 1) throw std::runtime_error("no scratch for worker " + std::to_string(id));
            return 0;
          },
          [](Tracked t, sp::WorkerCtx<Tracked, int>&) { t.mark_ran(); });
      for (int i = 0; i < 100; ++i) (void)ex.spawn_external(Tracked(&c, i));  // may be rejected
      try {
        (void)ex.join();
        ADD_FAILURE() << "join() did not rethrow the scratch_init exception";
      } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "no scratch for worker " + std::to_string(workers - 1));
      }
      EXPECT_FALSE(ex.spawn_external(Tracked(&c, 100)));
    }
    EXPECT_EQ(c.live(), 0) << "workers " << workers;
    EXPECT_EQ(c.ran.load() + c.destroyed_unrun.load(), c.made.load());
  }
}

TEST(ExecutorException, DestructorDiscardsTheExceptionWhenJoinWasNotCalled) {
  sptest::Watchdog dog("DestructorDiscardsTheException");
  std::atomic<int> runs{0};
  EXPECT_NO_THROW({
    sp::Executor<int> ex(config_with(2), [&](int, auto&) {
      runs.fetch_add(1);
      throw std::runtime_error("nobody asked");
    });
    EXPECT_TRUE(ex.spawn_external(1));
  });
  EXPECT_EQ(runs.load(), 1);
}

}  // namespace

namespace {

// join(std::nothrow) keeps the metrics of a failed run and hands back the exception.
TEST(ExecutorException, JoinNothrowReturnsTheExceptionWithTheMetrics) {
  sptest::Watchdog dog("JoinNothrowReturnsTheExceptionWithTheMetrics");
  stealpool::Executor<int> ex(sptest::config_with(2), [](int v, auto&) {
    if (v == 7) throw std::runtime_error("task 7 failed");
  });
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(ex.spawn_external(i));
  ASSERT_TRUE(ex.spawn_external(7));
  const stealpool::MetricsSnapshot m = ex.join(std::nothrow);
  ASSERT_TRUE(m.first_exception);
  EXPECT_EQ(m.tasks_failed, 1u);
  EXPECT_LE(m.tasks_executed + m.tasks_dropped, 8u);
  EXPECT_GE(m.tasks_executed, 1u);
  try {
    std::rethrow_exception(m.first_exception);
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "task 7 failed");
  }
}

TEST(ExecutorException, JoinNothrowOfACleanRunHasNoException) {
  stealpool::Executor<int> ex(sptest::config_with(2), [](int, auto&) {});
  ASSERT_TRUE(ex.spawn_external(1));
  const stealpool::MetricsSnapshot m = ex.join(std::nothrow);
  EXPECT_FALSE(m.first_exception);
  EXPECT_EQ(m.tasks_executed, 1u);
}

}  // namespace

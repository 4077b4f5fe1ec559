// bench/common/parked_thread.hpp: one thread asleep on its own Parker (a futex
// word, platform/parker.hpp) and nothing else: no queue, no pool. The floor
// under every pool's wake-up (docs/wakeup.md, "The floor"), used by wake_floor
// and by stealbench's wake suite.
//
// wake(r) hands the thread a request; it runs on_wake(r) on its own stack and
// parks again. One request at a time: the caller waits for on_wake's effect
// before the next wake().
#pragma once

#include <atomic>
#include <thread>

#include "stealpool/platform/parker.hpp"

namespace stealbench {

template <class T>
class alignas(64) ParkedThread {  // a line of its own: several sit side by side
 public:
  using OnWake = void (*)(T*);

  explicit ParkedThread(OnWake on_wake) : on_wake_(on_wake), thread_([this] { loop(); }) {}
  ~ParkedThread() {
    stop_.store(true, std::memory_order_relaxed);  // published by unpark()'s release
    parker_.unpark();
    thread_.join();
  }
  ParkedThread(const ParkedThread&) = delete;
  ParkedThread& operator=(const ParkedThread&) = delete;

  // Any thread. `request` must not be null.
  void wake(T* request) {
    request_.store(request, std::memory_order_relaxed);  // published by unpark()'s release
    parker_.unpark();
  }

 private:
  void loop() {
    for (;;) {
      (void)parker_.park(stealpool::detail::Parker::kForever);  // the token's acquire sees request_, stop_
      if (stop_.load(std::memory_order_relaxed)) return;
      if (T* r = request_.exchange(nullptr, std::memory_order_relaxed)) on_wake_(r);  // null: a spurious return
    }
  }

  stealpool::detail::Parker parker_;
  std::atomic<T*> request_{nullptr};
  std::atomic<bool> stop_{false};
  const OnWake on_wake_;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace stealbench

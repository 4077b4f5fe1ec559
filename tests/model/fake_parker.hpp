// tests/model/fake_parker.hpp: the Parker's contract on a Relacy atomic, for the
// model checks of protocols that park (sleep_model.cpp, group_count_model.cpp).
//
// A sticky token (several unparks leave one), unpark() a release swap
// ([PARK-token]), park() consumes the token with acquire. The futex sleep becomes
// a yielding wait, and a park that would last for ever returns false instead:
// no token is there and every thread that could unpark has finished (the test
// sets *g_unparkers_done). Without that the sleeper would spin until Relacy's
// depth limit and be reported only as a livelock.
#pragma once

#include <chrono>

#include "relacy_sync.hpp"

namespace stealpool::model {

// Set by a test's before() to its own flag (Relacy runs one test at a time).
inline RelacyAtomic<int>* g_unparkers_done = nullptr;

class FakeParker {
 public:
  static constexpr std::chrono::nanoseconds kForever = std::chrono::nanoseconds::max();

  // true once a token is consumed; false only when the wait would be for ever.
  bool park(std::chrono::nanoseconds /*timeout: always kForever in the models*/ = kForever) {
    for (;;) {
      if (token_.exchange(0, std::memory_order::acquire) == 1) return true;
      if (g_unparkers_done->load(std::memory_order::seq_cst) == 1)
        // An RMW reads the last token in modification order: an unpark made
        // before the flag was set is seen here.
        return token_.exchange(0, std::memory_order::acquire) == 1;
      rl::yield(1, $);
    }
  }

  void unpark() { token_.exchange(1, std::memory_order::release); }

 private:
  RelacyAtomic<int> token_{0};
};

}  // namespace stealpool::model

// tests/support/spawn_race.hpp: one round of "producers spawn while the owner
// calls join()", checked with gtest assertions (callers test HasFatalFailure()).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <span>
#include <thread>
#include <vector>

#include "stealpool/executor.hpp"
#include "test_support.hpp"

namespace sptest {

namespace sp = stealpool;

// Several producers spawn while the owner calls join(): every spawn that returned
// true ran exactly once, every one that returned false never ran, and once a
// producer saw false it never saw true again (the gate is monotonic).
// Returns (through `rejected_out`, if given) how many spawns the gate refused:
// rounds with none did not exercise the race.
inline void spawn_racing_join_round(std::size_t workers, bool batches, std::uint32_t kPerProducer = 3000,
                                    std::uint32_t kProducers = 3, std::uint64_t* rejected_out = nullptr) {
  const std::uint32_t kTotal = kProducers * kPerProducer;
  std::vector<std::atomic<std::uint8_t>> runs(kTotal);
  std::vector<std::uint8_t> accepted(kTotal, 0);  // slot i written only by its producer
  std::vector<int> late_accepts(kProducers, 0);
  std::atomic<std::uint32_t> spawned{0};
  sp::Executor<std::uint32_t> ex(config_with(workers),
                                 [&](std::uint32_t id, auto&) { runs[id].fetch_add(1, std::memory_order::relaxed); });
  std::vector<std::thread> producers;
  for (std::uint32_t p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p, h = ex.handle()]() mutable {
      bool rejected = false;
      const std::uint32_t base = p * kPerProducer;
      for (std::uint32_t i = 0; i < kPerProducer;) {
        bool ok;
        std::uint32_t n = 1;
        if (batches && p == 0) {
          n = std::min<std::uint32_t>(4, kPerProducer - i);
          const std::uint32_t ids[4] = {base + i, base + i + 1, base + i + 2, base + i + 3};  // [n, 4) unused
          ok = h.spawn_batch(std::span<const std::uint32_t>(ids, n));
        } else {
          ok = h.spawn(base + i);
        }
        for (std::uint32_t k = 0; k < n; ++k) accepted[base + i + k] = ok;
        if (ok && rejected) ++late_accepts[p];
        rejected |= !ok;
        if (ok) spawned.fetch_add(n, std::memory_order::relaxed);
        i += n;
      }
    });
  }
  (void)sptest::wait_until([&] { return spawned.load() >= 200; });
  const sp::MetricsSnapshot m = ex.join();
  for (auto& t : producers) t.join();
  std::uint64_t n_accepted = 0;
  for (std::uint32_t id = 0; id < kTotal; ++id) {
    n_accepted += accepted[id];
    ASSERT_EQ(int(runs[id].load()), int(accepted[id])) << "task " << id << (accepted[id] ? " accepted" : " rejected")
                                             << " ran " << int(runs[id].load()) << " times";
  }
  for (std::uint32_t p = 0; p < kProducers; ++p) ASSERT_EQ(late_accepts[p], 0) << "producer " << p;
  if (rejected_out != nullptr) *rejected_out = kTotal - n_accepted;
  ASSERT_EQ(m.tasks_executed, n_accepted);
  ASSERT_EQ(m.tasks_dropped, 0u);
}

}  // namespace sptest

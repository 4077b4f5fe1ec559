// Behaviour of Injector: FIFO, batches across its 255-slot blocks, batch steals
// into a ChaseLevDeque, destruction with items still queued (run under ASan: the
// injector frees blocks itself), reuse of retired blocks (and of BlockCache, the
// type that keeps them), and exactly-once delivery with many producers and many
// consumers.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "../support/armed_new.hpp"
#include "../support/queue_support.hpp"
#include "stealpool/queue/block_cache.hpp"
#include "stealpool/queue/chase_lev_deque.hpp"
#include "stealpool/queue/injector.hpp"

namespace sp = stealpool;
using namespace sptest::queue;

namespace {

constexpr std::size_t kBlock = sp::Injector<int>::kBlockSlots;  // 255

std::vector<std::uint64_t> iota(std::uint64_t from, std::size_t n) {
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = from + i;
  return v;
}

// ---- sequential spec ----------------------------------------------------------

TEST(Injector, NewInjectorIsEmpty) {
  sp::Injector<int> q;
  EXPECT_EQ(q.steal().status(), sp::StealStatus::empty);
  EXPECT_TRUE(q.empty_hint());
}

TEST(Injector, StealReturnsSinglePushesInFifoOrderAcrossBlocks) {
  sp::Injector<std::uint64_t> q;
  for (std::uint64_t i = 0; i < 4 * kBlock + 3; ++i) q.push(i);
  EXPECT_FALSE(q.empty_hint());
  for (std::uint64_t i = 0; i < 4 * kBlock + 3; ++i) {
    sp::Steal<std::uint64_t> s = q.steal();
    ASSERT_TRUE(s.is_success()) << i;
    ASSERT_EQ(s.value(), i);
  }
  EXPECT_EQ(q.steal().status(), sp::StealStatus::empty);  // empty, not retry
  EXPECT_TRUE(q.empty_hint());
}

TEST(Injector, PushBatchSpanningSeveralBlocksKeepsOrderFromAnyStartingOffset) {
  for (std::size_t before : {0u, 1u, 254u, 255u, 256u}) {
    for (std::size_t batch : {1u, 254u, 255u, 256u, 510u, 511u, 1000u, 2000u}) {
      sp::Injector<std::uint64_t> q;
      for (std::uint64_t i = 0; i < before; ++i) q.push(i);
      const std::vector<std::uint64_t> items = iota(before, batch);
      q.push_batch(items);
      for (std::uint64_t i = 0; i < before + batch; ++i) {
        sp::Steal<std::uint64_t> s = q.steal();
        ASSERT_TRUE(s.is_success()) << "before=" << before << " batch=" << batch << " i=" << i;
        ASSERT_EQ(s.value(), i);
      }
      EXPECT_TRUE(q.steal().is_empty());
    }
  }
}

TEST(Injector, PushBatchOfNothingChangesNothing) {
  sp::Injector<int> q;
  q.push_batch({});
  EXPECT_TRUE(q.steal().is_empty());
  q.push(5);
  q.push_batch({});
  EXPECT_EQ(q.steal().value(), 5);
}

TEST(Injector, StealBatchAndPopReturnsOldestAndMovesTheNextOnesIntoTheDeque) {
  sp::Injector<std::uint64_t> q;
  q.push_batch(iota(0, 100));
  sp::ChaseLevDeque<std::uint64_t> dest;
  sp::Steal<std::uint64_t> first = q.steal_batch_and_pop(dest, 32);
  ASSERT_TRUE(first.is_success());
  EXPECT_EQ(first.value(), 0u);
  EXPECT_EQ(dest.size_hint(), 31u) << "limit counts the returned item";
  for (std::uint64_t i = 1; i <= 31; ++i) EXPECT_EQ(dest.steal().value(), i);  // FIFO end of dest
  EXPECT_EQ(q.steal().value(), 32u);  // the injector keeps the rest, in order
}

TEST(Injector, StealBatchAndPopStaysInsideOneBlockAndLosesNothing) {
  sp::Injector<std::uint64_t> q;
  q.push_batch(iota(0, 2 * kBlock + 10));
  for (std::uint64_t i = 0; i < kBlock - 5; ++i) ASSERT_EQ(q.steal().value(), i);
  sp::ChaseLevDeque<std::uint64_t> dest;
  std::uint64_t next = kBlock - 5;
  while (next < 2 * kBlock + 10) {
    const std::size_t before = dest.size_hint();
    sp::Steal<std::uint64_t> first = q.steal_batch_and_pop(dest, 100);
    ASSERT_TRUE(first.is_success());
    ASSERT_EQ(first.value(), next);
    const std::size_t moved = dest.size_hint() - before;
    EXPECT_LE(moved + 1, 100u);
    // Never past the end of the block holding `next`.
    EXPECT_LE(next % kBlock + moved + 1, kBlock) << "next=" << next;
    for (std::size_t k = 0; k < moved; ++k) ASSERT_EQ(dest.steal().value(), next + 1 + k);
    next += moved + 1;
  }
  EXPECT_TRUE(q.steal_batch_and_pop(dest).is_empty());
  EXPECT_TRUE(dest.empty_hint());
}

TEST(Injector, StealBatchAndPopWithLimitZeroOrOneTakesOneItem) {
  sp::Injector<int> q;
  for (int i = 0; i < 10; ++i) q.push(i);
  sp::ChaseLevDeque<int> dest;
  EXPECT_EQ(q.steal_batch_and_pop(dest, 0).value(), 0);
  EXPECT_EQ(q.steal_batch_and_pop(dest, 1).value(), 1);
  EXPECT_TRUE(dest.empty_hint());
}

TEST(Injector, StoresItemsOfUpTo64BytesAndNonDefaultConstructibleItems) {
  sp::Injector<Big> q;
  for (std::uint64_t i = 0; i < 300; ++i) q.push(big_from(i));
  for (std::uint64_t i = 0; i < 300; ++i) {
    sp::Steal<Big> s = q.steal();
    ASSERT_TRUE(s.is_success());
    for (std::uint64_t j = 0; j < 8; ++j) ASSERT_EQ(s.value().w[j], i + j);
  }
  sp::Injector<NoDefault> r;
  const NoDefault two[] = {NoDefault(1), NoDefault(2)};
  r.push_batch(two);
  EXPECT_EQ(r.steal().value().b, -1);
  EXPECT_EQ(r.steal().value().b, -2);
}

// Frees every block whatever state it is left in (ASan's leak checker and
// use-after-free detection do the checking).
TEST(Injector, DestroysCleanlyWithItemsStillQueued) {
  for (std::size_t pushed : {0u, 1u, 254u, 255u, 256u, 510u, 1000u, 5000u}) {
    for (std::size_t consumed : {0u, 1u, 254u, 255u, 256u, 510u, 1000u}) {
      if (consumed > pushed) continue;
      auto q = std::make_unique<sp::Injector<std::uint64_t>>();
      q->push_batch(iota(0, pushed / 2));
      for (std::uint64_t i = pushed / 2; i < pushed; ++i) q->push(i);
      for (std::size_t i = 0; i < consumed; ++i) ASSERT_TRUE(q->steal().is_success());
      q.reset();
    }
  }
}

// ---- block reuse ----------------------------------------------------------------

TEST(Injector, ASteadyStreamReusesRetiredBlocksInsteadOfAllocating) {
#if SPTEST_NO_ARMED_NEW
  GTEST_SKIP() << "no counting operator new in this build (tests/unit/CMakeLists.txt)";
#else
  sp::Injector<std::uint64_t> q;
  const std::vector<std::uint64_t> lap = iota(0, kBlock);
  auto one_lap = [&] {
    q.push_batch(lap);
    for (std::size_t i = 0; i < kBlock; ++i) ASSERT_TRUE(q.steal().is_success());
  };
  for (int warm = 0; warm < 3; ++warm) one_lap();
  sptest::alloc::Armed armed(0);  // count only
  for (int round = 0; round < 100; ++round) one_lap();  // 100 blocks filled and retired
  EXPECT_EQ(armed.count(), 0);
  EXPECT_TRUE(q.empty_hint());
#endif
}

TEST(Injector, ABacklogLongerThanTheCacheStillDeliversEveryItemInOrder) {
  // 200 blocks queued at once: more than the cache keeps, so retiring them frees
  // some; then a second backlog reuses the kept ones. (ASan checks the frees.)
  sp::Injector<std::uint64_t> q;
  for (int backlog = 0; backlog < 2; ++backlog) {
    const std::uint64_t base = backlog * 1000000u;
    q.push_batch(iota(base, 200 * kBlock));
    for (std::uint64_t i = 0; i < 200 * kBlock; ++i) {
      sp::Steal<std::uint64_t> s = q.steal();
      ASSERT_TRUE(s.is_success());
      ASSERT_EQ(s.value(), base + i);
    }
  }
}

// A block type that counts its live instances.
struct CountedBlock {
  static inline std::atomic<int> live{0};  // read after the threads are joined
  int tag;
  explicit CountedBlock(int t) : tag(t) { live.fetch_add(1, std::memory_order::relaxed); }
  ~CountedBlock() { live.fetch_sub(1, std::memory_order::relaxed); }
};

TEST(BlockCache, KeepsUpToItsCapacityAndFreesWhatItCannotKeep) {
  CountedBlock::live = 0;
  {
    sp::detail::BlockCache<CountedBlock, 2> cache;
    for (int t = 0; t < 3; ++t) cache.give(new CountedBlock(t));
    EXPECT_EQ(CountedBlock::live, 2);  // the third was freed
    CountedBlock* a = cache.take();
    CountedBlock* b = cache.take();
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_NE(a, b);
    EXPECT_EQ(cache.take(), nullptr);  // empty now
    cache.give(a);                     // back in; the destructor frees it
    delete b;
    EXPECT_EQ(CountedBlock::live, 1);
  }
  EXPECT_EQ(CountedBlock::live, 0);
}

TEST(BlockCache, EveryBlockGivenByManyThreadsIsTakenOnceOrFreed) {
  // 4 threads give and take at once; every block ends either taken by exactly
  // one thread (then deleted by it) or freed by the cache: no leak, no double
  // owner (a block taken twice would be deleted twice: ASan).
  CountedBlock::live = 0;
  {
    sp::detail::BlockCache<CountedBlock, 4> cache;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&cache, t] {
        for (int i = 0; i < 20000; ++i) {
          if (i % 2 == 0) {
            cache.give(new CountedBlock(t));
          } else if (CountedBlock* b = cache.take()) {
            delete b;
          }
        }
      });
    for (auto& th : threads) th.join();
  }
  EXPECT_EQ(CountedBlock::live, 0);
}

// ---- concurrent -----------------------------------------------------------------

// Batch sizes producers cycle through: singles, block-sized and multi-block.
constexpr std::size_t kBatchSizes[] = {1, 3, 1, 17, 255, 1, 256, 600, 2, 64, 1, 254};

// Producer p pushes ids [p * n, (p + 1) * n) in order, singly and in batches.
void produce(sp::Injector<Tagged>& q, std::uint64_t p, std::uint64_t n) {
  std::vector<Tagged> batch;
  std::uint64_t next = p * n;
  const std::uint64_t end = next + n;
  for (std::size_t k = p; next < end; ++k) {
    const std::size_t size = std::min<std::uint64_t>(kBatchSizes[k % std::size(kBatchSizes)], end - next);
    if (size == 1) {
      q.push(tagged(next++));
      continue;
    }
    batch.clear();
    for (std::size_t i = 0; i < size; ++i) batch.push_back(tagged(next++));
    q.push_batch(batch);
  }
}

struct MpmcParams {
  int producers;
  int consumers;
};

class InjectorMpmc : public ::testing::TestWithParam<MpmcParams> {};

TEST_P(InjectorMpmc, EveryItemIsTakenExactlyOnce) {
  const MpmcParams p = GetParam();
  const std::uint64_t per_producer = scaled(2'000'000) / static_cast<std::uint64_t>(p.producers);
  const std::uint64_t n = per_producer * static_cast<std::uint64_t>(p.producers);
  sp::Injector<Tagged> q;
  ExactlyOnceLedger ledger(n);
  std::atomic<int> producers_done{0};

  std::vector<std::thread> threads;
  for (int c = 0; c < p.consumers; ++c) {
    threads.emplace_back([&, c] {
      sp::ChaseLevDeque<Tagged> mine;
      steal_until_drained(
          [&] { return producers_done.load(std::memory_order::acquire) == p.producers; },
          [&, k = static_cast<unsigned>(c)](auto&& take) mutable {
            const unsigned j = k++;
            sp::Steal<Tagged> s = j % 2 == 0 ? q.steal() : q.steal_batch_and_pop(mine, 1 + j % 64);
            while (std::optional<Tagged> x = mine.pop()) take(*x);
            return s;
          },
          [&](const Tagged& x) { ledger.record(x); });
    });
  }
  for (int i = 0; i < p.producers; ++i) {
    threads.emplace_back([&, i] {
      produce(q, static_cast<std::uint64_t>(i), per_producer);
      producers_done.fetch_add(1, std::memory_order::release);
    });
  }
  for (std::thread& t : threads) t.join();

  ledger.expect_each_taken_once();
}

INSTANTIATE_TEST_SUITE_P(ProducersAndConsumers, InjectorMpmc,
                         ::testing::Values(MpmcParams{1, 1}, MpmcParams{1, 4}, MpmcParams{4, 1}, MpmcParams{4, 4},
                                           MpmcParams{2, 6}),
                         [](const ::testing::TestParamInfo<MpmcParams>& info) {
                           return std::to_string(info.param.producers) + "Producers" +
                                  std::to_string(info.param.consumers) + "Consumers";
                         });

// A single consumer sees each producer's items in the order that producer pushed
// them, whether it takes them singly or in batches (drained from the deque's FIFO
// steal end).
TEST(InjectorFifo, SingleConsumerSeesEachProducersItemsInPushOrder) {
  constexpr int kProducers = 3;
  const std::uint64_t per_producer = scaled(500'000);
  sp::Injector<Tagged> q;
  std::atomic<int> producers_done{0};
  std::vector<std::thread> producers;
  for (int i = 0; i < kProducers; ++i) {
    producers.emplace_back([&, i] {
      produce(q, static_cast<std::uint64_t>(i), per_producer);
      producers_done.fetch_add(1, std::memory_order::release);
    });
  }

  std::vector<std::uint64_t> expected(kProducers);
  for (int i = 0; i < kProducers; ++i) expected[i] = static_cast<std::uint64_t>(i) * per_producer;
  std::uint64_t seen = 0, out_of_order = 0;
  auto check = [&](const Tagged& x) {
    const std::uint64_t producer = x.id / per_producer;
    if (!intact(x) || producer >= kProducers || x.id != expected[producer]) {
      if (out_of_order++ == 0) ADD_FAILURE() << "got id " << x.id;
      return;
    }
    ++expected[producer];
    ++seen;
  };
  sp::ChaseLevDeque<Tagged> mine;
  for (unsigned k = 0;; ++k) {
    const bool finished = producers_done.load(std::memory_order::acquire) == kProducers;  // before the steal
    sp::Steal<Tagged> s = k % 2 == 0 ? q.steal() : q.steal_batch_and_pop(mine, 1 + k % 300);
    if (s.is_empty() && finished) break;
    if (!s.is_success()) continue;
    check(s.value());
    for (sp::Steal<Tagged> t = mine.steal(); t.is_success(); t = mine.steal()) check(t.value());
  }
  for (std::thread& t : producers) t.join();
  EXPECT_EQ(out_of_order, 0u);
  EXPECT_EQ(seen, kProducers * per_producer);
  EXPECT_TRUE(q.steal().is_empty());
}

}  // namespace

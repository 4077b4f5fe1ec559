// SplitDeque (queue/split_deque.hpp; protocol in queue/README.md, "Split deque"):
// the owner's LIFO end, which items are public (the first push into an empty
// deque; the older half of the private ones once a thief asked) and which stay
// private, reclaiming public items by pop (the fence path and the last-item CAS),
// the fixed capacity, empty_hint, and exactly-once delivery under real threads:
// an owner with a random push/pop mix against 1, 2 and 4 thieves, and the owner
// and thieves fighting for a lone last item. Memory orders are checked by Relacy
// in tests/model/split_deque_model.cpp; real threads on x86 catch store->load
// reordering and logic errors only.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../support/queue_support.hpp"
#include "stealpool/queue/split_deque.hpp"

namespace sp = stealpool;
using namespace sptest::queue;
using namespace std::chrono_literals;

namespace {

using sp::PushResult;

// Steals until one steal is not a success; returns the values taken, in order.
std::vector<int> steal_all(sp::SplitDeque<int>& q) {
  std::vector<int> got;
  for (;;) {
    sp::Steal<int> s = q.steal();
    if (!s.is_success()) {
      EXPECT_TRUE(s.is_empty()) << "no other thread races here: a failed steal must say empty";
      return got;
    }
    got.push_back(s.value());
  }
}

std::vector<int> range(int first, int last) {  // [first, last]
  std::vector<int> v;
  for (int i = first; i <= last; ++i) v.push_back(i);
  return v;
}

// Leaves item 0 public and items 1..n private, with nothing requested.
void push_one_public_and_n_private(sp::SplitDeque<int>& q, int n) {
  ASSERT_EQ(q.push(0), PushResult::published);
  for (int i = 1; i <= n; ++i) ASSERT_EQ(q.push(i), PushResult::kept_private) << "item " << i;
}

// ---- the owner's end ---------------------------------------------------------------

TEST(SplitDeque, NewDequeIsEmptyForOwnerAndThieves) {
  sp::SplitDeque<int> q;
  EXPECT_FALSE(q.pop().has_value());
  EXPECT_TRUE(q.steal().is_empty());
  EXPECT_TRUE(q.empty_hint());
  EXPECT_EQ(q.size_hint(), 0u);
}

TEST(SplitDeque, OwnerPopsInLifoOrderAcrossPrivateAndPublicItems) {
  sp::SplitDeque<int> q;
  for (int i = 0; i < 10; ++i) (void)q.push(i);  // item 0 public, 1..9 private
  EXPECT_EQ(q.size_hint(), 10u);
  for (int i = 9; i >= 0; --i) EXPECT_EQ(q.pop(), i);
  EXPECT_FALSE(q.pop().has_value());
  EXPECT_TRUE(q.steal().is_empty());
}

// ---- what is public ------------------------------------------------------------------

TEST(SplitDeque, FirstPushIntoAnEmptyDequeIsPublishedAndStealable) {
  sp::SplitDeque<int> q;
  EXPECT_EQ(q.push(7), PushResult::published);
  EXPECT_FALSE(q.empty_hint());
  sp::Steal<int> s = q.steal();
  ASSERT_TRUE(s.is_success());
  EXPECT_EQ(s.value(), 7);
  // Emptied by a thief: the next push is a first push again.
  EXPECT_EQ(q.push(8), PushResult::published);
  sp::Steal<int> t = q.steal();
  ASSERT_TRUE(t.is_success());
  EXPECT_EQ(t.value(), 8);
}

TEST(SplitDeque, FirstPushAfterTheOwnerTookTheLastItemBackIsPublishedAgain) {
  sp::SplitDeque<int> q;
  ASSERT_EQ(q.push(1), PushResult::published);
  EXPECT_EQ(q.pop(), 1);  // the last public item, taken back by the CAS path
  EXPECT_TRUE(q.empty_hint());
  EXPECT_EQ(q.push(2), PushResult::published);
  sp::Steal<int> s = q.steal();
  ASSERT_TRUE(s.is_success());
  EXPECT_EQ(s.value(), 2);
}

TEST(SplitDeque, LaterPushesStayPrivateUntilAThiefAsksThenTheOwnersNextPushPublishesTheOlderHalf) {
  sp::SplitDeque<int> q;
  push_one_public_and_n_private(q, 3);  // 0 public; 1, 2, 3 private
  EXPECT_EQ(steal_all(q), std::vector<int>{0}) << "only the first push is public";
  // That last, failed steal was `empty` (not retry) and raised the request.
  EXPECT_TRUE(q.empty_hint()) << "private items do not count";
  EXPECT_EQ(q.size_hint(), 3u);
  EXPECT_EQ(q.push(4), PushResult::published);  // private: 1 2 3 4 -> publish 1 2
  EXPECT_FALSE(q.empty_hint());
  EXPECT_EQ(steal_all(q), (std::vector<int>{1, 2})) << "the oldest half, oldest first";
  // The newer half stayed private, for the owner.
  EXPECT_EQ(q.pop(), 4);
  EXPECT_EQ(q.pop(), 3);
  EXPECT_FALSE(q.pop().has_value());
}

TEST(SplitDeque, PushesStayPrivateWithoutARequestEvenOnceNothingIsPublic) {
  sp::SplitDeque<int> q;
  push_one_public_and_n_private(q, 5);
  sp::Steal<int> s = q.steal();
  ASSERT_TRUE(s.is_success());  // item 0: a success raises no request
  EXPECT_EQ(s.value(), 0);
  // Nothing public is left, but items are private: not a "first push".
  EXPECT_EQ(q.push(6), PushResult::kept_private);
  EXPECT_TRUE(q.empty_hint());
}

TEST(SplitDeque, PublishRequestedAfterAPopPublishesTheOlderHalfOfWhatIsLeft) {
  sp::SplitDeque<int> q;
  push_one_public_and_n_private(q, 4);  // 0 public; 1..4 private
  EXPECT_EQ(steal_all(q), std::vector<int>{0});  // ends with a request
  EXPECT_EQ(q.pop(), 4);
  EXPECT_TRUE(q.steal().is_empty()) << "pop() itself never publishes";
  EXPECT_EQ(q.publish_requested(), PushResult::published);  // private: 1 2 3 -> publish 1 2
  EXPECT_EQ(steal_all(q), (std::vector<int>{1, 2}));
  EXPECT_EQ(q.pop(), 3);
  EXPECT_FALSE(q.pop().has_value());
}

TEST(SplitDeque, PublishAllMakesEveryPrivateItemStealableUnasked) {
  sp::SplitDeque<int> q;
  EXPECT_EQ(q.publish_all(), PushResult::kept_private);  // empty
  push_one_public_and_n_private(q, 3);                   // 0 public; 1..3 private
  EXPECT_EQ(q.publish_all(), PushResult::published) << "no thief asked";
  EXPECT_EQ(q.publish_all(), PushResult::kept_private) << "nothing private left";
  EXPECT_EQ(q.pop(), 3) << "the owner still takes the newest back";
  EXPECT_EQ(steal_all(q), (std::vector<int>{0, 1, 2})) << "the rest, oldest first";
  EXPECT_FALSE(q.pop().has_value());
}

TEST(SplitDeque, PublishRequestedDoesNothingWithoutARequestOrWithoutPrivateItems) {
  sp::SplitDeque<int> q;
  EXPECT_EQ(q.publish_requested(), PushResult::kept_private);  // empty, nobody asked
  push_one_public_and_n_private(q, 2);
  EXPECT_EQ(q.publish_requested(), PushResult::kept_private);  // nobody asked
  EXPECT_TRUE(q.steal().is_success());
  EXPECT_EQ(q.publish_requested(), PushResult::kept_private);  // a success asks nothing
  EXPECT_TRUE(q.steal().is_empty());                           // asks
  EXPECT_EQ(q.pop(), 2);
  EXPECT_EQ(q.pop(), 1);
  EXPECT_EQ(q.publish_requested(), PushResult::kept_private);  // asked, but nothing private
  EXPECT_EQ(q.push(3), PushResult::published) << "a first push into an empty deque";
}

TEST(SplitDeque, APublishServesOneRequestAndAThiefMustAskAgain) {
  sp::SplitDeque<int> q;
  push_one_public_and_n_private(q, 6);
  EXPECT_EQ(steal_all(q), std::vector<int>{0});
  EXPECT_EQ(q.push(7), PushResult::published);  // private 1..7 -> publish 1..4
  EXPECT_EQ(q.push(8), PushResult::kept_private) << "the request was cleared by the publish";
  EXPECT_EQ(steal_all(q), (std::vector<int>{1, 2, 3, 4}));  // ends with a new request
  EXPECT_EQ(q.push(9), PushResult::published);               // private 5..9 -> publish 5 6 7
  EXPECT_EQ(steal_all(q), (std::vector<int>{5, 6, 7}));
  EXPECT_EQ(q.pop(), 9);
  EXPECT_EQ(q.pop(), 8);
  EXPECT_FALSE(q.pop().has_value());
}

TEST(SplitDeque, APublishMakesPublicTheOldestCeilHalfOfThePrivateItems) {
  for (int n = 1; n <= 20; ++n) {
    sp::SplitDeque<int> q;
    push_one_public_and_n_private(q, n);
    ASSERT_EQ(steal_all(q), std::vector<int>{0});
    ASSERT_EQ(q.push(n + 1), PushResult::published);  // n + 1 private items
    const int published = (n + 2) / 2;                  // ceil((n + 1) / 2)
    EXPECT_EQ(steal_all(q), range(1, published)) << "n=" << n;
    for (int i = n + 1; i > published; --i) ASSERT_EQ(q.pop(), i) << "n=" << n;
    EXPECT_FALSE(q.pop().has_value());
  }
}

// ---- reclaiming public items -----------------------------------------------------------

TEST(SplitDeque, PopTakesBackPublicItemsNewestFirstOnceThePrivateOnesAreGone) {
  sp::SplitDeque<int> q;
  push_one_public_and_n_private(q, 7);
  EXPECT_EQ(steal_all(q), std::vector<int>{0});
  ASSERT_EQ(q.push(8), PushResult::published);  // public 1..4, private 5..8
  for (int i = 8; i >= 5; --i) EXPECT_EQ(q.pop(), i);  // private
  EXPECT_EQ(q.pop(), 4);  // public, more than one left: the fence path, no CAS
  EXPECT_EQ(q.pop(), 3);
  EXPECT_EQ(q.pop(), 2);
  EXPECT_EQ(q.pop(), 1);  // the last public item: the CAS path
  EXPECT_FALSE(q.pop().has_value());
  EXPECT_TRUE(q.steal().is_empty());
  EXPECT_TRUE(q.empty_hint());
  EXPECT_EQ(q.size_hint(), 0u);
}

TEST(SplitDeque, PopAndStealMeetInThePublicPartWithoutDuplicates) {
  sp::SplitDeque<int> q;
  push_one_public_and_n_private(q, 7);
  EXPECT_EQ(steal_all(q), std::vector<int>{0});
  ASSERT_EQ(q.push(8), PushResult::published);  // public 1..4, private 5..8
  for (int i = 8; i >= 5; --i) ASSERT_EQ(q.pop(), i);
  EXPECT_EQ(q.pop(), 4);
  sp::Steal<int> s = q.steal();
  ASSERT_TRUE(s.is_success());
  EXPECT_EQ(s.value(), 1);
  EXPECT_EQ(q.pop(), 3);
  sp::Steal<int> t = q.steal();
  ASSERT_TRUE(t.is_success());
  EXPECT_EQ(t.value(), 2);
  EXPECT_FALSE(q.pop().has_value()) << "the thief took the last public item";
  EXPECT_TRUE(q.steal().is_empty());
  EXPECT_EQ(q.push(9), PushResult::published) << "empty again: a first push";
  EXPECT_EQ(q.pop(), 9);
}

// ---- capacity --------------------------------------------------------------------------

TEST(SplitDeque, PushReportsFullAtCapacityAndLosesNothing) {
  sp::SplitDeque<int> q(4);
  ASSERT_EQ(q.capacity(), 4u);
  push_one_public_and_n_private(q, 3);
  EXPECT_EQ(q.push(4), PushResult::full);
  EXPECT_EQ(q.push(4), PushResult::full) << "still full: nothing was stored";
  EXPECT_EQ(q.size_hint(), 4u);
  for (int i = 3; i >= 0; --i) EXPECT_EQ(q.pop(), i) << "the full push overwrote nothing";
  EXPECT_FALSE(q.pop().has_value());
}

TEST(SplitDeque, AStealFreesASlotForTheNextPushWhichWrapsAround) {
  sp::SplitDeque<int> q(4);
  push_one_public_and_n_private(q, 3);
  ASSERT_EQ(q.push(4), PushResult::full);
  sp::Steal<int> s = q.steal();
  ASSERT_TRUE(s.is_success());
  EXPECT_EQ(s.value(), 0);
  EXPECT_EQ(q.push(4), PushResult::kept_private);  // into slot 0, after top is re-read
  EXPECT_EQ(q.push(5), PushResult::full);
  for (int i = 4; i >= 1; --i) EXPECT_EQ(q.pop(), i);
  EXPECT_FALSE(q.pop().has_value());
}

TEST(SplitDeque, PublicItemsCountTowardsCapacityUntilTaken) {
  sp::SplitDeque<int> q(4);
  push_one_public_and_n_private(q, 2);
  EXPECT_EQ(steal_all(q), std::vector<int>{0});
  ASSERT_EQ(q.push(3), PushResult::published);  // public 1 2, private 3
  EXPECT_EQ(q.push(4), PushResult::kept_private);
  EXPECT_EQ(q.push(5), PushResult::full);
  EXPECT_EQ(steal_all(q), (std::vector<int>{1, 2}));
  EXPECT_EQ(q.push(5), PushResult::published) << "the failed steal asked";
  EXPECT_EQ(q.push(6), PushResult::kept_private);
  EXPECT_EQ(q.push(7), PushResult::full);
  // Left: 3 4 public (push(5) published the older half of 3 4 5), 5 6 private.
  EXPECT_EQ(q.pop(), 6);
  EXPECT_EQ(q.pop(), 5);
  EXPECT_EQ(q.pop(), 4);
  EXPECT_EQ(q.pop(), 3);
  EXPECT_FALSE(q.pop().has_value());
}

TEST(SplitDeque, RoundsCapacityUpToAPowerOfTwoOfAtLeastTwo) {
  EXPECT_EQ(sp::SplitDeque<int>(1).capacity(), 2u);
  EXPECT_EQ(sp::SplitDeque<int>(2).capacity(), 2u);
  EXPECT_EQ(sp::SplitDeque<int>(3).capacity(), 4u);
  EXPECT_EQ(sp::SplitDeque<int>(5).capacity(), 8u);
  EXPECT_EQ(sp::SplitDeque<int>(64).capacity(), 64u);
  EXPECT_EQ(sp::SplitDeque<int>().capacity(), sp::SplitDeque<int>::kDefaultCapacity);
}

TEST(SplitDeque, RejectsCapacityZeroAndAbove2Pow30NamingTheValue) {
  EXPECT_THROW(sp::SplitDeque<int>(0), std::invalid_argument);
  EXPECT_THROW(sp::SplitDeque<int>((std::size_t{1} << 30) + 1), std::invalid_argument);
  try {
    sp::SplitDeque<int> q(0);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("got 0"), std::string::npos) << e.what();
  }
}

TEST(SplitDeque, ACapacityOfTwoHoldsTwoItems) {
  sp::SplitDeque<int> q(1);
  EXPECT_EQ(q.push(0), PushResult::published);
  EXPECT_EQ(q.push(1), PushResult::kept_private);
  EXPECT_EQ(q.push(2), PushResult::full);
  EXPECT_EQ(q.pop(), 1);
  EXPECT_EQ(q.pop(), 0);
}

// ---- empty_hint ------------------------------------------------------------------------

TEST(SplitDequeEmptyHint, SaysWhetherAnyItemIsPublicNotWhetherTheDequeHoldsItems) {
  sp::SplitDeque<int> q;
  EXPECT_TRUE(q.empty_hint());
  ASSERT_EQ(q.push(0), PushResult::published);
  EXPECT_FALSE(q.empty_hint());
  ASSERT_EQ(q.push(1), PushResult::kept_private);
  EXPECT_FALSE(q.empty_hint());
  ASSERT_TRUE(q.steal().is_success());
  EXPECT_TRUE(q.empty_hint()) << "only a private item is left";
  EXPECT_EQ(q.size_hint(), 1u) << "size_hint counts it";
  EXPECT_TRUE(q.steal().is_empty());  // asks
  EXPECT_TRUE(q.empty_hint());
  ASSERT_EQ(q.push(2), PushResult::published);  // private 1 2 -> publish 1
  EXPECT_FALSE(q.empty_hint());
  EXPECT_EQ(q.pop(), 2);
  EXPECT_FALSE(q.empty_hint());
  EXPECT_EQ(q.pop(), 1);  // the owner took the last public item back
  EXPECT_TRUE(q.empty_hint());
}

// ---- item types ------------------------------------------------------------------------

TEST(SplitDeque, StoresItemsOfUpTo64BytesThroughPublishAndSteal) {
  sp::SplitDeque<Big> q(4);
  ASSERT_EQ(q.push(big_from(0)), PushResult::published);
  ASSERT_EQ(q.push(big_from(10)), PushResult::kept_private);
  sp::Steal<Big> s = q.steal();
  ASSERT_TRUE(s.is_success());
  for (std::uint64_t j = 0; j < 8; ++j) EXPECT_EQ(s.value().w[j], j);
  EXPECT_TRUE(q.steal().is_empty());
  ASSERT_EQ(q.push(big_from(20)), PushResult::published);  // publishes big 10
  ASSERT_EQ(q.push(big_from(30)), PushResult::kept_private);
  ASSERT_EQ(q.push(big_from(40)), PushResult::kept_private);  // wraps onto slot 0
  sp::Steal<Big> t = q.steal();
  ASSERT_TRUE(t.is_success());
  for (std::uint64_t j = 0; j < 8; ++j) EXPECT_EQ(t.value().w[j], 10 + j);
  for (std::uint64_t base : {40u, 30u, 20u}) {
    std::optional<Big> x = q.pop();
    ASSERT_TRUE(x.has_value());
    for (std::uint64_t j = 0; j < 8; ++j) EXPECT_EQ(x->w[j], base + j);
  }
}

// ---- real threads: exactly once ----------------------------------------------------------

// `n` thief threads stealing from q into ledger; each stops at a steal that
// finds q empty after it saw finish() begin (read before the steal, so nothing
// the owner left in q is missed). The constructor returns once all are running.
class Thieves {
 public:
  Thieves(sp::SplitDeque<Tagged>& q, int n, ExactlyOnceLedger& ledger) {
    std::atomic<int> ready{0};
    for (int i = 0; i < n; ++i) {
      threads_.emplace_back([this, &q, &ledger, &ready] {
        ready.fetch_add(1, std::memory_order::relaxed);
        steal_until_drained([this] { return done_.load(std::memory_order::acquire); },
                            [&q](auto&&) { return q.steal(); },
                            [this, &ledger](const Tagged& x) {
                              ledger.record(x);
                              stolen_.fetch_add(1, std::memory_order::relaxed);
                            });
      });
    }
    while (ready.load(std::memory_order::relaxed) < n) std::this_thread::yield();
  }
  Thieves(const Thieves&) = delete;
  Thieves& operator=(const Thieves&) = delete;
  ~Thieves() { finish(); }

  // Call once the owner has drained q.
  void finish() {
    done_.store(true, std::memory_order::release);
    for (std::thread& t : threads_)
      if (t.joinable()) t.join();
  }
  std::uint64_t stolen() const { return stolen_.load(std::memory_order::relaxed); }

 private:
  std::atomic<bool> done_{false};
  std::atomic<std::uint64_t> stolen_{0};
  std::vector<std::thread> threads_;
};

struct RaceCounts {
  std::uint64_t stolen = 0;
  std::uint64_t ran_when_full = 0;
};

// One owner and `thieves` thieves on q. The owner pushes scaled(n) unique Tagged
// ids with a random push/pop mix, in phases that mostly push (the deque fills, so
// push() reports full and the owner runs the item itself) or mostly pop (it
// drains, so pop takes public items back and races thieves for the last one). It
// calls publish_requested() after each pop, as the worker does. Thieves steal
// until the owner is done and they find the deque empty.
RaceCounts race_random_mix(std::size_t capacity, int thieves, std::uint64_t seed, std::size_t n_items) {
  sp::SplitDeque<Tagged> q(capacity);
  const std::uint64_t n = scaled(n_items);
  ExactlyOnceLedger ledger(n);
  Thieves crew(q, thieves, ledger);

  RaceCounts counts;
  std::uint64_t next = 0;
  bool filling = true;
  while (next < n) {
    if (xorshift(seed) % 64 == 0) filling = !filling;
    const bool push = xorshift(seed) % 8 < (filling ? 6u : 2u);
    if (push) {
      const Tagged item = tagged(next++);
      if (q.push(item) == PushResult::full) {
        ledger.record(item);  // the caller runs it itself
        ++counts.ran_when_full;
      }
    } else {
      if (std::optional<Tagged> x = q.pop()) ledger.record(*x);
      (void)q.publish_requested();
    }
  }
  while (std::optional<Tagged> x = q.pop()) ledger.record(*x);
  crew.finish();

  counts.stolen = crew.stolen();
  EXPECT_TRUE(q.empty_hint());
  EXPECT_FALSE(q.pop().has_value());
  ledger.expect_each_taken_once();
  return counts;
}

class SplitDequeRace : public ::testing::TestWithParam<int> {};

// Repeated at three capacities: 2 (every push wraps onto a slot a slow thief may
// still be reading), 16, and 1024 (deep enough that publishes move many items).
// On a loaded 2-core machine (sanitizer builds, parallel ctest) a thief thread
// may not be scheduled at all during a round of a few milliseconds; rounds are
// then repeated, with new seeds, until thieves took something (at most 20).
TEST_P(SplitDequeRace, EveryItemIsTakenExactlyOnceWithARandomPushPopMix) {
  const int thieves = GetParam();
  std::uint64_t seed = 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(thieves);
  std::uint64_t stolen = 0;
  for (int round = 0; round < 20 && stolen == 0; ++round) {
    for (std::size_t capacity : {2u, 16u, 1024u}) {
      const RaceCounts c = race_random_mix(capacity, thieves, seed, 1'000'000);
      std::printf("  round %d, capacity %zu: %llu stolen, %llu run by the owner when full\n", round, capacity,
                  static_cast<unsigned long long>(c.stolen), static_cast<unsigned long long>(c.ran_when_full));
      stolen += c.stolen;
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    }
  }
  EXPECT_GT(stolen, 0u) << "the thieves never took anything: the test proved nothing";
}

// A lone item, published by the first push into an empty deque, then popped by
// the owner after a random short delay while the thieves try to steal it: the
// owner's CAS on top against theirs, many times. Every push must publish (the
// deque is empty each time: a pop that returned nothing is exact).
TEST_P(SplitDequeRace, OwnerAndThievesFightForTheLastItemAndExactlyOneWins) {
  const int thieves = GetParam();
  const std::uint64_t n = scaled(500'000);
  sp::SplitDeque<Tagged> q(2);
  ExactlyOnceLedger ledger(n);
  Thieves crew(q, thieves, ledger);

  std::uint64_t seed = 0x2545F4914F6CDD1Dull, owner_won = 0, not_published = 0;
  std::atomic<std::uint64_t> sink{0};
  for (std::uint64_t i = 0; i < n; ++i) {
    if (q.push(tagged(i)) != PushResult::published) ++not_published;
    for (std::uint64_t k = xorshift(seed) % 64; k > 0; --k) sink.fetch_add(1, std::memory_order::relaxed);
    if (i % 4096 == 0) {  // now and then let a thief win, so the test never proves nothing
      (void)sptest::wait_until([&] { return q.empty_hint(); }, 10s);
    }
    if (std::optional<Tagged> x = q.pop()) {
      ledger.record(*x);
      ++owner_won;
    }
  }
  crew.finish();

  std::printf("  %llu of %llu last items stolen\n", static_cast<unsigned long long>(crew.stolen()),
              static_cast<unsigned long long>(n));
  EXPECT_EQ(not_published, 0u) << "a push into an empty deque must publish";
  EXPECT_GT(crew.stolen(), 0u) << "the thieves never won: the race was never run";
  EXPECT_GT(owner_won, 0u);
  EXPECT_TRUE(q.empty_hint());
  ledger.expect_each_taken_once();
}

// The owner pushes bursts of items, pauses while the thieves take the public one
// and ask for more, pushes once more (which publishes the older half of its
// private items) and pops everything at once: so it keeps taking back public
// items with the fence path (two or more public: no CAS) and the CAS path (the
// last one) while thieves steal the same items. With the [SD-pop-fence] fence
// deleted, this test and the random mix failed in 58 of 60 runs on x86 (checked
// by hand, with both cores free: store->load reordering lets the owner and a
// thief take one item, and then loses the next one pushed at that index). The
// other orders need Relacy (tests/model/split_deque_model.cpp).
TEST_P(SplitDequeRace, EveryItemIsTakenExactlyOnceWhileTheOwnerTakesBackPublicItems) {
  const int thieves = GetParam();
  const std::uint64_t n = scaled(1'000'000);
  sp::SplitDeque<Tagged> q(64);
  ExactlyOnceLedger ledger(n);
  Thieves crew(q, thieves, ledger);

  std::uint64_t seed = 0x1234567887654321ull, next = 0, served = 0, rounds = 0;
  std::atomic<std::uint64_t> sink{0};
  while (next < n) {
    // 1 public + 1-31 private; a pause in which thieves take the public one and
    // ask; one more push, which then publishes the older half of the private ones.
    const std::uint64_t burst = 2 + xorshift(seed) % 31;
    for (std::uint64_t k = 0; k < burst && next < n; ++k) ASSERT_NE(q.push(tagged(next++)), PushResult::full);
    for (std::uint64_t k = xorshift(seed) % 256; k > 0; --k) sink.fetch_add(1, std::memory_order::relaxed);
    if (next < n && q.push(tagged(next++)) == PushResult::published) ++served;
    if (++rounds % 4096 == 0) {  // now and then let the thieves win, so the test never proves nothing
      (void)sptest::wait_until([&] { return q.empty_hint(); }, 10s);
    }
    while (std::optional<Tagged> x = q.pop()) ledger.record(*x);
  }
  crew.finish();

  std::printf("  %llu of %llu items stolen, %llu requests served\n", static_cast<unsigned long long>(crew.stolen()),
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(served));
  EXPECT_GT(crew.stolen(), 0u) << "the thieves never took anything: the test proved nothing";
  ledger.expect_each_taken_once();
}

INSTANTIATE_TEST_SUITE_P(OwnerAgainstThieves, SplitDequeRace, ::testing::Values(1, 2, 4),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::to_string(info.param) + (info.param == 1 ? "Thief" : "Thieves");
                         });

}  // namespace

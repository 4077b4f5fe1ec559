// parallel_reduce: sums, min and max for many sizes, worker counts and each
// partitioner; associative but non-commutative combines (string concatenation,
// 2x2 matrix products) keep the order; a floating-point sum is the same bit for
// bit across worker counts 1/2/8, partitioners, repeated runs and where it is
// called from; T without a default constructor; index extremes; exceptions; an
// empty range returns the identity; first > last throws.
// parallel_invoke: 1..5 functions each run once, from outside and inside a pool;
// exceptions (all functions complete, the leftmost exception wins); nesting.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "../support/loop_support.hpp"
#include "../support/test_support.hpp"
#include "stealpool/stealpool.hpp"

namespace sp = stealpool;
using sptest::Part;

namespace {

using sptest::LoopParam;
using sptest::loop_param_name;
using sptest::loop_params;

class ParallelReduce : public ::testing::TestWithParam<LoopParam> {
 protected:
  sp::ThreadPool& pool() const { return sptest::loop_pool(GetParam().workers); }
  template <class T, class Map, class Combine>
  T reduce(long first, long last, T identity, Map map, Combine combine) const {
    return sptest::with_partitioner(GetParam().part, [&](auto p) {
      return sp::parallel_reduce(pool(), first, last, identity, map, combine, p);
    });
  }
};

std::vector<long> reduce_sizes() {
  std::vector<long> v = {0, 1, 2, 3, 4095, 4096, 4097, 10007, 65537};
  v.push_back(sptest::stress_scale() > 1 ? 100003 : 1000003);
  return v;
}

long long scramble(long i) { return (static_cast<long long>(i) * 7919) % 1000003 - 500000; }

TEST_P(ParallelReduce, SumMinAndMaxMatchASerialLoopForManySizes) {
  sptest::Watchdog dog("ParallelReduce.SumMinMax");
  for (long n : reduce_sizes()) {
    const long first = -n / 3, last = first + n;
    long long sum = 0, lo = std::numeric_limits<long long>::max(), hi = std::numeric_limits<long long>::min();
    for (long i = first; i < last; ++i) {
      sum += scramble(i);
      lo = std::min(lo, scramble(i));
      hi = std::max(hi, scramble(i));
    }
    EXPECT_EQ(reduce(first, last, 0LL, scramble, std::plus<>{}), sum) << "n = " << n;
    EXPECT_EQ(reduce(first, last, std::numeric_limits<long long>::max(), scramble,
                     [](long long a, long long b) { return std::min(a, b); }),
              lo)
        << "n = " << n;
    EXPECT_EQ(reduce(first, last, std::numeric_limits<long long>::min(), scramble,
                     [](long long a, long long b) { return std::max(a, b); }),
              hi)
        << "n = " << n;
  }
}

TEST_P(ParallelReduce, StringConcatenationKeepsTheOrder) {
  sptest::Watchdog dog("ParallelReduce.Strings");
  for (long n : {0L, 1L, 5L, 4097L, static_cast<long>(sptest::scaled(30011, 5003))}) {
    std::string want;
    for (long i = 0; i < n; ++i) want += std::to_string(i) + ",";
    const std::string got = reduce(0L, n, std::string(), [](long i) { return std::to_string(i) + ","; },
                                   [](std::string a, const std::string& b) { return a += b; });
    EXPECT_EQ(got.size(), want.size()) << "n = " << n;
    EXPECT_TRUE(got == want) << "n = " << n << ": the pieces came back out of order";
  }
}

// 2x2 matrices of uint64 (arithmetic mod 2^64): associative, not commutative.
using Mat = std::array<std::uint64_t, 4>;
Mat mul(const Mat& a, const Mat& b) {
  return {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
          a[2] * b[1] + a[3] * b[3]};
}
Mat mat_of(long i) {
  return {static_cast<std::uint64_t>(i % 5 + 1), static_cast<std::uint64_t>(i % 7), 1, static_cast<std::uint64_t>(i % 3)};
}

TEST_P(ParallelReduce, MatrixProductsKeepTheOrder) {
  sptest::Watchdog dog("ParallelReduce.Matrices");
  const Mat id = {1, 0, 0, 1};
  ASSERT_NE(mul(mat_of(0), mat_of(1)), mul(mat_of(1), mat_of(0))) << "the test needs a non-commutative product";
  for (long n : {1L, 2L, 4096L, 4097L, 100003L}) {
    Mat want = id;
    for (long i = 0; i < n; ++i) want = mul(want, mat_of(i));
    EXPECT_EQ(reduce(0L, n, id, mat_of, mul), want) << "n = " << n;
  }
}

// No default constructor: the partial results must not need one.
struct Total {
  explicit Total(long v) : value(v) {}
  long value;
};

TEST_P(ParallelReduce, WorksForATypeWithoutADefaultConstructor) {
  const Total t = reduce(0L, 10000L, Total(0), [](long i) { return Total(i); },
                         [](Total a, Total b) { return Total(a.value + b.value); });
  EXPECT_EQ(t.value, 10000L * 9999 / 2);
}

TEST_P(ParallelReduce, EmptyRangeReturnsTheIdentityWithoutCallingAnything) {
  std::atomic<int> calls{0};
  const std::string r = reduce(7L, 7L, std::string("id"),
                               [&](long) {
                                 calls.fetch_add(1);
                                 return std::string("x");
                               },
                               [&](std::string a, const std::string& b) {
                                 calls.fetch_add(1);
                                 return a + b;
                               });
  EXPECT_EQ(r, "id");
  EXPECT_EQ(calls.load(), 0);
  EXPECT_THROW(reduce(8L, 7L, 0L, [](long i) { return i; }, std::plus<>{}), std::invalid_argument);
}

struct MapError : std::runtime_error {
  MapError() : std::runtime_error("map") {}
};
struct CombineError : std::runtime_error {
  CombineError() : std::runtime_error("combine") {}
};

TEST_P(ParallelReduce, ExceptionsFromMapOrCombineReachTheCaller) {
  sptest::Watchdog dog("ParallelReduce.Exceptions");
  for (long k : {0L, 5000L, 9999L}) {
    EXPECT_THROW(reduce(0L, 10000L, 0L,
                        [k](long i) {
                          if (i == k) throw MapError();
                          return i;
                        },
                        std::plus<>{}),
                 MapError)
        << "k = " << k;
  }
  EXPECT_THROW(reduce(0L, 10000L, 0L, [](long i) { return i; },
                      [](long a, long b) {
                        if (b == 1234) throw CombineError();
                        return a + b;
                      }),
               CombineError);
  EXPECT_EQ(reduce(0L, 100L, 0L, [](long i) { return i; }, std::plus<>{}), 4950L) << "pool unusable after";
}

INSTANTIATE_TEST_SUITE_P(AllPartitioners, ParallelReduce, ::testing::ValuesIn(loop_params({1, 2, 8, 32})),
                         loop_param_name);

// --- floating point: bit for bit -------------------------------------------------

// Terms of both signs with random 52-bit mantissas and exponents spread over
// 2^-32 .. 2^31, so that any change in the order of additions changes the result.
double term(long i) {
  std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  const double mant = static_cast<double>(x & ((std::uint64_t{1} << 52) - 1)) / 4503599627370496.0 + 1.0;
  const int exp = static_cast<int>((x >> 52) % 64) - 32;
  return ((x >> 63) != 0 ? -1.0 : 1.0) * std::ldexp(mant, exp);
}
std::uint64_t bits(double d) { return std::bit_cast<std::uint64_t>(d); }

TEST(ParallelReduceFloat, SumIsBitForBitTheSameForAnyWorkersPartitionerRunAndCaller) {
  sptest::Watchdog dog("ParallelReduceFloat");
  for (long n : {5000L, 4096L * 3 + 1, static_cast<long>(sptest::scaled(200'003, 20'011))}) {
    double forward = 0, backward = 0;
    for (long i = 0; i < n; ++i) forward += term(i);
    for (long i = n - 1; i >= 0; --i) backward += term(i);
    ASSERT_NE(bits(forward), bits(backward)) << "n = " << n << ": the terms do not expose the order";
    std::vector<std::uint64_t> results;
    std::vector<std::string> labels;
    for (std::size_t workers : {1, 2, 8})
      for (Part part : sptest::kAllParts)
        for (int rep = 0; rep < 3; ++rep) {
          sptest::with_partitioner(part, [&](auto p) {
            results.push_back(bits(sp::parallel_reduce(sptest::loop_pool(workers), 0L, n, 0.0, term, std::plus<>{}, p)));
          });
          labels.push_back(std::string(sptest::part_name(part)) + " W" + std::to_string(workers) + " rep " +
                           std::to_string(rep));
        }
    // From outside any pool (default_pool()) and from inside a worker.
    results.push_back(bits(sp::parallel_reduce(0L, n, 0.0, term, std::plus<>{})));
    labels.push_back("default pool");
    results.push_back(bits(sptest::loop_pool(2).run([&] { return sp::parallel_reduce(0L, n, 0.0, term, std::plus<>{}); })));
    labels.push_back("inside a worker");
    for (std::size_t k = 1; k < results.size(); ++k)
      EXPECT_EQ(results[k], results[0]) << "n = " << n << ": " << labels[k] << " differs from " << labels[0];
  }
}

// --- index types ------------------------------------------------------------------

TEST(ParallelReduceTypes, NegativeRangesAndExtremes) {
  sptest::Watchdog dog("ParallelReduceTypes");
  constexpr int imin = std::numeric_limits<int>::min(), imax = std::numeric_limits<int>::max();
  constexpr std::size_t smax = std::numeric_limits<std::size_t>::max();
  for (std::size_t workers : {1, 2, 8})
    for (Part part : sptest::kAllParts)
      sptest::with_partitioner(part, [&](auto p) {
        sp::ThreadPool& pool = sptest::loop_pool(workers);
        const std::string where = std::string(sptest::part_name(part)) + " W" + std::to_string(workers);
        auto as_ll = [](auto i) { return static_cast<long long>(i); };
        long long want = 0;
        for (long long i = imin; i < imin + 1000LL; ++i) want += i;
        EXPECT_EQ(sp::parallel_reduce(pool, imin, imin + 1000, 0LL, as_ll, std::plus<>{}, p), want) << where;
        want = 0;
        for (long long i = imax - 1000LL; i < imax; ++i) want += i;
        EXPECT_EQ(sp::parallel_reduce(pool, imax - 1000, imax, 0LL, as_ll, std::plus<>{}, p), want) << where;
        EXPECT_EQ(sp::parallel_reduce(pool, -1000, 1000, 0LL, as_ll, std::plus<>{}, p), -1000LL) << where;
        // size_t near SIZE_MAX: the count of indices and their sum mod 2^64.
        std::size_t usum = 0;
        for (std::size_t i = smax - 1000; i < smax; ++i) usum += i;
        EXPECT_EQ(sp::parallel_reduce(pool, smax - 1000, smax, std::size_t{0}, [](std::size_t i) { return i; },
                                      std::plus<>{}, p),
                  usum)
            << where;
        EXPECT_EQ(sp::parallel_reduce(pool, smax - 1000, smax, 0L, [](std::size_t) { return 1L; }, std::plus<>{}, p),
                  1000L)
            << where;
      });
}

TEST(ParallelReduceNesting, AReduceInsideEveryBodyOfAParallelFor) {
  sptest::Watchdog dog("ParallelReduceNesting");
  const int rows = 200;
  std::vector<long> row_sums(rows, -1);
  sp::parallel_for(sptest::loop_pool(8), 0, rows, [&](int r) {
    row_sums[static_cast<std::size_t>(r)] =
        sp::parallel_reduce(0L, 1000L + r, 0L, [](long i) { return i; }, std::plus<>{});
  });
  for (int r = 0; r < rows; ++r) {
    const long m = 1000L + r;
    EXPECT_EQ(row_sums[static_cast<std::size_t>(r)], m * (m - 1) / 2) << "row " << r;
  }
}

// --- parallel_invoke ---------------------------------------------------------------

struct InvokeError : std::runtime_error {
  explicit InvokeError(int w) : std::runtime_error("function " + std::to_string(w)), which(w) {}
  int which;
};

// Calls parallel_invoke with the first k of five functions.
void invoke_first(int k, const std::array<std::function<void()>, 5>& f) {
  switch (k) {
    case 1: sp::parallel_invoke(f[0]); break;
    case 2: sp::parallel_invoke(f[0], f[1]); break;
    case 3: sp::parallel_invoke(f[0], f[1], f[2]); break;
    case 4: sp::parallel_invoke(f[0], f[1], f[2], f[3]); break;
    default: sp::parallel_invoke(f[0], f[1], f[2], f[3], f[4]); break;
  }
}

TEST(ParallelInvoke, OneToFiveFunctionsEachRunOnceFromOutsideAndInsideAPool) {
  sptest::Watchdog dog("ParallelInvoke.Counts");
  for (int k = 1; k <= 5; ++k) {
    std::array<std::atomic<int>, 5> ran{};
    std::array<std::function<void()>, 5> f;
    for (int j = 0; j < 5; ++j) f[static_cast<std::size_t>(j)] = [&ran, j] { ran[static_cast<std::size_t>(j)].fetch_add(1); };
    invoke_first(k, f);  // outside any pool
    for (std::size_t workers : {1, 2, 8}) sptest::loop_pool(workers).run([&] { invoke_first(k, f); });
    for (int j = 0; j < 5; ++j) EXPECT_EQ(ran[static_cast<std::size_t>(j)].load(), j < k ? 4 : 0) << k << " functions, #" << j;
  }
}

// Five functions that wait for each other all start, called where the worker's
// deque already holds a job (the other half of a join): parallel_invoke's own
// pushes are then private, and before each function published them first, the
// first function waited alone for a thief's request that never came.
TEST(ParallelInvoke, FunctionsThatWaitForEachOtherAllStartBehindAnotherJob) {
  sptest::Watchdog dog("ParallelInvoke.StartTogether");
  sp::ThreadPool& pool = sptest::loop_pool(8);
  for (int round = 0; round < 10; ++round) {
    sptest::StartTogether fns(5);
    auto f = [&] { fns.arrive_and_wait(); };
    pool.run([&] { (void)sp::join([&] { sp::parallel_invoke(f, f, f, f, f); }, [] {}); });
    ASSERT_FALSE(fns.gave_up()) << "round " << round << ": only " << fns.arrived_at_give_up()
                                << " of 5 functions started within 20 s";
  }
}

TEST(ParallelInvoke, TwoOrMoreFunctionsFromOutsideRunOnTheDefaultPool) {
  sptest::Watchdog dog("ParallelInvoke.DefaultPool");
  const void* def = &sp::default_pool().shared();
  std::atomic<int> off{0};
  auto f = [&] { if (sp::detail::current_executor() != def) off.fetch_add(1); };
  sp::parallel_invoke(f, f);
  sp::parallel_invoke(f, f, f, f, f);
  EXPECT_EQ(off.load(), 0);
}

TEST(ParallelInvoke, AcceptsLvaluesMutableLambdasAndFunctionsReturningValues) {
  // Each function writes its own variable: the three may run at once (two
  // incrementing one int was a data race, which TSan reported).
  int a = 0, b = 0, c = 0;
  auto inc_a = [&a]() mutable { ++a; };
  auto ret = [&b] { return ++b; };  // the value is discarded
  sp::parallel_invoke(inc_a, ret, [&c] { ++c; });
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 1);
  EXPECT_EQ(c, 1);
}

TEST(ParallelInvoke, AThrowingFunctionIsRethrownAfterAllOthersRan) {
  sptest::Watchdog dog("ParallelInvoke.Exceptions");
  for (std::size_t workers : {1, 2, 8})
    for (int k = 1; k <= 5; ++k)
      for (int thrower = 0; thrower < k; ++thrower) {
        std::array<std::atomic<int>, 5> ran{};
        std::array<std::function<void()>, 5> f;
        for (int j = 0; j < 5; ++j)
          f[static_cast<std::size_t>(j)] = [&ran, j, thrower] {
            ran[static_cast<std::size_t>(j)].fetch_add(1);
            if (j == thrower) throw InvokeError(j);
          };
        int caught = -1;
        try {
          sptest::loop_pool(workers).run([&] { invoke_first(k, f); });
        } catch (const InvokeError& e) {
          caught = e.which;
        }
        EXPECT_EQ(caught, thrower) << k << " functions, " << workers << " workers";
        for (int j = 0; j < k; ++j)
          EXPECT_EQ(ran[static_cast<std::size_t>(j)].load(), 1) << k << " functions, #" << j << " (thrower " << thrower << ")";
      }
}

TEST(ParallelInvoke, WhenSeveralThrowTheLeftmostWins) {
  sptest::Watchdog dog("ParallelInvoke.Leftmost");
  for (std::size_t workers : {1, 2, 8})
    for (int first = 0; first < 5; ++first)
      for (int second = first + 1; second < 5; ++second) {
        std::array<std::function<void()>, 5> f;
        std::atomic<int> ran{0};
        for (int j = 0; j < 5; ++j)
          f[static_cast<std::size_t>(j)] = [&ran, j, first, second] {
            ran.fetch_add(1);
            if (j == first || j == second) throw InvokeError(j);
          };
        int caught = -1;
        try {
          sptest::loop_pool(workers).run([&] { invoke_first(5, f); });
        } catch (const InvokeError& e) {
          caught = e.which;
        }
        EXPECT_EQ(caught, first) << "throwers " << first << " and " << second << ", " << workers << " workers";
        EXPECT_EQ(ran.load(), 5);
      }
}

TEST(ParallelInvoke, NestsWithLoops) {
  sptest::Watchdog dog("ParallelInvoke.Nesting");
  sptest::VisitCounter seen(3000);
  sptest::loop_pool(2).run([&] {
    sp::parallel_invoke([&] { sp::parallel_for(0, 1000, [&](int i) { seen.visit(i); }); },
                        [&] { sp::parallel_for(1000, 2000, [&](int i) { seen.visit(i); }); },
                        [&] {
                          sp::parallel_for(0, 10, [&](int r) {
                            sp::parallel_invoke([&] { for (int i = 0; i < 50; ++i) seen.visit(2000 + r * 100 + i); },
                                                [&] { for (int i = 50; i < 100; ++i) seen.visit(2000 + r * 100 + i); });
                          });
                        });
  });
  EXPECT_EQ(seen.exactly_once(), "");
}

}  // namespace

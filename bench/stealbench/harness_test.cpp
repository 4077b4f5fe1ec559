// stealbench's harness: the rep-by-rep ratio the table prints beside each
// ratio of medians.
#include "harness.hpp"

#include <gtest/gtest.h>

namespace stealbench {
namespace {

// (Constructed, not assigned: g++ 12 -O3 warns falsely, -Wrestrict, GCC bug
// 105329, on assigning a short literal to a std::string.)
Row row_with(std::vector<double> samples) { return Row{"w", "stealpool", "", 1, "ms", std::move(samples)}; }

// paired_ratio(num, den) exists and has these pairs and quartiles.
void expect_paired(const Row& num, const Row& den, std::size_t pairs, double q1, double median, double q3) {
  const auto p = paired_ratio(num, den);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->pairs, pairs);
  EXPECT_DOUBLE_EQ(p->q1, q1);
  EXPECT_DOUBLE_EQ(p->median, median);
  EXPECT_DOUBLE_EQ(p->q3, q3);
}

TEST(PairedRatio, ADriftThatSlowsBothRowsAlikeLeavesNoSpread) {
  // The machine's speed changed from rep to rep (each row's samples span 4x),
  // but in every rep num took 1.5x den's time: the paired quartiles say so.
  const Row num = row_with({3, 6, 12, 3, 6});
  const Row den = row_with({2, 4, 8, 2, 4});
  ASSERT_NO_FATAL_FAILURE(expect_paired(num, den, 5, 1.5, 1.5, 1.5));
  EXPECT_DOUBLE_EQ(num.max() / num.min(), 4);
}

TEST(PairedRatio, QuartilesAreTakenByRankOverTheSortedRatios) {
  // Ratios 1..8 in scrambled rep order: q1 = v[2], median = v[4], q3 = v[6].
  const Row num = row_with({5, 1, 8, 3, 2, 7, 4, 6});
  const Row den = row_with({1, 1, 1, 1, 1, 1, 1, 1});
  expect_paired(num, den, 8, 3, 5, 7);
}

TEST(PairedRatio, PairsByRepNotBySortedOrder) {
  // Sorted separately, the samples would pair 1/1, 2/2, 3/3 (all 1x); by rep
  // the ratios are 1/3, 1 and 3.
  expect_paired(row_with({1, 2, 3}), row_with({3, 2, 1}), 3, 1.0 / 3, 1, 3);
}

TEST(PairedRatio, LeavesOutPairsWithAZeroAndRefusesUnequalReps) {
  expect_paired(row_with({2, 0, 4}), row_with({1, 1, 0}), 1, 2, 2, 2);
  EXPECT_FALSE(paired_ratio(row_with({1, 2}), row_with({1, 2, 3})).has_value());
  EXPECT_FALSE(paired_ratio(row_with({0, 0}), row_with({1, 1})).has_value());
  EXPECT_FALSE(paired_ratio(row_with({}), row_with({})).has_value());
}

}  // namespace
}  // namespace stealbench

// The UTS generator against its published references: SHA-1 against FIPS 180's
// vectors, and the sample trees' node, leaf and depth counts (the UTS
// distribution's sample_trees file) against a serial walk. A tree is a pure
// function of its parameters, so a wrong count means a wrong generator.
#include "stealpool/workloads/uts.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace stealpool::workloads {
namespace {

TEST(Uts, Sha1MatchesTheFips180Vectors) { EXPECT_TRUE(sha1_self_test()); }

void expect_published_counts(const UtsTree& tree) {
  const UtsStats s = uts_serial(tree);
  EXPECT_EQ(s.nodes, tree.nodes) << tree.name;
  EXPECT_EQ(s.leaves, tree.leaves) << tree.name;
  EXPECT_EQ(s.depth, tree.depth) << tree.name;
  EXPECT_EQ(uts_count_serial(tree, uts_root(tree)), tree.nodes) << tree.name;
}

TEST(Uts, GeometricTreeT1HasItsPublishedCounts) { expect_published_counts(kUtsT1); }
TEST(Uts, BinomialTreeT3HasItsPublishedCounts) { expect_published_counts(kUtsT3); }

TEST(Uts, ChildrenAreTheSameWhicheverWayTheyAreAsked) {
  const UtsNode root = uts_root(kUtsT1);
  std::vector<UtsNode> children;
  const int n = uts_children(kUtsT1, root, children);
  ASSERT_EQ(n, uts_num_children(kUtsT1, root));
  ASSERT_EQ(children.size(), static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const UtsNode one = uts_child(root, i);
    EXPECT_EQ(one.state, children[static_cast<std::size_t>(i)].state) << "child " << i;
    EXPECT_EQ(one.height, 1) << "child " << i;
  }
}

}  // namespace
}  // namespace stealpool::workloads

// The UTS generator against its published references: SHA-1 against FIPS 180's
// vectors, and the sample trees' node, leaf and depth counts (the UTS
// distribution's sample_trees file) against a serial walk. A tree is a pure
// function of its parameters, so a wrong count means a wrong generator.
#include "stealpool/workloads/uts.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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

// Follows child 0 down from the root until a node of `height` or a leaf.
UtsNode first_descendant(const UtsTree& tree, int height) {
  UtsNode node = uts_root(tree);
  while (node.height < height && uts_num_children(tree, node) > 0) node = uts_child(node, 0);
  return node;
}

// T1's shape is fixed: 4 children on average down to height 10, none there. So
// a node of height h whose own n children are known expects 1 + n x (the
// nodes of a full 4-ary tree of 10 - h levels), exactly.
TEST(UtsExpectedNodes, ANodeOfAFixedShapeTreeExpectsItsChildrenTimesTheFullSubtreeBelowThem) {
  const UtsExpectedNodes expected(kUtsT1);
  for (int height = 0; height <= 10; ++height) {
    const UtsNode node = first_descendant(kUtsT1, height);
    const int n = uts_num_children(kUtsT1, node);
    double full = 0;  // nodes of a 4-ary tree with 10 - height - 1 levels below its root
    for (int level = node.height + 1; level <= 10; ++level) full = 1 + 4 * full;
    EXPECT_DOUBLE_EQ(expected(node), 1.0 + n * full) << "height " << node.height << ", " << n << " children";
  }
  const UtsNode leaf = first_descendant(kUtsT1, 10);
  ASSERT_EQ(uts_num_children(kUtsT1, leaf), 0);
  EXPECT_EQ(expected(leaf), 1.0) << "a leaf is its own subtree";
}

// A binomial node below the root has m children with probability q: the
// expected subtree of a node whose children are not yet known is 1 / (1 - q m)
// when no depth bounds it, and somewhat less when the published depth does.
TEST(UtsExpectedNodes, ABinomialNodeWithChildrenOutweighsALeafByItsChildrensSubtrees) {
  for (const UtsTree* tree : {&kUtsT3}) {
    const UtsExpectedNodes expected(*tree);
    const UtsNode root = uts_root(*tree);
    std::vector<UtsNode> children;
    uts_children(*tree, root, children);
    bool seen_leaf = false, seen_inner = false;
    for (const UtsNode& c : children) {
      const int n = uts_num_children(*tree, c);
      if (n == 0) {
        seen_leaf = true;
        EXPECT_EQ(expected(c), 1.0);
      } else {
        seen_inner = true;
        EXPECT_GT(expected(c), 1.0 + n) << "its children's subtrees count, not only themselves";
        EXPECT_LE(expected(c), 1.0 + n / (1.0 - tree->q * tree->m)) << "at most the unbounded expectation";
      }
    }
    EXPECT_TRUE(seen_leaf && seen_inner) << tree->name << ": the root's children are a mix";
  }
  UtsTree unbounded = kUtsT3;
  unbounded.depth = 0;  // as a tree cut for tests: no published depth
  const UtsExpectedNodes expected(unbounded);
  std::vector<UtsNode> children;
  uts_children(unbounded, uts_root(unbounded), children);
  const auto inner = std::find_if(children.begin(), children.end(),
                                  [&](const UtsNode& c) { return uts_num_children(unbounded, c) > 0; });
  ASSERT_NE(inner, children.end());
  EXPECT_DOUBLE_EQ(expected(*inner), 1.0 + uts_num_children(unbounded, *inner) / (1.0 - unbounded.q * unbounded.m));
}

}  // namespace
}  // namespace stealpool::workloads

// tests/support/uts_tree.hpp: an unbalanced tree in the manner of UTS's binomial
// trees (our own generator, for tests): the root has `root_children` children;
// every other node has `m` children with probability `q`, none otherwise,
// decided by a hash of the node's id, so the tree is the same on every run. Its
// expected size is 1 + root_children / (1 - q m); with q m close to 1 the
// subtrees are wildly uneven (most are a single node, a few are huge), which is
// what makes it a load-balancing test.
//   uts_serial(tree)  the node count, iteratively (no recursion depth limit)
//   uts_join(tree)    the node count with stealpool::join over each node's
//                     children, split in halves (deep: one frame per level)
#pragma once

#include <cstdint>
#include <vector>

#include "stealpool/forkjoin.hpp"
#include "test_support.hpp"

namespace sptest {

struct UtsTree {
  std::uint64_t seed;
  int root_children;
  int m;
  double q;

  std::uint64_t root() const { return mix64(seed); }
  std::uint64_t child(std::uint64_t node, int i) const {
    return mix64(node ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(i + 1)));
  }
  int children(std::uint64_t node, bool is_root) const {
    if (is_root) return root_children;
    const double u = static_cast<double>(mix64(node + 1) >> 11) * 0x1.0p-53;  // uniform in [0, 1)
    return u < q ? m : 0;
  }
};

inline std::uint64_t uts_serial(const UtsTree& t) {
  std::uint64_t count = 0;
  std::vector<std::uint64_t> stack{t.root()};
  bool is_root = true;
  while (!stack.empty()) {
    const std::uint64_t node = stack.back();
    stack.pop_back();
    ++count;
    const int k = t.children(node, is_root);
    is_root = false;
    for (int i = 0; i < k; ++i) stack.push_back(t.child(node, i));
  }
  return count;
}

inline std::uint64_t uts_join_node(const UtsTree& t, std::uint64_t node, bool is_root);

// The subtrees of children [lo, hi) of `node`.
inline std::uint64_t uts_join_children(const UtsTree& t, std::uint64_t node, int lo, int hi) {
  if (hi - lo == 1) return uts_join_node(t, t.child(node, lo), false);
  const int mid = lo + (hi - lo) / 2;
  auto [a, b] = stealpool::join([&] { return uts_join_children(t, node, lo, mid); },
                                [&] { return uts_join_children(t, node, mid, hi); });
  return a + b;
}

inline std::uint64_t uts_join_node(const UtsTree& t, std::uint64_t node, bool is_root) {
  const int k = t.children(node, is_root);
  return 1 + (k == 0 ? 0 : uts_join_children(t, node, 0, k));
}

inline std::uint64_t uts_join(const UtsTree& t) { return uts_join_node(t, t.root(), true); }

}  // namespace sptest

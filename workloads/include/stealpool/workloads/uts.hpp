// UTS, the Unbalanced Tree Search benchmark (Olivier, Huan, Liu, Prins, Dinan,
// Sadayappan, Tseng: "UTS: An Unbalanced Tree Search Benchmark", LCPC 2006): count
// the nodes of an implicit tree whose shape is drawn from a splittable random
// stream. No tree is stored: a node is its 20-byte random state and its height; the
// state of child i is SHA-1(parent state || i as 4 big-endian bytes), so any thread
// can expand any node without talking to the others, and the count is the same
// whatever order the nodes are visited in.
//
// The derivation is the reference implementation's SHA-1 generator:
//   root state  = SHA-1(16 zero bytes || root seed as 4 big-endian bytes)
//   child i     = SHA-1(parent state (20 bytes) || i as 4 big-endian bytes)
//   rand(state) = big-endian 32-bit word of state bytes 16..19, top bit cleared
// and the number of children of a node is drawn from rand(its own state)
// (uts_num_children). The published sample trees (the `sample_trees` file of the UTS
// distribution) give node count, depth and leaf count; every tree below has been
// checked against them (uts_serial).
//
// Usable from any runtime: uts_num_children and uts_child are pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace stealpool::workloads {

// --- SHA-1 (FIPS 180-4), written for this benchmark ----------------------------------
using Sha1Digest = std::array<std::uint8_t, 20>;
Sha1Digest sha1(std::span<const std::uint8_t> message);
// The FIPS 180 test vectors; false if any digest is wrong.
bool sha1_self_test();

// --- the tree -------------------------------------------------------------------------
struct UtsNode {
  Sha1Digest state;     // the node's random state
  std::int32_t height;  // the root is 0
};

enum class UtsType { kBinomial, kGeometric };
// Geometric trees: how the expected branching factor b_i changes with depth.
enum class UtsShape { kLinear, kExpDec, kCyclic, kFixed };

// One tree, with the reference implementation's parameter names in comments.
struct UtsTree {
  const char* name;
  UtsType type;          // -t: 0 binomial, 1 geometric
  double b0;             // -b: root branching factor (binomial); b_0 of the shape (geometric)
  std::int32_t seed;     // -r: root seed
  std::int32_t m;        // -m: children of a non-leaf node below the root (binomial)
  double q;              // -q: probability that a node below the root has children (binomial)
  UtsShape shape;        // -a: shape function (geometric)
  std::int32_t gen_mx;   // -d: depth parameter of the shape (geometric)
  // The published statistics of the tree.
  std::uint64_t nodes;
  std::uint64_t leaves;
  std::int32_t depth;
};

// Non-root nodes never get more children than this (the reference's MAXNUMCHILDREN);
// a binomial root gets exactly floor(b0).
inline constexpr int kUtsMaxChildren = 100;

// The published sample trees of about 4 million nodes.
//   T1: -t 1 -a 3 -d 10 -b 4 -r 19        geometric, fixed branching
//   T2: -t 1 -a 2 -d 16 -b 6 -r 502       geometric, cyclic
//   T3: -t 0 -b 2000 -q 0.124875 -m 8 -r 42   binomial
//   T5: -t 1 -a 0 -d 20 -b 4 -r 34        geometric, linear decrease
inline constexpr UtsTree kUtsT1{"T1", UtsType::kGeometric, 4.0, 19, 0, 0.0, UtsShape::kFixed, 10,
                                4'130'071, 3'305'118, 10};
inline constexpr UtsTree kUtsT2{"T2", UtsType::kGeometric, 6.0, 502, 0, 0.0, UtsShape::kCyclic, 16,
                                4'117'769, 2'342'762, 81};
inline constexpr UtsTree kUtsT3{"T3", UtsType::kBinomial, 2000.0, 42, 8, 0.124875, UtsShape::kLinear, 0,
                                4'112'897, 3'599'034, 1572};
inline constexpr UtsTree kUtsT5{"T5", UtsType::kGeometric, 4.0, 34, 0, 0.0, UtsShape::kLinear, 20,
                                4'147'582, 2'181'318, 20};

UtsNode uts_root(const UtsTree& tree);
// How many children `node` has (0 for a leaf). Costs no hashing: it reads the
// node's own state.
int uts_num_children(const UtsTree& tree, const UtsNode& node);
// Child `index` (0-based) of `parent`: one SHA-1 compression.
UtsNode uts_child(const UtsNode& parent, int index);
// All the children of `node`, replacing the contents of `out`; returns their number.
int uts_children(const UtsTree& tree, const UtsNode& node, std::vector<UtsNode>& out);

// The expected number of nodes in a node's subtree, the node included: 1 +
// its children (known from its own state, no hashing) x the expected subtree
// of a node one level down, from the tree's mean branching at each level and
// none below the published depth. For weighing tasks by their work
// (stealpool::mpi::DistExecutor::weigh_tasks). Holds a pointer to `tree`.
class UtsExpectedNodes {
 public:
  explicit UtsExpectedNodes(const UtsTree& tree);
  double operator()(const UtsNode& node) const;

 private:
  const UtsTree* tree_;
  std::vector<double> below_;  // [h]: expected nodes from a node of height h down, its children unknown
  double beyond_ = 0;          // the same below the table's last height
};

struct UtsStats {
  std::uint64_t nodes = 0;
  std::uint64_t leaves = 0;
  std::int32_t depth = 0;  // the greatest height of a node
};
// Depth-first serial walk of the whole tree.
UtsStats uts_serial(const UtsTree& tree);
// Serial node count (the timed serial reference: a walk without the statistics).
std::uint64_t uts_count_serial(const UtsTree& tree, const UtsNode& node);

}  // namespace stealpool::workloads

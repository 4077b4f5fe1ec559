// UTS tree generation and SHA-1; see uts.hpp for the derivation.
#include "stealpool/workloads/uts.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace stealpool::workloads {
namespace {

// --- SHA-1 ------------------------------------------------------------------------
// FIPS 180-4, section 6.1. A message is padded with one 1 bit, zeros, and its length
// in bits as a 64-bit big-endian number, to a multiple of 64 bytes; each 64-byte
// block goes through 80 rounds that update the five-word state.
using Sha1State = std::array<std::uint32_t, 5>;
constexpr Sha1State kSha1Init{0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};

std::uint32_t load_be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

void store_be32(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 24);
  p[1] = static_cast<std::uint8_t>(v >> 16);
  p[2] = static_cast<std::uint8_t>(v >> 8);
  p[3] = static_cast<std::uint8_t>(v);
}

// One round with the five working words named in rotated order: it adds the round
// value into e and rotates b, so that renaming the words each round (e becomes the
// new a, a the new b, ...) replaces the moves of the textbook form. Five rounds in a
// row bring the names back to where they started.
template <int kStage>
inline void sha1_round(std::uint32_t a, std::uint32_t& b, std::uint32_t c, std::uint32_t d, std::uint32_t& e,
                       std::uint32_t w) {
  std::uint32_t f, k;
  if constexpr (kStage == 0) f = (b & c) | (~b & d), k = 0x5A827999u;
  else if constexpr (kStage == 1) f = b ^ c ^ d, k = 0x6ED9EBA1u;
  else if constexpr (kStage == 2) f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDCu;
  else f = b ^ c ^ d, k = 0xCA62C1D6u;
  e += std::rotl(a, 5) + f + k + w;
  b = std::rotl(b, 30);
}

template <int kStage>
inline void sha1_stage(std::uint32_t& a, std::uint32_t& b, std::uint32_t& c, std::uint32_t& d, std::uint32_t& e,
                       const std::uint32_t* w) {
  for (int t = 0; t < 20; t += 5) {
    sha1_round<kStage>(a, b, c, d, e, w[t]);
    sha1_round<kStage>(e, a, b, c, d, w[t + 1]);
    sha1_round<kStage>(d, e, a, b, c, w[t + 2]);
    sha1_round<kStage>(c, d, e, a, b, w[t + 3]);
    sha1_round<kStage>(b, c, d, e, a, w[t + 4]);
  }
}

// One block, given as its 16 big-endian message words.
void sha1_compress(Sha1State& h, const std::uint32_t (&m)[16]) {
  std::uint32_t w[80];
  for (int t = 0; t < 16; ++t) w[t] = m[t];
  // Unrolled: left as a loop, g++ 12 vectorises this recurrence badly (2.5x slower hashing).
#pragma GCC unroll 64
  for (int t = 16; t < 80; ++t) w[t] = std::rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  sha1_stage<0>(a, b, c, d, e, w);
  sha1_stage<1>(a, b, c, d, e, w + 20);
  sha1_stage<2>(a, b, c, d, e, w + 40);
  sha1_stage<3>(a, b, c, d, e, w + 60);
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
}

void sha1_compress_bytes(Sha1State& h, const std::uint8_t* block) {
  std::uint32_t m[16];
  for (int t = 0; t < 16; ++t) m[t] = load_be32(block + 4 * t);
  sha1_compress(h, m);
}

Sha1Digest digest_of(const Sha1State& h) {
  Sha1Digest out;
  for (int i = 0; i < 5; ++i) store_be32(out.data() + 4 * i, h[static_cast<std::size_t>(i)]);
  return out;
}

// The hash words of a message of 24 bytes: `state` then `index` big-endian, so a
// single padded block: words 0-5 the message, word 6 the 1 bit, word 15 the length
// (192 bits).
Sha1State sha1_words_of_state_and_index(const Sha1Digest& state, std::uint32_t index) {
  std::uint32_t m[16] = {};
  for (int i = 0; i < 5; ++i) m[i] = load_be32(state.data() + 4 * i);
  m[5] = index;
  m[6] = 0x80000000u;
  m[15] = 24 * 8;
  Sha1State h = kSha1Init;
  sha1_compress(h, m);
  return h;
}

// Its digest: for the self-test, which checks the one-block path against sha1().
Sha1Digest sha1_state_and_index(const Sha1Digest& state, std::uint32_t index) {
  return digest_of(sha1_words_of_state_and_index(state, index));
}

// rng_rand of the reference: the last four state bytes, big-endian, as a value in
// [0, 2^31); rng_toProb maps it to [0, 1).
double state_to_prob(const Sha1Digest& s) {
  const std::uint32_t r = load_be32(s.data() + 16) & 0x7FFFFFFFu;
  return static_cast<double>(r) / 2147483648.0;
}

// The mean number of children of a node at `depth` (b_i of the reference).
double geometric_branching(const UtsTree& t, int depth) {
  double b_i = t.b0;
  if (depth > 0) {
    const double d = depth, mx = t.gen_mx;
    switch (t.shape) {
      case UtsShape::kExpDec: b_i = t.b0 * std::pow(d, -std::log(t.b0) / std::log(mx)); break;
      case UtsShape::kCyclic:
        b_i = depth > 5 * t.gen_mx ? 0.0 : std::pow(t.b0, std::sin(2.0 * 3.141592653589793 * d / mx));
        break;
      case UtsShape::kFixed: b_i = depth < t.gen_mx ? t.b0 : 0.0; break;
      case UtsShape::kLinear: b_i = t.b0 * (1.0 - d / mx); break;
    }
  }
  return b_i;
}

int geometric_children(const UtsTree& t, const UtsNode& node) {
  const double b_i = geometric_branching(t, node.height);
  // The geometric distribution with mean b_i has p = 1 / (1 + b_i); the number of
  // children is its inverse CDF at u. The expression is the reference's, operation for
  // operation, so that the same doubles come out.
  const double p = 1.0 / (1.0 + b_i);
  const double u = state_to_prob(node.state);
  const double n = std::floor(std::log(1.0 - u) / std::log(1.0 - p));
  // NaN (b_i < 0, past the depth of a linear shape) and -0 are leaves; the reference
  // gets there through a negative int, which spawns nothing.
  if (!(n > 0.0)) return 0;
  return n >= kUtsMaxChildren ? kUtsMaxChildren : static_cast<int>(n);
}

}  // namespace

Sha1Digest sha1(std::span<const std::uint8_t> message) {
  Sha1State h = kSha1Init;
  const std::size_t full = message.size() / 64;
  for (std::size_t i = 0; i < full; ++i) sha1_compress_bytes(h, message.data() + 64 * i);
  // The tail, the 1 bit and the length take one block, or two when fewer than 9
  // bytes are left after the tail.
  std::uint8_t last[128] = {};
  const std::size_t rest = message.size() - 64 * full;
  if (rest != 0) std::memcpy(last, message.data() + 64 * full, rest);
  last[rest] = 0x80;
  const std::size_t blocks = rest + 9 <= 64 ? 1 : 2;
  const std::uint64_t bits = static_cast<std::uint64_t>(message.size()) * 8;
  store_be32(last + 64 * blocks - 8, static_cast<std::uint32_t>(bits >> 32));
  store_be32(last + 64 * blocks - 4, static_cast<std::uint32_t>(bits));
  for (std::size_t i = 0; i < blocks; ++i) sha1_compress_bytes(h, last + 64 * i);
  return digest_of(h);
}

bool sha1_self_test() {
  struct Vector {
    std::string_view message;
    const char* hex;
  };
  const Vector vectors[] = {
      {"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
      {"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
      {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
       "a49b2446a02c645bf419f995b67091253a04a259"},
  };
  auto hex = [](const Sha1Digest& d) {
    static const char kDigits[] = "0123456789abcdef";
    std::string s;
    for (std::uint8_t b : d) {
      s += kDigits[b >> 4];
      s += kDigits[b & 15];
    }
    return s;
  };
  for (const Vector& v : vectors) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(v.message.data());
    if (hex(sha1({p, v.message.size()})) != v.hex) return false;
  }
  const std::vector<std::uint8_t> million_a(1'000'000, 'a');
  if (hex(sha1(million_a)) != "34aa973cd4c4daa4f61eeb2bdbad27316534016f") return false;
  // The one-block path used for children agrees with the general one.
  const Sha1Digest s = sha1(million_a);
  std::uint8_t msg[24];
  std::memcpy(msg, s.data(), 20);
  store_be32(msg + 20, 0x01020304u);
  return sha1_state_and_index(s, 0x01020304u) == sha1(msg);
}

UtsNode uts_root(const UtsTree& tree) {
  std::uint8_t seed[20] = {};
  store_be32(seed + 16, static_cast<std::uint32_t>(tree.seed));
  return {sha1(seed), 0};
}

int uts_num_children(const UtsTree& tree, const UtsNode& node) {
  if (tree.type == UtsType::kGeometric) return geometric_children(tree, node);
  if (node.height == 0) return static_cast<int>(std::floor(tree.b0));  // the reference caps it at ceil(b0)
  const int n = state_to_prob(node.state) < tree.q ? tree.m : 0;
  return std::min(n, kUtsMaxChildren);
}

// The child's digest and height are written as one 16-byte and one 8-byte store,
// not byte by byte (digest_of): a runtime copies the node it just made into a
// task, and a wide load of narrower stores cannot be forwarded from them, which
// cost a task runtime about 10% of its UTS time (the serial walk, which passes
// the child by reference, 4%).
UtsNode uts_child(const UtsNode& parent, int index) {
  static_assert(sizeof(UtsNode) == 24 && offsetof(UtsNode, height) == 20, "UtsNode: 20 digest bytes, then the height");
  constexpr bool kLittle = std::endian::native == std::endian::little;
  // A word whose bytes, stored natively, lie in memory big-endian, as digest_of writes them.
  auto as_stored = [](std::uint32_t v) {
    return kLittle ? (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24) : v;
  };
  const Sha1State h = sha1_words_of_state_and_index(parent.state, static_cast<std::uint32_t>(index));
  std::uint32_t head[4];  // the digest's first 16 bytes
  for (int i = 0; i < 4; ++i) head[i] = as_stored(h[static_cast<std::size_t>(i)]);
  // The digest's last word, then the height.
  const std::uint64_t last = as_stored(h[4]), height = static_cast<std::uint32_t>(parent.height + 1);
  const std::uint64_t tail = kLittle ? last | (height << 32) : (last << 32) | height;
  UtsNode child;
  std::memcpy(&child, head, sizeof head);
  std::memcpy(reinterpret_cast<std::byte*>(&child) + sizeof head, &tail, sizeof tail);
  return child;
}

int uts_children(const UtsTree& tree, const UtsNode& node, std::vector<UtsNode>& out) {
  const int n = uts_num_children(tree, node);
  out.clear();
  for (int i = 0; i < n; ++i) out.push_back(uts_child(node, i));
  return n;
}

namespace {
// How deep a node of `tree` can be: the published depth, else (a tree cut for
// tests) what the shape allows; a subcritical binomial tree has no bound.
int depth_bound(const UtsTree& tree) {
  if (tree.depth > 0) return tree.depth;
  if (tree.type == UtsType::kBinomial) return -1;
  switch (tree.shape) {
    case UtsShape::kCyclic: return 5 * tree.gen_mx + 1;
    case UtsShape::kExpDec: return 10 * tree.gen_mx;  // b_i < 1 below gen_mx: the rest adds little
    case UtsShape::kFixed:
    case UtsShape::kLinear: break;
  }
  return tree.gen_mx;
}
}  // namespace

UtsExpectedNodes::UtsExpectedNodes(const UtsTree& tree) : tree_(&tree) {
  const int bound = depth_bound(tree);
  if (bound < 0) {
    // Every node below the root has m children with probability q: a node's
    // expected subtree is 1 / (1 - q m) when q m < 1 (the sample trees' case).
    const double qm = tree.q * tree.m;
    beyond_ = qm < 1.0 ? 1.0 / (1.0 - qm) : 1.0;
    return;
  }
  // below_[h]: a node of height h, its children not yet known. No node lies
  // deeper than the bound, so the recursion starts there with 0. Only heights
  // from 1 are read (a node's children's), so the root's entry stays 0.
  const auto levels = static_cast<std::size_t>(bound) + 2;
  below_.assign(levels, 0.0);
  for (std::size_t h = levels - 1; h-- > 1;) {
    double b = tree.type == UtsType::kGeometric ? geometric_branching(tree, static_cast<int>(h)) : tree.q * tree.m;
    if (!(b > 0.0)) b = 0.0;  // past a linear shape's depth, or NaN
    below_[h] = 1.0 + b * below_[h + 1];
  }
}

double UtsExpectedNodes::operator()(const UtsNode& node) const {
  const auto next = static_cast<std::size_t>(std::max(node.height, 0)) + 1;
  const double under = next < below_.size() ? below_[next] : beyond_;
  return 1.0 + uts_num_children(*tree_, node) * under;
}

std::uint64_t uts_count_serial(const UtsTree& tree, const UtsNode& node) {
  const int n = uts_num_children(tree, node);
  std::uint64_t count = 1;
  for (int i = 0; i < n; ++i) count += uts_count_serial(tree, uts_child(node, i));
  return count;
}

namespace {
void walk(const UtsTree& tree, const UtsNode& node, UtsStats& s) {
  const int n = uts_num_children(tree, node);
  ++s.nodes;
  s.depth = std::max(s.depth, node.height);
  if (n == 0) ++s.leaves;
  for (int i = 0; i < n; ++i) walk(tree, uts_child(node, i), s);
}
}  // namespace

UtsStats uts_serial(const UtsTree& tree) {
  UtsStats s;
  walk(tree, uts_root(tree), s);
  return s;
}

}  // namespace stealpool::workloads

// glob.cpp: Glob (glob.hpp). The pattern is compiled to tokens and run as a set
// of positions (a Thompson-style simulation, walk/README.md "Globs in linear
// time"): each text byte moves every live position at once, so the time is
// O(tokens × text) whatever the stars, where backtracking is exponential.
#include "walk/glob.hpp"

#include <algorithm>
#include <bit>

namespace stealscan {
namespace {

unsigned char lower(unsigned char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c + 32) : c; }

bool test(const std::uint64_t* bits, std::size_t i) noexcept { return (bits[i / 64] >> (i % 64)) & 1u; }
void set(std::uint64_t* bits, std::size_t i) noexcept { bits[i / 64] |= std::uint64_t{1} << (i % 64); }

// The live positions: pos[i] = the next token to match is i (i == size: the whole
// pattern matched); loop[i] = inside the '**/' at token i, before its last '/'.
struct Positions {
  std::uint64_t* pos;
  std::uint64_t* loop;
};

}  // namespace

Glob::Glob(std::string_view pattern, bool ignore_case) : ignore_case_(ignore_case) {
  compile(pattern);
  const bool all_bytes = std::all_of(tokens_.begin(), tokens_.end(), [](Token t) { return t.kind == Kind::byte; });
  const bool star_then_bytes = !tokens_.empty() && tokens_[0].kind == Kind::star &&
                               std::all_of(tokens_.begin() + 1, tokens_.end(), [](Token t) { return t.kind == Kind::byte; });
  if (all_bytes || star_then_bytes) {
    shape_ = all_bytes ? Shape::literal : Shape::star_suffix;
    for (const Token t : tokens_)
      if (t.kind == Kind::byte) literal_.push_back(static_cast<char>(t.arg));
  }
}

void Glob::compile(std::string_view p) {
  std::size_t i = 0;
  while (i < p.size()) {
    const char c = p[i];
    if (c == '*') {
      const bool segment_start = i == 0 || p[i - 1] == '/';
      if (segment_start && i + 1 < p.size() && p[i + 1] == '*' && (i + 2 == p.size() || p[i + 2] == '/')) {
        const bool at_end = i + 2 == p.size();
        tokens_.push_back({at_end ? Kind::everything : Kind::dirs, 0});
        i += at_end ? 2 : 3;
        continue;
      }
      while (i < p.size() && p[i] == '*') ++i;  // "a**b": one star does what two do
      tokens_.push_back({Kind::star, 0});
      continue;
    }
    if (c == '?') {
      tokens_.push_back({Kind::any, 0});
      ++i;
      continue;
    }
    if (c == '[') {
      if (const std::size_t next = parse_set(p, i); next != 0) {
        tokens_.push_back({Kind::set, static_cast<unsigned char>(sets_.size() - 1)});
        i = next;
        continue;
      }
      unterminated_class_ = true;  // a literal '['
    }
    if (c == '\\' && i + 1 < p.size()) ++i;
    tokens_.push_back({Kind::byte, ignore_case_ ? lower(static_cast<unsigned char>(p[i]))
                                                : static_cast<unsigned char>(p[i])});
    ++i;
  }
}

// A bracket expression at p[i] == '['. `]` first in the set is a member; `\x` is
// x; `a-z` a range. Pushes the set and returns the index past its ']', or 0 when
// there is no ']' (or too many sets: then it is read as a literal too).
std::size_t Glob::parse_set(std::string_view p, std::size_t i) {
  ++i;
  bool negate = false;
  if (i < p.size() && (p[i] == '!' || p[i] == '^')) {
    negate = true;
    ++i;
  }
  std::bitset<256> members;
  bool first = true;
  while (i < p.size() && (p[i] != ']' || first)) {
    first = false;
    unsigned char lo = static_cast<unsigned char>(p[i]);
    if (lo == '\\' && i + 1 < p.size()) lo = static_cast<unsigned char>(p[++i]);
    unsigned char hi = lo;
    if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
      i += 2;
      hi = static_cast<unsigned char>(p[i]);
      if (hi == '\\' && i + 1 < p.size()) hi = static_cast<unsigned char>(p[++i]);
    }
    for (unsigned b = lo; b <= hi; ++b) {
      members.set(b);
      if (ignore_case_ && b >= 'a' && b <= 'z') members.set(b - 32);
      if (ignore_case_ && b >= 'A' && b <= 'Z') members.set(b + 32);
    }
    ++i;
  }
  if (i >= p.size() || sets_.size() > 255) return 0;
  if (negate) members.flip();
  members.reset('/');  // a class never matches '/'
  sets_.push_back(members);
  return i + 1;
}

bool Glob::same_byte(unsigned char want, unsigned char got) const noexcept {
  return want == (ignore_case_ ? lower(got) : got);
}

bool Glob::equal_bytes(std::string_view want, std::string_view got) const noexcept {
  if (want.size() != got.size()) return false;
  if (!ignore_case_) return want == got;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!same_byte(static_cast<unsigned char>(want[i]), static_cast<unsigned char>(got[i]))) return false;
  return true;
}

bool Glob::matches(std::string_view text) const {
  switch (shape_) {
    case Shape::literal:
      return equal_bytes(literal_, text);
    case Shape::star_suffix:
      return text.size() >= literal_.size() &&
             text.substr(0, text.size() - literal_.size()).find('/') == std::string_view::npos &&
             equal_bytes(literal_, text.substr(text.size() - literal_.size()));
    case Shape::general:
      break;
  }
  return run(text);
}

bool Glob::run(std::string_view text) const {
  const std::size_t n = tokens_.size();
  const std::size_t words = (n + 1 + 63) / 64;
  constexpr std::size_t kInlineWords = 4;  // 255 tokens without allocating
  std::uint64_t inline_bits[4 * kInlineWords] = {};
  std::vector<std::uint64_t> heap_bits;
  std::uint64_t* bits = inline_bits;
  if (words > kInlineWords) {
    heap_bits.assign(4 * words, 0);
    bits = heap_bits.data();
  }
  Positions cur{bits, bits + words};
  Positions next{bits + 2 * words, bits + 3 * words};

  // Makes position i live with everything it reaches without a byte (a star or
  // '**/' may match nothing). Invariant: pos[i] set => its closure is set, so a
  // position already live stops the walk. Returns true at a final '**'.
  auto enter = [&](Positions& s, std::size_t i) {
    for (;; ++i) {
      if (i == n || test(s.pos, i)) {
        set(s.pos, i);
        return false;
      }
      set(s.pos, i);
      const Kind k = tokens_[i].kind;
      if (k == Kind::everything) return true;
      if (k == Kind::dirs) set(s.loop, i);
      if (k != Kind::star && k != Kind::dirs) return false;
    }
  };

  if (enter(cur, 0)) return true;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    std::fill_n(next.pos, 2 * words, 0);  // pos and loop are adjacent
    bool any_live = false;
    for (std::size_t w = 0; w < words; ++w) {
      for (std::uint64_t x = cur.pos[w]; x != 0; x &= x - 1) {
        const std::size_t i = w * 64 + static_cast<std::size_t>(std::countr_zero(x));
        if (i == n) continue;  // matched, but there is more text
        const Token t = tokens_[i];
        bool step = false;
        switch (t.kind) {
          case Kind::byte: step = same_byte(t.arg, c); break;
          case Kind::any: step = c != '/'; break;
          case Kind::set: step = sets_[t.arg].test(c); break;
          case Kind::star:
            if (c != '/' && enter(next, i)) return true;  // the star takes c and stays
            break;
          case Kind::dirs:       // moves through its loop below
          case Kind::everything:  // returned on entry
            break;
        }
        if (step && enter(next, i + 1)) return true;
      }
      for (std::uint64_t x = cur.loop[w]; x != 0; x &= x - 1) {
        const std::size_t i = w * 64 + static_cast<std::size_t>(std::countr_zero(x));
        set(next.loop, i);  // '**/' takes any byte, '/' too
        if (c == '/' && enter(next, i + 1)) return true;
      }
    }
    for (std::size_t w = 0; w < 2 * words; ++w) any_live = any_live || next.pos[w] != 0;
    if (!any_live) return false;
    std::swap(cur, next);
  }
  return test(cur.pos, n);
}

bool glob_match(std::string_view pattern, std::string_view text) { return Glob(pattern).matches(text); }

}  // namespace stealscan

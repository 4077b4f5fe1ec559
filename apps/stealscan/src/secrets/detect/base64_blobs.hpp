// base64_blobs.hpp: the base64 runs of a text, the candidates of a decoding
// pass (decode_splice.hpp; ../README.md, "Decoding"). A blob is a run of at
// least kMinBlob characters of either base64 alphabet with up to two '='
// after it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "secrets/detect/text_classes.hpp"

namespace stealscan::secrets {

// gitleaks' shortest base64 segment: 16 characters, 12 bytes. Shorter runs
// are every other identifier of source code.
inline constexpr std::size_t kMinBlob = 16;

namespace base64_detail {

// Bit i set: bits i to i + 15 (kMinBlob) of `m` are all set. Each step keeps
// the bits that begin a run twice as long (2, 4, 8, 16); the shifts bring in
// zeros, so a run reaching the top bit shows only if 16 of it fit below.
inline std::uint64_t run_starts(std::uint64_t m) {
  static_assert(kMinBlob == 16, "the steps below count to 16");
  const std::uint64_t two = m & (m >> 1);
  const std::uint64_t four = two & (two >> 2);
  const std::uint64_t eight = four & (four >> 4);
  return eight & (eight >> 8);
}

}  // namespace base64_detail

// The run finder's state between blocks: feed() takes each block of a text in
// order with its mask of base64 characters (text_classes.hpp) and calls
// fn(begin, end) for each blob ending in it; finish() for one reaching the
// text's end. Linear, and only the blobs are walked: the run coming in from
// the block before ends at the block's first gap, the one going out starts
// after its last, and the blobs between are where run_starts() has a bit
// (most blocks of text: none, a few word operations).
class Base64Runs {
 public:
  template <class Fn>
  void feed(std::string_view text, std::size_t block, std::size_t width, std::uint64_t m, Fn&& fn) {
    const std::uint64_t full = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
    if (m == full) {  // the whole block continues (or starts) a run
      if (run_ == kNone) run_ = block;
      return;
    }
    const auto first_gap = static_cast<std::size_t>(__builtin_ctzll(~m & full));
    const auto last_gap = static_cast<std::size_t>(63 - __builtin_clzll(~m & full));
    if (run_ == kNone && first_gap > 0) run_ = block;  // a run starts the block: the one before ended on a gap
    if (run_ != kNone && block + first_gap - run_ >= kMinBlob) emit(text, run_, block + first_gap, fn);
    // The blobs wholly between the two gaps, in order.
    std::uint64_t starts = base64_detail::run_starts(m) & ((std::uint64_t{1} << last_gap) - 1);
    starts &= ~((std::uint64_t{2} << first_gap) - 1);
    while (starts != 0) {
      const auto at = static_cast<std::size_t>(__builtin_ctzll(starts));
      const std::size_t end = at + static_cast<std::size_t>(__builtin_ctzll(~m >> at));  // <= last_gap
      emit(text, block + at, block + end, fn);
      starts &= ~((std::uint64_t{2} << end) - 1);  // end < 64: the next start lies past it
    }
    run_ = last_gap + 1 < width ? block + last_gap + 1 : kNone;
  }

  template <class Fn>
  void finish(std::string_view text, Fn&& fn) {
    if (run_ != kNone && text.size() - run_ >= kMinBlob) emit(text, run_, text.size(), fn);
    run_ = kNone;
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  template <class Fn>
  static void emit(std::string_view text, std::size_t begin, std::size_t end, Fn& fn) {
    std::size_t padded = end;
    while (padded < text.size() && padded - end < 2 && text[padded] == '=') ++padded;
    fn(begin, padded);
  }
  std::size_t run_ = kNone;  // where the run reaching the current block's start began, if one does
};

// Calls fn(begin, end) for each blob of `text`, in order: each maximal run of
// base64 characters at least kMinBlob long, with up to two '=' after it.
template <class Fn>
void for_each_base64_blob(std::string_view text, Fn&& fn) {
  Base64Runs runs;
  for_each_classified_block(text, [&](std::size_t block, std::size_t width, const ClassMasks& m) {
    runs.feed(text, block, width, m.base64, fn);
  });
  runs.finish(text, fn);
}

}  // namespace stealscan::secrets

// inflater.hpp: Inflater, one worker's decompressor of the zlib streams a pack
// stores its objects in, through libdeflate: whole-buffer (a pack entry's
// header gives the exact inflated size, which is all it needs), and on this
// history's deltas 1.8x zlib's speed, with the same adler-32 check.
#pragma once

#include <cstdint>
#include <string_view>

#include "sources/git/bytes.hpp"

struct libdeflate_decompressor;

namespace stealscan::git {

class Inflater {
 public:
  Inflater();  // std::bad_alloc if libdeflate cannot allocate its tables
  ~Inflater();
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  // `out` = the zlib stream at the start of `in` (which may run on past the
  // stream's end: the rest of the pack), inflated. False, `out` unspecified,
  // unless it inflates to exactly `size` bytes with a good checksum.
  bool inflate(std::string_view in, std::uint64_t size, Bytes& out);

 private:
  libdeflate_decompressor* d_;
};

}  // namespace stealscan::git

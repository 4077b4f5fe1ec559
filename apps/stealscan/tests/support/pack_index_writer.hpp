// pack_index_writer.hpp: a version-2 pack index (.idx, gitformat-pack(5))
// written for given ids and offsets, for the pack tests and fuzz_git_pack.
#pragma once

#include <git2.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stealscan::test {

// `v` appended big-endian, as the pack formats store their numbers.
inline void be32(std::string& s, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s += static_cast<char>((v >> shift) & 0xff);
}

// A version-2 index of `ids` (sorted) at `offsets`; offsets over 31 bits go to
// the 64-bit table. CRCs and checksums are zero (the reader checks neither).
inline std::string make_idx(const std::vector<git_oid>& ids, const std::vector<std::uint64_t>& offsets) {
  std::string s("\xfftOc", 4);
  be32(s, 2);
  for (unsigned b = 0; b < 256; ++b) {
    std::uint32_t n = 0;
    for (const git_oid& id : ids) n += id.id[0] <= b ? 1 : 0;
    be32(s, n);
  }
  for (const git_oid& id : ids) s.append(reinterpret_cast<const char*>(id.id), GIT_OID_RAWSZ);
  for (std::size_t i = 0; i < ids.size(); ++i) be32(s, 0);  // CRCs
  std::vector<std::uint64_t> large;
  for (const std::uint64_t off : offsets) {
    if (off < 0x80000000U) {
      be32(s, static_cast<std::uint32_t>(off));
    } else {
      be32(s, 0x80000000U | static_cast<std::uint32_t>(large.size()));
      large.push_back(off);
    }
  }
  for (const std::uint64_t off : large) {
    be32(s, static_cast<std::uint32_t>(off >> 32));
    be32(s, static_cast<std::uint32_t>(off));
  }
  return s + std::string(40, '\0');  // the two checksums
}

}  // namespace stealscan::test

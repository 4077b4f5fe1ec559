// delta.cpp: read_delta_header() and apply_delta() (delta.hpp).
#include "sources/git/delta.hpp"

#include <cstdint>
#include <cstring>

namespace stealscan::git {
namespace {

// A size: 7 bits a byte, least significant first, the high bit set on all but
// the last byte. False past the end or beyond 64 bits.
bool varint(std::string_view s, std::size_t& at, std::uint64_t& v) {
  v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (at >= s.size()) return false;
    const auto c = static_cast<unsigned char>(s[at++]);
    v |= std::uint64_t{c & 0x7fU} << shift;
    if ((c & 0x80U) == 0) return true;
  }
  return false;
}

}  // namespace

std::optional<DeltaHeader> read_delta_header(std::string_view delta) {
  DeltaHeader h{};
  std::size_t at = 0;
  if (!varint(delta, at, h.base_size) || !varint(delta, at, h.result_size)) return std::nullopt;
  h.ops = at;
  return h;
}

bool apply_delta(std::string_view base, std::string_view delta, const DeltaHeader& h, Bytes& out) {
  if (h.base_size != base.size() || h.result_size > SIZE_MAX / 2) return false;
  out.resize_for_overwrite(static_cast<std::size_t>(h.result_size));
  char* const dst = out.data();
  std::size_t written = 0;
  std::size_t at = h.ops;
  const auto* d = reinterpret_cast<const unsigned char*>(delta.data());
  while (at < delta.size()) {
    const unsigned op = d[at++];
    if ((op & 0x80U) != 0) {  // copy: offset and size from the base, each byte present if its bit is set
      std::uint64_t off = 0;
      std::uint64_t len = 0;
      for (unsigned i = 0; i < 4; ++i) {
        if ((op & (1U << i)) == 0) continue;
        if (at >= delta.size()) return false;
        off |= std::uint64_t{d[at++]} << (8 * i);
      }
      for (unsigned i = 0; i < 3; ++i) {
        if ((op & (0x10U << i)) == 0) continue;
        if (at >= delta.size()) return false;
        len |= std::uint64_t{d[at++]} << (8 * i);
      }
      if (len == 0) len = 0x10000;
      if (off > base.size() || len > base.size() - off || len > out.size() - written) return false;
      std::memcpy(dst + written, base.data() + off, static_cast<std::size_t>(len));
      written += static_cast<std::size_t>(len);
    } else if (op != 0) {  // insert the next `op` bytes of the delta
      if (op > delta.size() - at || op > out.size() - written) return false;
      std::memcpy(dst + written, delta.data() + at, op);
      written += op;
      at += op;
    } else {
      return false;  // reserved
    }
  }
  return written == out.size();
}

}  // namespace stealscan::git

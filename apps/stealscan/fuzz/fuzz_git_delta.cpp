// fuzz_git_delta.cpp: git's delta format (sources/git/delta.hpp) on any bytes.
// The input is a base and a delta: its first byte says how long the base is
// (that many bytes follow, as many as there are), the rest is the delta.
//
// Checks: read_delta_header() and apply_delta() read nothing outside their
// inputs (ASan), and a delta that applies produces exactly the size its header
// promised, made only of the base's and the delta's bytes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "fuzz_check.hpp"
#include "sources/git/bytes.hpp"
#include "sources/git/delta.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stealscan::git;
  if (size == 0) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::size_t base_len = std::min<std::size_t>(data[0], size - 1);
  const std::string_view base = in.substr(1, base_len);
  const std::string_view delta = in.substr(1 + base_len);

  const std::optional<DeltaHeader> h = read_delta_header(delta);
  if (!h) return 0;
  FUZZ_CHECK(h->ops <= delta.size());
  // The pack reader refuses a result over its limit before it applies a
  // delta (pack_reader.cpp); do the same, or a header could ask for exabytes.
  if (h->result_size > (std::uint64_t{1} << 20)) return 0;
  Bytes out;
  if (apply_delta(base, delta, *h, out)) {
    FUZZ_CHECK(out.size() == h->result_size);
    // Every output byte came from the base or the delta: with both empty of
    // some byte value, the output cannot hold it.
    bool seen[256] = {};
    for (const char c : base) seen[static_cast<unsigned char>(c)] = true;
    for (const char c : delta) seen[static_cast<unsigned char>(c)] = true;
    for (const char c : out.view()) FUZZ_CHECK(seen[static_cast<unsigned char>(c)]);
  }
  return 0;
}

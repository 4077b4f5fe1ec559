// delta.hpp: git's delta encoding (gitformat-pack(5), "Deltified
// representation"): the two sizes a delta starts with, and apply_delta(),
// which rebuilds an object from its base and a delta. For the pack reader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "sources/git/bytes.hpp"

namespace stealscan::git {

struct DeltaHeader {
  std::uint64_t base_size;    // what the base must measure
  std::uint64_t result_size;  // what the result will
  std::size_t ops;            // where the instructions start in the delta
};

// nullopt if `delta` ends inside a size.
std::optional<DeltaHeader> read_delta_header(std::string_view delta);

// `out` = the result of `delta` (whose header is `h`) applied to `base`. False,
// with `out` unspecified, for a delta that does not fit: a base of another
// size, a copy outside the base, an insert past the delta's end, the reserved
// instruction 0, or a result of another size than the header said.
bool apply_delta(std::string_view base, std::string_view delta, const DeltaHeader& h, Bytes& out);

}  // namespace stealscan::git

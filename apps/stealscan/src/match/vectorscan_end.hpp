// vectorscan_end.hpp: what every Vectorscan scan here does about the end of
// its data, in one place (VectorscanMatcher and the secret scanner's
// KeywordFilter use it).
//
// Vectorscan 5.4.9 misses some matches that end in the last 32 bytes of the
// data given to hs_scan: one of a one-byte pattern that is the prefix of
// another (x beside xy, as literals or regexes: in about 80% of the
// alignments), and one of a pattern like ^x beside any other (in about 10%).
// With 32 bytes or more after the match in the same buffer it finds them all
// (a second buffer of a vectored scan does not help). Found by
// fuzz_match_engines and fuzz_keyword_filter; reproduced against libhs alone.
// So the caller scans its data's end again from padded_end(): a copy with
// kVectorscanEndPad '\n' bytes after it, and drops what ends in the padding.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace stealscan {

// The padding after a re-scanned end; twice the 32 bytes that were seen to matter.
inline constexpr std::size_t kVectorscanEndPad = 64;

// `end` (the data's last bytes, from wherever the caller must start) copied into
// `copy`, followed by kVectorscanEndPad '\n' bytes. `copy` is the caller's
// buffer, reused from scan to scan.
inline void padded_end(std::string& copy, std::string_view end) {
  copy.assign(end);
  copy.append(kVectorscanEndPad, '\n');
}

}  // namespace stealscan

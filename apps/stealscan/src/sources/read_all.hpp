// read_all.hpp: read_all(), a descriptor read from where it stands to its end
// into a string: for what is wanted whole (a -f pattern file, an ignore or git
// config file, a file for `stealscan secrets`). The line scanner's chunked
// reads are ScanWindow's (scan_window.hpp).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace stealscan {

// Reads `fd` to its end into `out` (cleared first). Returns true at the end of
// the input; false once more than `limit` bytes were read (`out` then holds
// them, a little over the limit, and the rest is not read). `size_hint` (the
// size fstat gave, if known) sizes the buffer for the first read, so a file of
// that size is read with one allocation and no copy. Throws std::system_error
// on a read error (`out` holds what was read before it).
bool read_all(int fd, std::string& out, std::uint64_t limit = std::numeric_limits<std::uint64_t>::max(),
              std::uint64_t size_hint = 0);

// read_all()'s twin: writes all of `bytes` to `fd`, retrying short writes and
// EINTR. False when a write fails (errno says why) or writes nothing.
bool write_all(int fd, std::string_view bytes);

// The file `path` whole (a config, baseline or fingerprint file named by the
// user). Throws std::runtime_error "PATH: cannot read the WHAT: REASON" when it
// cannot be opened or read, is a directory, or is larger than `limit`.
std::string read_named_file(const std::string& path, std::string_view what, std::uint64_t limit);

}  // namespace stealscan

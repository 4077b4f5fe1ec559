// small_file.hpp: read_small_file(), an ignore or config file read whole through
// openat (relative to a directory descriptor, or AT_FDCWD), at most 8 MiB.
#pragma once

#include <string>

namespace stealscan {

// The contents of dirfd/name; empty if it does not exist or cannot be read.
std::string read_small_file(int dirfd, const char* name);

}  // namespace stealscan

// small_file.cpp: read_small_file() (small_file.hpp).
#include "walk/small_file.hpp"

#include <cstdint>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "sources/read_all.hpp"

namespace stealscan {

std::string read_small_file(int dirfd, const char* name) {
  std::string out;
  const int fd = ::openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return out;
  try {
    (void)read_all(fd, out, std::uint64_t{8} << 20, 16 * 1024);  // no sane ignore file is larger
  } catch (const std::system_error&) {
    // A read error: what was read before it is all there is.
  }
  ::close(fd);
  return out;
}

}  // namespace stealscan

// small_file.cpp: read_small_file() (small_file.hpp).
#include "walk/small_file.hpp"

#include <cerrno>

#include <fcntl.h>
#include <unistd.h>

namespace stealscan {

std::string read_small_file(int dirfd, const char* name) {
  std::string out;
  const int fd = ::openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return out;
  char buf[16 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > (std::size_t{8} << 20)) break;  // no sane ignore file is this large
  }
  ::close(fd);
  return out;
}

}  // namespace stealscan

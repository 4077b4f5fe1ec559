// read_all.cpp: read_all() (read_all.hpp).
#include "sources/read_all.hpp"

#include <algorithm>
#include <cerrno>
#include <system_error>

#include <unistd.h>

namespace stealscan {
namespace {
constexpr std::size_t kStep = 64 * 1024;  // growth once the hinted size is full
}

bool read_all(int fd, std::string& out, std::uint64_t limit, std::uint64_t size_hint) {
  out.clear();
  // Room for the hinted size plus one byte, so that the read that finds the end
  // needs no more room (and no copy of what was read).
  std::size_t want = static_cast<std::size_t>(std::min({size_hint, limit, std::uint64_t{1} << 40})) + 1;
  for (;;) {
    if (out.size() == want) want = out.size() + kStep;  // full: grow (only then)
    const std::size_t have = out.size();
    out.resize(want);
    const ssize_t n = ::read(fd, out.data() + have, want - have);
    if (n < 0) {
      out.resize(have);
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "read");
    }
    out.resize(have + static_cast<std::size_t>(n));
    if (out.size() > limit) return false;
    if (n == 0) return true;
  }
}

}  // namespace stealscan

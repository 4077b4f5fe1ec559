// read_all.cpp: read_all() (read_all.hpp).
#include "sources/read_all.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
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

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string read_named_file(const std::string& path, std::string_view what, std::uint64_t limit) {
  const auto fail = [&](std::string_view reason) {
    std::string m = path;
    m.append(": cannot read the ").append(what).append(": ").append(reason);
    return std::runtime_error(m);
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw fail(std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) throw fail(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw fail("a directory");
  std::string text;
  try {
    const std::uint64_t hint = S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0;
    if (!read_all(fd, text, limit, hint)) throw fail("larger than " + std::to_string(limit) + " bytes");
  } catch (const std::system_error& e) {
    throw fail(std::strerror(e.code().value()));
  }
  return text;
}

}  // namespace stealscan

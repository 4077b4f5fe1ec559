// whole_file_task.cpp: run_whole_file_task() (whole_file_task.hpp).
#include "scan/whole_file_task.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include <sys/stat.h>

#include "scan/task_file.hpp"

namespace stealscan {
namespace {

// A worker keeps at most this much buffer between files (a 64 MiB file's
// buffer is given back once the file is done).
constexpr std::size_t kKeptBuffer = std::size_t{4} << 20;
constexpr std::size_t kStreamRead = 64 * 1024;

// Reads the descriptor from where it stands to its end into `buf`; false if
// there were more than `limit` bytes.
bool read_all(int fd, std::string& buf, std::uint64_t size_hint, std::uint64_t limit) {
  buf.clear();
  std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(size_hint, limit)) + 1;  // +1: to see the end
  for (;;) {
    if (buf.size() + kStreamRead > want) want = buf.size() + kStreamRead;
    const std::size_t have = buf.size();
    buf.resize(want);
    const ssize_t n = ::read(fd, buf.data() + have, want - have);
    if (n < 0) {
      buf.resize(have);
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "read");
    }
    buf.resize(have + static_cast<std::size_t>(n));
    if (buf.size() > limit) return false;
    if (n == 0) return true;
  }
}

void run_file(const WholeFileShared& sh, const ScanTask& t, std::string_view shown, WholeFileCtx& ctx) {
  WholeFileScratch& s = ctx.scratch();
  const auto fail = [&](std::string_view what) {
    sh.diag.error(shown, what);
    Tally::add(s.tally->errors, 1);
  };
  const int fd = open_task_file(t);
  if (fd < 0) return fail(std::strerror(errno));
  FdCloser closer(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) return fail(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return;
  // A FIFO or device met in the walk is skipped; an operand is read as a stream.
  if (!S_ISREG(st.st_mode) && t.kind == ScanTask::Kind::file) return;
  const std::uint64_t limit = sh.settings.max_filesize;
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > limit) {
    Tally::add(s.tally->too_large, 1);
    return;
  }
  const std::uint64_t hint = S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : kStreamRead;
  const bool whole = read_all(fd, s.buffer, hint, limit);
  Tally::add(s.tally->bytes, s.buffer.size());
  if (!whole) {
    Tally::add(s.tally->too_large, 1);
    return;
  }
  const std::string_view bytes(s.buffer);
  if (!sh.settings.binary_as_text && bytes.substr(0, kBinaryProbe).find('\0') != std::string_view::npos) {
    Tally::add(s.tally->binary, 1);
    return;
  }
  Tally::add(s.tally->files, 1);
  const std::uint64_t hits = s.work->on_file(shown, bytes);
  if (hits > 0) {
    Tally::add(s.tally->matched_files, 1);
    Tally::add(s.tally->matching_lines, hits);
  }
}

}  // namespace

void run_whole_file_task(const WholeFileShared& shared, ScanTask task, WholeFileCtx& ctx) {
  WholeFileScratch& s = ctx.scratch();
  const std::string_view shown(task.path, task.number);
  try {
    run_file(shared, task, shown, ctx);
  } catch (const std::exception& e) {
    shared.diag.error(shown, e.what());
    Tally::add(s.tally->errors, 1);
  }
  if (s.buffer.capacity() > kKeptBuffer) std::string().swap(s.buffer);
  PathBlock::release(task.block);  // [SCAN-path-release]: done with the path
  shared.budget.release();
}

}  // namespace stealscan

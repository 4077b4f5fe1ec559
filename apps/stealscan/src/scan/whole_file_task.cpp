// whole_file_task.cpp: run_whole_file_task() (whole_file_task.hpp).
#include "scan/whole_file_task.hpp"

#include <cerrno>
#include <cstring>

#include <sys/stat.h>

#include "scan/task_file.hpp"
#include "sources/read_all.hpp"
#include "sources/utf16.hpp"

namespace stealscan {
namespace {

// A worker keeps at most this much buffer between files (a 64 MiB file's
// buffer is given back once the file is done).
constexpr std::size_t kKeptBuffer = std::size_t{4} << 20;
constexpr std::size_t kStreamRead = 64 * 1024;  // a stream's first read

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
  const TaskRead how = how_to_read(t, st);
  if (how == TaskRead::skip) return;
  const std::uint64_t limit = sh.settings.max_filesize;
  if (how == TaskRead::regular && static_cast<std::uint64_t>(st.st_size) > limit) {
    Tally::add(s.tally->too_large, 1);
    return;
  }
  const std::uint64_t hint = how == TaskRead::regular ? static_cast<std::uint64_t>(st.st_size) : kStreamRead;
  const bool whole = read_all(fd, s.buffer, limit, hint);
  Tally::add(s.tally->bytes, s.buffer.size());
  if (!whole) {
    Tally::add(s.tally->too_large, 1);
    return;
  }
  const std::string_view bytes(s.buffer);
  if (s.archives != nullptr && s.archives->scan_if_archive(shown, bytes, *s.work)) return;  // before: archives hold NULs
  (void)hand_over_bytes(shown, bytes, sh.settings.binary_as_text, s.decoded, *s.tally, *s.work);
}

}  // namespace

bool hand_over_bytes(std::string_view shown, std::string_view bytes, bool binary_as_text, std::string& decoded,
                     Tally& tally, FileWork& work) {
  if (const Utf16 order = detect_utf16(bytes); order != Utf16::none) {
    utf16_to_utf8(bytes, order, decoded);  // NULs and all: UTF-16 is text
    bytes = decoded;
  } else if (!binary_as_text && looks_binary(bytes)) {
    Tally::add(tally.binary, 1);
    return false;
  }
  Tally::add(tally.files, 1);
  const std::uint64_t hits = work.on_file(shown, bytes);
  if (hits > 0) {
    Tally::add(tally.matched_files, 1);
    Tally::add(tally.matching_lines, hits);
  }
  return true;
}

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
  if (s.decoded.capacity() > kKeptBuffer) std::string().swap(s.decoded);
  PathBlock::release(task.block);  // [SCAN-path-release]: done with the path
  shared.budget.release();
}

}  // namespace stealscan

// task_file.hpp: opening a file task's file, shared by the search's runner
// (scan_task.cpp) and the whole-file runner (whole_file_task.cpp): FdCloser,
// open_task_file() and how_to_read().
#pragma once

#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan/scan_task.hpp"

namespace stealscan {

class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  int release() noexcept { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

// Opens the task's file; -1 (and `errno`) if that failed. A file met in the walk
// is opened non-blocking, so that a FIFO put in its place does not hang the
// worker (it is then skipped: not a regular file); an operand the user named is
// opened as it is, and a FIFO's open waits for its writer.
inline int open_task_file(const ScanTask& t) {
  if (t.kind == ScanTask::Kind::standard_input) return ::dup(STDIN_FILENO);
  const int nonblock = t.kind == ScanTask::Kind::file ? O_NONBLOCK : 0;
  return ::open(t.path, O_RDONLY | O_CLOEXEC | O_NOCTTY | nonblock);
}

// How the opened file (`st`: its fstat) is read: a regular file at any offset;
// a FIFO, device, socket or standard input that an operand named, as a stream
// (once, start to end); a directory, or anything but a regular file met in the
// walk, not at all.
enum class TaskRead { regular, stream, skip };
inline TaskRead how_to_read(const ScanTask& t, const struct stat& st) {
  if (S_ISREG(st.st_mode)) return TaskRead::regular;
  if (S_ISDIR(st.st_mode) || t.kind == ScanTask::Kind::file) return TaskRead::skip;
  return TaskRead::stream;
}

}  // namespace stealscan

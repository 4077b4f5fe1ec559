// file_job.cpp: FileJob (file_job.hpp).
#include "scan/file_job.hpp"

#include <unistd.h>

#include "scan/scan_task.hpp"

namespace stealscan {

FileJob::FileJob(std::string path, int fd, std::uint64_t size, std::uint64_t chunk_size, std::uint32_t window,
                 bool ordered)
    : path_(std::move(path)),
      fd_(fd),
      source_(fd, size),
      size_(size),
      chunk_size_(chunk_size),
      chunks_(chunk_count(size, chunk_size)),
      window_(window < 1 ? 1 : window),
      ordered_(ordered),
      first_spawn_end_(chunks_ < window_ ? chunks_ : window_),
      next_spawn_(first_spawn_end_) {
  if (ordered_) {
    pending_.resize(chunks_);
    pending_lines_.resize(chunks_, 0);
  }
}

FileJob::~FileJob() { ::close(fd_); }

ScanRange FileJob::range(std::uint32_t k) const noexcept { return chunk_range(chunk_size_, chunks_, k); }

FileJob::Completion FileJob::complete(std::uint32_t k, const ScanResult& result, Fragment fragment,
                                      const HitFormat& format, WorkerOutput& out) {
  Completion c;
  std::lock_guard lock(mu_);
  ++completed_;
  matching_lines_ += result.matching_lines;
  if (ordered_) {
    pending_[k] = std::make_unique<Fragment>(std::move(fragment));
    pending_lines_[k] = result.lines;
    // Commit every fragment that is now in order, into the job's buffer. A
    // failed job prints nothing more. Past kHardLimit the buffer goes to stdout
    // from here, under the job's lock: the next commit may be another worker's
    // and must not overtake it. Lock order: job, then Stdout; never the reverse.
    while (next_commit_ < chunks_ && pending_[next_commit_] != nullptr) {
      const Fragment& f = *pending_[next_commit_];
      if (!failed() && !f.hits.empty()) {
        if (held_ == nullptr) held_ = std::make_unique<WorkerOutput>(out.sink());
        for (std::size_t i = 0; i < f.hits.size(); ++i) format.hit(*held_, path_, fd_, f.view(i, first_line_), &json_);
      }
      first_line_ += pending_lines_[next_commit_];
      pending_[next_commit_].reset();
      ++next_commit_;
    }
  }
  const std::uint32_t base = ordered_ ? next_commit_ : completed_;
  c.spawn_begin = next_spawn_;
  while (next_spawn_ < chunks_ && next_spawn_ < base + window_) ++next_spawn_;
  c.spawn_end = next_spawn_;
  c.last = completed_ == chunks_;
  // Every chunk is committed: the file's lines join this worker's records,
  // before the file's closing record (finish_file()).
  if (c.last && held_ != nullptr) {
    out.buffer().append(held_->buffer());
    held_.reset();
  }
  return c;
}

}  // namespace stealscan

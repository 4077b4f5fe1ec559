// scan_task.cpp: the runner (scan_task.hpp). A file task opens the file, reads its
// first block (the binary check needs it, and it is the first block of the scan
// anyway), then scans the file whole, or, if it is larger than a chunk, hands it
// to a FileJob, spawns chunk tasks and scans chunk 0 itself. A stream (a FIFO or
// standard input, which only an operand can be) is scanned whole, in one pass.
#include "scan/scan_task.hpp"

#include <cerrno>
#include <cstring>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan/file_job.hpp"
#include "scan/fragment.hpp"
#include "scan/task_file.hpp"

namespace stealscan {
namespace {

// A file scanned whole prints its lines as the scanner finds them.
class DirectSink final : public LineSink {
 public:
  DirectSink(const HitFormat& format, WorkerOutput& out, std::string_view path, int fd)
      : format_(format), out_(out), path_(path), fd_(fd) {}
  void on_line(const LineHit& h) override {
    format_.hit(out_, path_, fd_, HitView{h.line + 1, h.offset, h.length, h.text, h.matches, h.context, h.gap, h.newline},
                &json_);
  }
  JsonFile& json() noexcept { return json_; }

 private:
  JsonFile json_;
  const HitFormat& format_;
  WorkerOutput& out_;
  std::string_view path_;
  int fd_;
};

bool prints_lines(const ScanShared& sh) {
  return sh.settings.scan.mode == ScanMode::lines || sh.settings.scan.mode == ScanMode::matches;
}

void report(const ScanShared& sh, WorkerScratch& s, std::string_view path, std::string_view what) {
  sh.diag.error(path, what);
  Tally::add(s.tally->errors, 1);
}

// Scans chunk k of a split file and completes it; the last chunk finishes the
// file. `loaded`: chunk 0, whose first block the file task has read.
void run_chunk(const ScanShared& sh, FileJob* job, std::uint32_t k, ScanCtx& ctx, bool loaded) {
  WorkerScratch& s = ctx.scratch();
  ScanResult r;
  Fragment fragment;
  if (!job->cancelled()) {
    try {
      r = scan_chunk(sh, s, job->source(), job->range(k), loaded, fragment);
      if (sh.settings.scan.mode == ScanMode::list && r.matching_lines > 0) job->cancel();
    } catch (const std::exception& e) {
      report(sh, s, job->path(), e.what());
      job->fail();
    }
  }
  const FileJob::Completion c = job->complete(k, r, std::move(fragment), sh.format, *s.out);
  // From here the job may be gone, unless c.last (file_job.hpp): only its
  // address is used, to spawn chunks that cannot have completed.
  for (std::uint32_t next = c.spawn_begin; next < c.spawn_end; ++next) ctx.spawn_local(ScanTask::chunk(job, next));
  if (!c.last) {
    s.out->end_of_file();
    return;
  }
  if (!job->failed()) {
    finish_file(sh.format, *s.out, *s.tally, job->path(), job->matching_lines(), job->json(), job->size());
  } else {
    s.out->end_of_file();
  }
  delete job;  // closes the file
  sh.budget.release();
}

// Reads the first block into the window (the scan starts with it) and counts the
// file; false for a binary file (a NUL byte in it), skipped unless -a.
bool read_first_block(const ScanShared& sh, WorkerScratch& s, ByteSource& source) {
  s.window.reset(0);
  s.window.refill(source, 0, sh.settings.chunk_size);
  Tally::add(s.tally->bytes, s.window.size());
  if (!sh.settings.binary_as_text && std::memchr(s.window.data(), '\0', s.window.size()) != nullptr) {
    Tally::add(s.tally->binary, 1);
    return false;
  }
  Tally::add(s.tally->files, 1);
  return true;
}

// Scans the file from the window's first block to its end in one scan, printing
// as it goes, and finishes it.
void scan_whole(const ScanShared& sh, WorkerScratch& s, ByteSource& source, const ScanOptions& options,
                std::string_view shown, int fd) {
  DirectSink sink(sh.format, *s.out, shown, fd);
  const std::uint64_t first_block = s.window.size();
  const ScanResult r = scan_lines(*s.matcher, options, s.window, source, ScanRange{}, true,
                                  prints_lines(sh) ? &sink : nullptr, s.line);
  Tally::add(s.tally->bytes, r.bytes_read);
  finish_file(sh.format, *s.out, *s.tally, shown, r.matching_lines, sink.json(), first_block + r.bytes_read);
}

// Scans a FIFO, terminal, socket or standard input: read once, from start to
// end, in one scan (no chunks, nothing read back).
void scan_stream(const ScanShared& sh, WorkerScratch& s, int fd, std::string_view shown) {
  StreamSource source(fd);
  if (!read_first_block(sh, s, source)) return;
  ScanOptions options = sh.settings.scan;
  options.rereadable = false;
  scan_whole(sh, s, source, options, shown, fd);
}

// Whether a file of `size` bytes, its first block read, is scanned in chunks:
// larger than a chunk, and searched in a mode whose chunks are independent
// (not -m, -A, -B: those need the lines before).
bool worth_splitting(const ScanShared& sh, const WorkerScratch& s, std::uint64_t size) {
  return !s.window.eof() && size > sh.settings.chunk_size && !sh.settings.scan.sequential() &&
         size / sh.settings.chunk_size < UINT32_MAX;
}

// Returns true if the file was handed to a FileJob (which then owns the
// descriptor and gives the budget unit back). `ctx` null: a task of another
// executor (scan_one_file()), whose `splitter` (if any) takes a large file.
bool scan_file(const ScanShared& sh, WorkerScratch& s, const ScanTask& t, std::string_view shown, ScanCtx* ctx,
               FileSplitter* splitter = nullptr) {
  const int fd = open_task_file(t);
  if (fd < 0) {
    report(sh, s, shown, std::strerror(errno));
    return false;
  }
  FdCloser closer(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    report(sh, s, shown, std::strerror(errno));
    return false;
  }
  const TaskRead how = how_to_read(t, st);
  if (how != TaskRead::regular) {
    if (how == TaskRead::stream) scan_stream(sh, s, fd, shown);
    return false;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (sh.settings.max_filesize && size > *sh.settings.max_filesize) {
    Tally::add(s.tally->too_large, 1);
    return false;
  }
  // Standard input redirected from a file: read from where its offset stands.
  const auto start = t.kind == ScanTask::Kind::standard_input ? ::lseek(fd, 0, SEEK_CUR) : off_t{0};
  if (start != 0) {
    scan_stream(sh, s, fd, shown);
    return false;
  }
  FdSource source(fd, size);
  if (!read_first_block(sh, s, source)) return false;

  if (splitter != nullptr && worth_splitting(sh, s, size)) {
    splitter->split(sh, s, shown, source, size);
    return false;
  }
  if (ctx != nullptr && worth_splitting(sh, s, size)) {
    auto* job = new FileJob(std::string(shown), closer.release(), size, sh.settings.chunk_size,
                            sh.settings.chunk_window, prints_lines(sh));
    for (std::uint32_t k = 1; k < job->first_spawn_end(); ++k) ctx->spawn_local(ScanTask::chunk(job, k));
    run_chunk(sh, job, 0, *ctx, true);
    return true;
  }

  scan_whole(sh, s, source, sh.settings.scan, shown, fd);
  return false;
}

void run_file(const ScanShared& sh, const ScanTask& t, ScanCtx& ctx) {
  const std::string_view shown(t.path, t.number);
  bool handed_over = false;
  try {
    handed_over = scan_file(sh, ctx.scratch(), t, shown, &ctx);
  } catch (const std::exception& e) {
    report(sh, ctx.scratch(), shown, e.what());
  }
  PathBlock::release(t.block);  // [SCAN-path-release]: done with the path (a FileJob copied it)
  if (!handed_over) sh.budget.release();
}

}  // namespace

void scan_one_file(const ScanShared& shared, WorkerScratch& scratch, ScanTask::Kind kind, const char* path,
                   std::uint32_t length, FileSplitter* splitter) {
  ScanTask t{kind, length, {}, nullptr};
  t.path = path;
  const std::string_view shown(path, length);
  try {
    (void)scan_file(shared, scratch, t, shown, nullptr, splitter);
  } catch (const std::exception& e) {
    report(shared, scratch, shown, e.what());
  }
}

std::uint32_t chunk_count(std::uint64_t size, std::uint64_t chunk_size) noexcept {
  return static_cast<std::uint32_t>((size + chunk_size - 1) / chunk_size);
}

ScanRange chunk_range(std::uint64_t chunk_size, std::uint32_t chunks, std::uint32_t k) noexcept {
  return ScanRange{k * chunk_size, k + 1 == chunks ? ScanRange::kToEof : (k + 1) * chunk_size};
}

ScanResult scan_chunk(const ScanShared& shared, WorkerScratch& scratch, ByteSource& source, ScanRange range,
                      bool loaded, Fragment& fragment) {
  FragmentSink sink(fragment);
  const ScanResult r = scan_lines(*scratch.matcher, shared.settings.scan, scratch.window, source, range, loaded,
                                  prints_lines(shared) ? &sink : nullptr, scratch.line);
  Tally::add(scratch.tally->bytes, r.bytes_read);
  return r;
}

void finish_file(const HitFormat& format, WorkerOutput& out, Tally& tally, std::string_view path,
                 std::uint64_t matching_lines, JsonFile& json, std::uint64_t bytes_searched) {
  if (matching_lines > 0) {
    Tally::add(tally.matched_files, 1);
    Tally::add(tally.matching_lines, matching_lines);
    if (format.mode() == OutputMode::count) format.count(out, path, matching_lines);
    if (format.mode() == OutputMode::list) format.list(out, path);
  }
  if (format.mode() == OutputMode::json) format.json_end(out, path, json, bytes_searched, matching_lines, tally);
  out.end_of_file();
}

void run_scan_task(const ScanShared& shared, ScanTask task, ScanCtx& ctx) {
  if (task.kind != ScanTask::Kind::chunk) {
    run_file(shared, task, ctx);
  } else {
    // Reading errors are handled inside; what is left to throw is running out of
    // memory, which stops the executor (join() reports it; queued tasks are dropped).
    run_chunk(shared, task.job, task.number, ctx, false);
  }
}

}  // namespace stealscan

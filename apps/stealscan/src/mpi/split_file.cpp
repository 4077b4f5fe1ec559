// split_file.cpp: chunk tasks and their assembly on rank 0 (split_file.hpp).
#include "mpi/split_file.hpp"

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

#include <stealpool/mpi/dist_executor.hpp>  // Context's spawn and emit

#include "scan/fragment.hpp"
#include "scan/task_file.hpp"

namespace stealscan::mpi {
namespace {

// Chunk k of `t`'s file, before its scan.
ChunkResult chunk_of(const FileTask& t, std::uint32_t k) {
  ChunkResult c;
  c.key = t.key;
  c.chunk = k;
  c.chunks = t.chunks;
  c.size = t.size;
  c.path = t.path;
  return c;
}

void send(const ChunkResult& c, FileCtx& ctx, ChunkSender& sender) {
  sender.frame.clear();
  append_chunk_frame(sender.frame, c);
  ctx.emit(sender.frame);
}

// A chunk that cannot be read: reported here, sent as failed (rank 0 prints
// nothing more of the file).
void send_failed(const ScanShared& sh, WorkerScratch& s, ChunkResult c, std::string_view why, FileCtx& ctx,
                 ChunkSender& sender) {
  sh.diag.error(c.path, why);
  Tally::add(s.tally->errors, 1);
  c.failed = true;
  c.fragment = Fragment{};
  send(c, ctx, sender);
}

// Scans chunk k of `t`'s file from `source`: its result, or nothing if the
// chunk could not be read (then reported and sent as failed).
std::optional<ChunkResult> scan(const ScanShared& sh, WorkerScratch& s, ByteSource& source, const FileTask& t,
                                std::uint32_t k, bool loaded, FileCtx& ctx, ChunkSender& sender) {
  ChunkResult c = chunk_of(t, k);
  try {
    const ScanResult r = scan_chunk(sh, s, source, chunk_range(sh.settings.chunk_size, t.chunks, k), loaded,
                                    c.fragment);
    c.lines = r.lines;
    c.matching_lines = r.matching_lines;
  } catch (const std::exception& e) {
    send_failed(sh, s, std::move(c), e.what(), ctx, sender);
    return std::nullopt;
  }
  return c;
}

}  // namespace

void ChunkSplitter::split(const ScanShared& shared, WorkerScratch& scratch, std::string_view shown,
                          ByteSource& source, std::uint64_t size) {
  FileTask t;
  t.kind = ScanTask::Kind::chunk;
  t.path = std::string(shown);
  t.key = FileKey{static_cast<std::uint32_t>(ctx_.rank()), static_cast<std::uint32_t>(ctx_.worker_id()),
                  sender_.splits++};
  t.chunks = chunk_count(size, shared.settings.chunk_size);  // at least 2: size > chunk_size
  t.size = size;
  t.first = 1;
  t.end = t.chunks;
  if (shared.settings.scan.mode != ScanMode::list) ctx_.spawn(t);  // the others scan while this one does chunk 0
  std::optional<ChunkResult> first = scan(shared, scratch, source, t, 0, /*loaded=*/true, ctx_, sender_);
  if (shared.settings.scan.mode == ScanMode::list) {
    // -l: a match in chunk 0 settles the file, which rank 0 is then told has
    // one chunk; else the other chunks go out now.
    if (first && first->matching_lines > 0) {
      first->chunks = 1;
      return send(*first, ctx_, sender_);
    }
    ctx_.spawn(t);
  }
  if (first) send(*first, ctx_, sender_);
}

void run_chunk_task(const ScanShared& shared, FileTask task, FileCtx& ctx, ChunkSender& sender) {
  while (task.end - task.first > 1) {
    FileTask upper = task;
    upper.first = task.first + (task.end - task.first) / 2;
    task.end = upper.first;
    ctx.spawn(std::move(upper));
  }
  WorkerScratch& s = ctx.scratch();
  const int fd = ::open(task.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return send_failed(shared, s, chunk_of(task, task.first), std::strerror(errno), ctx, sender);
  FdCloser closer(fd);
  FdSource source(fd, task.size);
  if (std::optional<ChunkResult> c = scan(shared, s, source, task, task.first, /*loaded=*/false, ctx, sender))
    send(*c, ctx, sender);
}

SplitAssembler::File::~File() {
  if (fd >= 0) ::close(fd);
}

bool SplitAssembler::open_for_text(File& f) {
  if (f.fd >= 0) return true;
  f.fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (f.fd >= 0) return true;
  diag_.error(f.path, std::string("reopening for a long line: ").append(std::strerror(errno)));
  Tally::add(tally_.errors, 1);
  return false;
}

void SplitAssembler::print(File& f, const ChunkResult& c) {
  if (c.failed) f.failed = true;
  const bool counting = format_.mode() == OutputMode::count || format_.mode() == OutputMode::list;
  if (!f.failed && !counting) {
    const Fragment& fr = c.fragment;
    for (std::size_t i = 0; i < fr.hits.size(); ++i) {
      if (!fr.hits[i].has_text && !open_for_text(f)) {
        f.failed = true;
        break;
      }
      format_.hit(f.held, f.path, f.fd, fr.view(i, f.first_line), &f.json);
    }
  }
  f.first_line += c.lines;
  ++f.next;
}

void SplitAssembler::add(ChunkResult c) {
  auto [it, fresh] = files_.try_emplace(c.key, out_);
  File& f = it->second;
  if (fresh) {
    f.path = c.path;
    f.chunks = c.chunks;
    f.size = c.size;
  }
  if (c.chunks != f.chunks)
    throw std::runtime_error("stealscan-mpi: chunk " + std::to_string(c.chunk) + " of " + f.path + " says " +
                             std::to_string(c.chunks) + " chunks, its file " + std::to_string(f.chunks));
  if (c.chunk < f.next || f.early.contains(c.chunk))
    throw std::runtime_error("stealscan-mpi: chunk " + std::to_string(c.chunk) + " of " + f.path +
                             " received twice");
  ++f.received;
  f.matching_lines += c.matching_lines;
  if (c.chunk != f.next) {
    const std::uint32_t k = c.chunk;
    f.early.emplace(k, std::move(c));
    return;
  }
  print(f, c);
  for (auto e = f.early.begin(); e != f.early.end() && e->first == f.next; e = f.early.erase(e)) print(f, e->second);
  if (f.received < f.chunks) return;
  if (!f.failed) {
    finish_file(format_, f.held, tally_, f.path, f.matching_lines, f.json, f.size);
  }
  f.held.flush();
  files_.erase(it);
}

}  // namespace stealscan::mpi

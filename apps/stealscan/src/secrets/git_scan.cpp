// git_scan.cpp: scan_git_history() (git_scan.hpp).
#include "secrets/git_scan.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <system_error>

#include <stealpool/executor.hpp>

#include "output/progress.hpp"
#include "scan/file_feed.hpp"
#include "scan/whole_file_task.hpp"
#include "secrets/report/report.hpp"
#include "sources/git/blob_index.hpp"
#include "sources/git/pack_order.hpp"
#include "sources/git/object_reader.hpp"

namespace stealscan::secrets {
namespace {

// A range [begin, end) of commits (diff) or of the blob index (scan). Small
// and trivially copyable: it travels through the queues by value.
struct GitTask {
  enum class Kind : std::uint8_t { diff, scan };
  Kind kind;
  std::size_t begin;
  std::size_t end;
};

// What the progress line shows while the scan runs. Written by its worker
// alone, as a relaxed load and store (Tally::add: one writer, no
// read-modify-write);
// read relaxed by the progress thread, where a figure may lag. The exact
// counts are GitWorkerOut::counts, read after join().
struct alignas(64) GitLive {
  std::atomic<std::uint64_t> commits{0};  // diffed
  std::atomic<std::uint64_t> blobs{0};    // read (scanned, binary or too large)
  std::atomic<std::uint64_t> bytes{0};    // of blob content
};

// One worker's results: written only by that worker, read by the main thread
// after join() (which orders every write before the read); `live` as above.
struct GitWorkerOut {
  std::vector<git::BlobEntry> introduced;
  std::vector<Finding> findings;
  GitCounts counts;
  GitLive live;
};

// An archive member of a blob, scanned as the blob itself is (its findings
// carry the blob's commit).
class MemberWork final : public FileWork {
 public:
  MemberWork(const Detector& d, Detector::Scratch& scratch, std::vector<Finding>& out, std::string_view commit,
             bool redact)
      : d_(d), scratch_(scratch), out_(out), commit_(commit), redact_(redact) {}
  std::uint64_t on_file(std::string_view path, std::string_view bytes) override {
    const std::size_t before = out_.size();
    d_.scan(path, bytes, scratch_, out_, commit_);
    for (std::size_t f = before; f < out_.size(); ++f) {
      out_[f].commit = commit_;
      if (redact_) redact(out_[f]);
    }
    return out_.size() - before;
  }

 private:
  const Detector& d_;
  Detector::Scratch& scratch_;
  std::vector<Finding>& out_;
  std::string_view commit_;
  bool redact_;
};

// The scratch: this worker's own repository handle (libgit2 handles are not
// shared between threads), its object database, its object reader over both
// the packs and that database, its diff buffers and Detector scratch.
struct GitWorker {
  git::Repository repo;
  git::Odb odb;
  std::unique_ptr<git::ObjectReader> objects;
  std::unique_ptr<git::DiffScratch> diff;
  std::unique_ptr<Detector::Scratch> detector;
  std::unique_ptr<Tally> archive_tally;      // the ArchiveScanner's counters
  std::unique_ptr<ArchiveScanner> archives;  // null: archives not opened
  GitWorkerOut* out;
};

using Exec = stealpool::Executor<GitTask, GitWorker>;
using Ctx = stealpool::WorkerCtx<GitTask, GitWorker>;

// What every task reads; immutable while the executor runs.
struct Shared {
  const GitScanSettings& settings;
  const git::History& history;
  const Detector& detector;
  Diagnostics& diag;
  const git::PackSet& packs;          // opened before the walk
  std::vector<git::BlobEntry> blobs;  // the index, in pack order; filled between the phases
  std::vector<std::optional<git::PackLocation>> places;  // each blob's, if in `packs`
};

template <class Runner>
Exec start(const Shared& sh, std::vector<GitWorkerOut>& outs, Runner runner) {
  stealpool::ExecutorConfig ec;
  ec.workers = sh.settings.workers;
  ec.pin_threads = false;  // as feed_files(): a scanner shares the machine
  stealpool::ThreadOptions threads;
  threads.name = "stealscan-git";
  auto init = [&sh, &outs](std::size_t id) {
    GitWorker w;
    w.repo = git::open_repository(sh.settings.git_dir);
    git_odb* odb = nullptr;
    git::check(git_repository_odb(&odb, w.repo.get()), "cannot open the object database");
    w.odb.reset(odb);
    w.objects = std::make_unique<git::ObjectReader>(sh.packs, w.odb.get());
    w.diff = std::make_unique<git::DiffScratch>();
    w.detector = std::make_unique<Detector::Scratch>(sh.detector);
    if (sh.settings.archives) {
      w.archive_tally = std::make_unique<Tally>();
      w.archives = std::make_unique<ArchiveScanner>(*sh.settings.archives, sh.diag, *w.archive_tally);
    }
    w.out = &outs[id];
    return w;
  };
  try {
    return Exec(ec, threads, init, std::move(runner));
  } catch (const std::system_error& e) {
    throw ThreadStartError("cannot start " + std::to_string(sh.settings.workers) + " worker threads (-j): " +
                           e.code().message() + "; try fewer");
  }
}

// Runs `tasks` on a fresh executor to the end; false if a task threw (said on diag).
template <class Runner>
bool run_phase(const Shared& sh, std::vector<GitWorkerOut>& outs, std::vector<GitTask>& tasks, Runner runner,
               GitCounts& counts) {
  Exec ex = start(sh, outs, std::move(runner));
  if (!tasks.empty()) (void)ex.spawn_external_batch(tasks);  // refused only if a worker failed to start
  const stealpool::MetricsSnapshot m = ex.join(std::nothrow);
  Totals stopped;
  report_stopped_scan(m, sh.diag, stopped);
  counts.errors += stopped.errors;
  return stopped.errors == 0;
}

void diff_task(const Shared& sh, GitTask t, Ctx& ctx) {
  GitWorker& w = ctx.scratch();
  std::vector<std::string> errors;
  for (std::size_t i = t.begin; i < t.end; ++i) {
    errors.clear();
    git::introduced_blobs(*w.objects, *w.diff, sh.history, static_cast<std::uint32_t>(i), w.out->introduced, errors);
    for (const std::string& e : errors) sh.diag.message(e);
    w.out->counts.errors += errors.size();
    Tally::add(w.out->live.commits, 1);
  }
}

// Blob `i` of the index, through the worker's object reader (README.md,
// "Reading objects"); too_large, not inflated, over --max-filesize. GitError
// "cannot read it: <why>" if it cannot be read or is not a blob.
git::ObjectReader::Object read_blob(const Shared& sh, std::size_t i, GitWorker& w) {
  git::ObjectReader::Object o;
  try {
    o = w.objects->read(sh.blobs[i].blob, sh.places[i], sh.settings.max_filesize);
  } catch (const git::GitError& e) {
    std::string m = "cannot read it: ";
    m.append(e.what());
    throw git::GitError(m);
  }
  if (!o.too_large && o.type != GIT_OBJECT_BLOB) throw git::GitError("cannot read it: not a blob");
  return o;
}

// Scans blob `i` of the index; returns the bytes read.
std::uint64_t scan_blob(const Shared& sh, std::size_t i, GitWorker& w) {
  const git::BlobEntry& e = sh.blobs[i];
  GitCounts& c = w.out->counts;
  const git::HexId commit(sh.history.commits[e.commit]);  // on the stack: no allocation per blob
  try {
    const git::ObjectReader::Object blob = read_blob(sh, i, w);
    if (blob.too_large) {
      ++c.too_large;
      return 0;
    }
    const std::string_view bytes = blob.bytes;
    c.bytes += bytes.size();
    const std::vector<std::string>& skip = sh.settings.skip_paths;
    if (!skip.empty() && std::find(skip.begin(), skip.end(), e.path) != skip.end()) return bytes.size();
    if (w.archives != nullptr) {  // before the binary check: archives hold NULs
      std::vector<Finding>& out = w.out->findings;
      const std::size_t before = out.size();
      const std::uint64_t members = w.archive_tally->archive_members.load(std::memory_order_relaxed);  // ours alone
      MemberWork work(sh.detector, *w.detector, out, commit.view(), sh.settings.redact);
      if (w.archives->scan_if_archive(e.path, bytes, work)) {
        ++c.archives;
        c.members += w.archive_tally->archive_members.load(std::memory_order_relaxed) - members;
        if (out.size() > before) ++c.matched;
        return bytes.size();
      }
    }
    if (!sh.settings.binary_as_text && looks_binary(bytes)) {
      ++c.binary;
      return bytes.size();
    }
    ++c.scanned;
    std::vector<Finding>& out = w.out->findings;
    const std::size_t before = out.size();
    sh.detector.scan(e.path, bytes, *w.detector, out, commit.view());
    for (std::size_t f = before; f < out.size(); ++f) {
      out[f].commit = commit.view();
      if (sh.settings.redact) redact(out[f]);
    }
    if (out.size() > before) ++c.matched;
    return bytes.size();
  } catch (const std::exception& err) {  // GitError among them
    std::string m = "blob ";
    m.append(git::hex(e.blob)).append(" in commit ").append(commit.view()).append(": ").append(err.what());
    sh.diag.error(e.path, m);
    ++c.errors;
  }
  return 0;
}

void scan_task(const Shared& sh, GitTask t, Ctx& ctx) {
  GitWorker& w = ctx.scratch();
  GitCounts& c = w.out->counts;
  std::size_t blobs = 0;
  std::uint64_t bytes = 0;
  for (std::size_t cursor = t.begin; cursor < t.end;) {
    const std::uint64_t read = scan_blob(sh, cursor, w);
    bytes += read;
    Tally::add(w.out->live.blobs, 1);
    Tally::add(w.out->live.bytes, read);
    ++cursor;
    ++blobs;
    if (cursor == t.end || !sh.settings.yield.should_yield(blobs, bytes)) continue;
    // Yield: the rest goes back to this worker's deque, where a thief may take
    // it; a long rest is split, so that a thief takes half, not all.
    ++c.yields;
    std::size_t end = t.end;
    if (end - cursor >= 2 * sh.settings.yield.max_blobs) {
      const std::size_t mid = cursor + (end - cursor) / 2;
      ctx.spawn_local(GitTask{GitTask::Kind::scan, mid, end});
      ++c.splits;
      end = mid;
    }
    ctx.spawn_local(GitTask{GitTask::Kind::scan, cursor, end});  // pushed last: popped first, by this worker
    return;
  }
}

std::vector<GitTask> ranges(GitTask::Kind kind, std::size_t n, std::size_t per_task) {
  std::vector<GitTask> tasks;
  for (std::size_t b = 0; b < n; b += per_task) tasks.push_back(GitTask{kind, b, std::min(n, b + per_task)});
  return tasks;
}

}  // namespace

GitCounts& GitCounts::operator+=(const GitCounts& o) noexcept {
  diff_tasks += o.diff_tasks;
  scan_tasks += o.scan_tasks;
  yields += o.yields;
  splits += o.splits;
  unique_blobs += o.unique_blobs;
  scanned += o.scanned;
  bytes += o.bytes;
  binary += o.binary;
  too_large += o.too_large;
  matched += o.matched;
  archives += o.archives;
  members += o.members;
  errors += o.errors;
  return *this;
}

std::string history_progress_line(std::uint64_t diffed, std::size_t commits, std::uint64_t blobs,
                                  std::uint64_t index_size, std::uint64_t bytes, double secs) {
  char line[200];
  if (index_size == 0)
    std::snprintf(line, sizeof line, "stealscan: %llu / %zu commits diffed", static_cast<unsigned long long>(diffed),
                  commits);
  else
    std::snprintf(line, sizeof line, "stealscan: %zu commits, %llu / %llu blobs, %s, %s/s", commits,
                  static_cast<unsigned long long>(blobs), static_cast<unsigned long long>(index_size),
                  human_bytes(static_cast<double>(bytes)).c_str(),
                  human_bytes(secs > 0 ? static_cast<double>(bytes) / secs : 0).c_str());
  return line;
}

GitScanResult scan_git_history(const GitScanSettings& s, const git::PackSet& packs, const git::History& history,
                               const Detector& detector, Diagnostics& diag) {
  if (history.commits.size() > UINT32_MAX)
    throw git::GitError("too many commits (" + std::to_string(history.commits.size()) + ")");
  GitScanResult result;
  Shared sh{s, history, detector, diag, packs, {}, {}};
  std::vector<GitWorkerOut> outs(s.workers);
  // The blob index's size once it is known (0: still diffing), for the line.
  std::atomic<std::uint64_t> index_size{0};
  Progress progress(
      diag,
      [&outs, &index_size, commits = history.commits.size()](double secs) {
        std::uint64_t diffed = 0, blobs = 0, bytes = 0;
        for (const GitWorkerOut& o : outs) {
          diffed += o.live.commits.load(std::memory_order_relaxed);
          blobs += o.live.blobs.load(std::memory_order_relaxed);
          bytes += o.live.bytes.load(std::memory_order_relaxed);
        }
        return history_progress_line(diffed, commits, blobs, index_size.load(std::memory_order_relaxed), bytes,
                                     secs);
      },
      s.progress);

  std::vector<GitTask> diffs = ranges(GitTask::Kind::diff, history.commits.size(), kCommitsPerDiffTask);
  result.counts.diff_tasks = diffs.size();
  const bool ok = run_phase(sh, outs, diffs, [&sh](GitTask t, Ctx& ctx) { diff_task(sh, t, ctx); }, result.counts);

  if (ok) {
    std::vector<std::vector<git::BlobEntry>> parts;
    for (GitWorkerOut& o : outs) parts.push_back(std::move(o.introduced));
    sh.blobs = git::unique_blobs(parts);
    sh.places = git::order_by_pack(sh.packs, sh.blobs);
    result.counts.unique_blobs = sh.blobs.size();
    index_size.store(sh.blobs.size(), std::memory_order_relaxed);
    std::vector<GitTask> scans = ranges(GitTask::Kind::scan, sh.blobs.size(), kBlobsPerScanTask);
    result.counts.scan_tasks = scans.size();
    run_phase(sh, outs, scans, [&sh](GitTask t, Ctx& ctx) { scan_task(sh, t, ctx); }, result.counts);
  }
  progress.stop();
  for (GitWorkerOut& o : outs) {
    result.counts += o.counts;
    std::move(o.findings.begin(), o.findings.end(), std::back_inserter(result.findings));
  }
  return result;
}

}  // namespace stealscan::secrets

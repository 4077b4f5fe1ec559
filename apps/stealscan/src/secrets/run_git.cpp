// run_git.cpp: git_secrets_main() (run_git.hpp).
#include "secrets/run_git.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "scan/file_feed.hpp"
#include "secrets/git_scan.hpp"
#include "secrets/report/report_sink.hpp"
#include "secrets/run_secrets.hpp"
#include "sources/git/commit_info.hpp"
#include "sources/git/history.hpp"
#include "sources/git/object_reader.hpp"
#include "sources/git/pack_file.hpp"

namespace stealscan::secrets {
namespace {

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string summary(const git::History& h, const GitCounts& c, std::size_t findings, std::size_t known) {
  const std::string more =
      known > 0 ? " (" + std::to_string(known) + " more known: baseline or fingerprints)" : std::string();
  const std::uint64_t unreadable = h.errors.size() + c.errors;
  std::string trouble;
  if (unreadable > 0) trouble += "; " + plural(unreadable, "object", "objects") + " could not be read";
  if (!h.shallow_cut.empty())
    trouble += "; history cut at " + plural(h.shallow_cut.size(), "shallow boundary commit", "shallow boundary commits");
  return plural(findings, "finding", "findings") + more + trouble + " in " + plural(c.matched, "blob", "blobs") + " (" +
         plural(h.commits.size(), "commit", "commits") + ", " + plural(c.unique_blobs, "unique blob", "unique blobs") +
         ": " + std::to_string(c.scanned) + " scanned (" + std::to_string(c.bytes) + " bytes read), " +
         (c.archives > 0 ? plural(c.archives, "archive", "archives") + " (" +
                               plural(c.members, "archive member", "archive members") + "), "
                         : std::string()) +
         std::to_string(c.binary) + " binary and " +
         std::to_string(c.too_large) + " too large skipped; " + plural(c.diff_tasks, "diff task", "diff tasks") +
         ", " + plural(c.scan_tasks, "scan task", "scan tasks") + ", " + plural(c.yields, "yield", "yields") + ", " +
         plural(c.splits, "split", "splits") + ")";
}

// Author, email, date and message, read once per commit (on this thread).
void fill_commit_fields(git_repository* repo, std::vector<Finding>& findings) {
  std::map<std::string, git::CommitInfo> seen;
  for (Finding& f : findings) {
    auto it = seen.find(f.commit);
    if (it == seen.end()) {
      git_oid id;
      git::check(git_oid_fromstr(&id, f.commit.c_str()), "commit " + f.commit);
      it = seen.emplace(f.commit, git::read_commit_info(repo, id)).first;
    }
    f.author = it->second.author;
    f.email = it->second.email;
    f.date = it->second.date;
    f.message = it->second.message;
  }
}

// The shallow clone's cut, said once: which commits, what it means, what to do.
std::string shallow_message(const std::string& path, const git::History& h, bool accepted) {
  constexpr std::size_t kNamed = 8;
  std::string ids;
  for (std::size_t i = 0; i < h.shallow_cut.size() && i < kNamed; ++i) ids += (i > 0 ? ", " : "") + git::hex(h.shallow_cut[i]);
  if (h.shallow_cut.size() > kNamed) ids += " and " + std::to_string(h.shallow_cut.size() - kNamed) + " more";
  std::string m = "'" + path + "' is a shallow clone and the scan reaches its boundary at " + ids +
                  ": the history before is not in this clone and was not scanned (each boundary commit was scanned "
                  "whole, as a root commit)";
  if (!accepted)
    m += "; fetch it (git fetch --unshallow, or --deepen N), scan a range inside it (--range BASE..HEAD), or "
         "accept the cut with --shallow-ok";
  return m;
}

}  // namespace

int git_secrets_main(const SecretsCommand& cmd, const Detector& detector, const Suppressions& known,
                     const OwnFiles& own, std::ofstream& file, Diagnostics& diag) {
  const std::string& path = cmd.paths.front();
  GitScanResult result;
  git::History history;
  try {
    const git::Repository repo = git::open_repository(path);
    const git::PackSet packs = git::PackSet::open(git::objects_dir(repo.get()));
    git_odb* odb = nullptr;
    git::check(git_repository_odb(&odb, repo.get()), "cannot open the object database");
    const git::Odb owned_odb(odb);
    git::ObjectReader reader(packs, odb);
    history = git::walk_history(repo.get(), reader, git::HistoryRequest{cmd.since, cmd.range});
    for (const std::string& e : history.errors) diag.message(e);
    if (!history.shallow_cut.empty()) diag.message(shallow_message(path, history, cmd.shallow_ok));
    GitScanSettings s;
    s.git_dir = git_repository_path(repo.get());
    s.workers = cmd.workers;
    s.binary_as_text = cmd.binary_as_text;
    s.max_filesize = cmd.max_filesize;
    s.redact = cmd.redact;
    s.progress = !cmd.no_progress && ::isatty(STDERR_FILENO) == 1;
    if (const char* workdir = git_repository_workdir(repo.get())) s.skip_paths = own.inside(workdir);
    if (cmd.archive_depth > 0)
      s.archives = ArchiveSettings{cmd.archive_depth, cmd.archive_max_entry_size.value_or(cmd.max_filesize),
                                   cmd.archive_max_size, cmd.binary_as_text};
    result = scan_git_history(s, packs, history, detector, diag);
    fill_commit_fields(repo.get(), result.findings);
  } catch (const git::GitError& e) {
    diag.message(e.what());
    return kError;
  } catch (const ThreadStartError& e) {
    diag.message(e.what());
    return kError;
  }
  std::vector<Finding>& findings = result.findings;
  std::size_t suppressed = 0;
  if (!write_findings(findings, known, cmd, detector.rules(), file, diag, suppressed)) return kError;
  diag.message(summary(history, result.counts, findings.size(), suppressed));
  // Never a "clean" for history that was not read (README.md, "Errors").
  if (result.counts.errors > 0 || !history.errors.empty()) return kError;
  if (!history.shallow_cut.empty() && !cmd.shallow_ok) return kError;
  return findings.empty() ? kNoFindings : kFindings;
}

}  // namespace stealscan::secrets

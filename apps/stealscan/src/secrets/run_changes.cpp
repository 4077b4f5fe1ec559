// run_changes.cpp: changes_secrets_main() (run_changes.hpp). On the calling
// thread: the files of one commit's worth of changes are few, and the
// executor's start-up would cost more than it saves.
#include "secrets/run_changes.hpp"

#include <algorithm>

#include "scan/whole_file_task.hpp"
#include "secrets/report/report.hpp"
#include "secrets/report/report_sink.hpp"
#include "secrets/run_secrets.hpp"
#include "sources/git/changes.hpp"

namespace stealscan::secrets {
namespace {

struct Counts {
  std::uint64_t changed = 0, scanned = 0, binary = 0, too_large = 0, matched = 0;
};

// Whether lines [first, last] of a finding hold an added line (`added`
// sorted). A path-only finding (line 0) is about the whole file: kept.
bool touches_added(const Finding& f, const std::vector<std::uint64_t>& added) {
  if (f.start_line == 0) return true;
  const auto it = std::lower_bound(added.begin(), added.end(), f.start_line);
  return it != added.end() && *it <= f.end_line;
}

std::string summary(const SecretsCommand& cmd, const Counts& c, std::size_t findings, std::size_t known,
                    std::size_t errors) {
  std::string s = std::to_string(findings) + (findings == 1 ? " finding" : " findings");
  if (known > 0) s += " (" + std::to_string(known) + " more known: baseline or fingerprints)";
  if (errors > 0) s += "; " + std::to_string(errors) + (errors == 1 ? " file" : " files") + " could not be read";
  s += " in the added lines of " + std::to_string(c.matched) + (c.matched == 1 ? " file" : " files") + " (" +
       std::to_string(c.changed) + (cmd.staged ? " staged" : " uncommitted") +
       (c.changed == 1 ? " file: " : " files: ") + std::to_string(c.scanned) + " scanned, " +
       std::to_string(c.binary) + " binary and " + std::to_string(c.too_large) + " too large skipped)";
  return s;
}

}  // namespace

int changes_secrets_main(const SecretsCommand& cmd, const Detector& detector, const Suppressions& known,
                         const OwnFiles& own, std::ofstream& file, Diagnostics& diag) {
  std::vector<Finding> findings;
  std::vector<std::string> errors;
  Counts counts;
  try {
    const git::Repository repo = git::open_repository(cmd.paths.front());
    const char* workdir = git_repository_workdir(repo.get());
    const std::vector<std::string> skip = workdir != nullptr ? own.inside(workdir) : std::vector<std::string>{};
    Detector::Scratch scratch(detector);
    std::vector<Finding> found;
    const auto scan = [&](git::ChangedFile& f) {
      if (std::find(skip.begin(), skip.end(), f.path) != skip.end()) return;  // the rule file in use, a baseline
      ++counts.changed;
      if (f.too_large) {
        ++counts.too_large;
        return;
      }
      const bool binary = f.binary || looks_binary(f.bytes);
      if (binary && !cmd.binary_as_text) {
        ++counts.binary;
        return;
      }
      if (binary) {  // libgit2 gave no lines: with -a, the whole file is new to us
        f.added.clear();
        const auto lines = static_cast<std::uint64_t>(std::count(f.bytes.begin(), f.bytes.end(), '\n')) + 1;
        for (std::uint64_t l = 1; l <= lines; ++l) f.added.push_back(l);
      }
      ++counts.scanned;
      found.clear();
      detector.scan(f.path, f.bytes, scratch, found);
      const std::size_t before = findings.size();
      for (Finding& x : found) {
        if (!touches_added(x, f.added)) continue;
        if (cmd.redact) redact(x);
        findings.push_back(std::move(x));
      }
      if (findings.size() > before) ++counts.matched;
    };
    git::for_each_change(repo.get(), cmd.staged ? git::ChangeSet::staged : git::ChangeSet::uncommitted,
                         cmd.max_filesize, scan, errors);
  } catch (const git::GitError& e) {
    diag.message(e.what());
    return kError;
  }
  for (const std::string& e : errors) diag.message(e);
  std::size_t suppressed = 0;
  if (!write_findings(findings, known, cmd, detector.rules(), file, diag, suppressed)) return kError;
  diag.message(summary(cmd, counts, findings.size(), suppressed, errors.size()));
  if (!errors.empty()) return kError;
  return findings.empty() ? kNoFindings : kFindings;
}

}  // namespace stealscan::secrets

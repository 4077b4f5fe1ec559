// run_secrets.cpp: secrets_main() (run_secrets.hpp).
#include "secrets/run_secrets.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <system_error>
#include <unordered_set>

#include <stealpool/cpu_count.hpp>

#include "cli/cli.hpp"
#include "scan/file_feed.hpp"
#include "scan/whole_file_task.hpp"
#include "secrets/check_rules.hpp"
#include "secrets/rules/config_loader.hpp"
#include "secrets/detect/detector.hpp"
#include "secrets/run_changes.hpp"
#include "secrets/own_files.hpp"
#include "secrets/run_git.hpp"
#include "secrets/secrets_cli.hpp"
#include "secrets/report/report_sink.hpp"
#include "secrets/report/suppressions.hpp"

namespace stealscan::secrets {
namespace {

constexpr std::string_view kProjectConfig = ".stealscan.toml";

// If `path` is a symbolic link, the file it leads to (links resolved all the
// way): relative to the working directory when `path` is relative, as Go's
// filepath.EvalSymlinks gives it to gitleaks.
std::optional<std::string> link_target(std::string_view path) {
  struct stat st;
  const std::string p(path);
  if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return std::nullopt;
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(p, ec);
  if (ec) return std::nullopt;
  if (!p.empty() && p.front() == '/') return real.string();
  const std::filesystem::path cwd = std::filesystem::canonical(".", ec);
  if (ec) return real.string();
  return real.lexically_relative(cwd).string();
}

// One worker's FileWork: the shared Detector with this worker's scratch, and
// this worker's findings (merged after the scan).
class SecretWork final : public FileWork {
 public:
  SecretWork(const Detector& detector, std::vector<Finding>& findings, bool redact, const OwnFiles& own,
             bool follow)
      : detector_(detector), scratch_(detector), findings_(findings), redact_(redact), own_(own), follow_(follow) {}
  std::uint64_t on_file(std::string_view path, std::string_view bytes) override {
    if (own_.holds(path)) return 0;  // the rule file in use, a baseline
    const std::size_t before = findings_.size();
    // With -L, a symbolic link is scanned as its target (the path allowlists
    // see, the fingerprint's), the link kept beside it, as gitleaks does.
    const std::optional<std::string> target = follow_ ? link_target(path) : std::nullopt;
    detector_.scan(target ? std::string_view(*target) : path, bytes, scratch_, findings_);
    if (target)
      for (std::size_t i = before; i < findings_.size(); ++i) findings_[i].symlink_file = path;
    if (redact_)
      for (std::size_t i = before; i < findings_.size(); ++i) redact(findings_[i]);
    return findings_.size() - before;
  }

 private:
  const Detector& detector_;
  Detector::Scratch scratch_;
  std::vector<Finding>& findings_;
  bool redact_;
  const OwnFiles& own_;
  bool follow_;
};

// --config, else .stealscan.toml in the first directory operand, else the
// defaults. `from_file` says whether the rules came from a file (whose regexes
// are then all compiled up front, so that a bad one stops the run before it scans).
RuleSet choose_rules(const SecretsCommand& cmd, bool& from_file, ConfigWarnings& warnings, OwnFiles& own) {
  from_file = true;
  if (cmd.config) {
    own.add(*cmd.config);
    return load_config_file(*cmd.config, default_rule_set(), &warnings);
  }
  for (const std::string& p : cmd.paths) {
    struct stat st;
    if (::stat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    const std::string project = p + "/" + std::string(kProjectConfig);
    if (::access(project.c_str(), F_OK) == 0) {
      own.add(project);
      return load_config_file(project, default_rule_set(), &warnings);
    }
    break;
  }
  from_file = false;
  return default_rule_set();
}

// One worker's archive scanner; none with --no-archives (or --archive-depth 0).
std::unique_ptr<ArchiveScanner> make_archive_scanner(const SecretsCommand& cmd, Diagnostics& diag, Tally& tally) {
  if (cmd.archive_depth == 0) return nullptr;
  const ArchiveSettings s{cmd.archive_depth, cmd.archive_max_entry_size.value_or(cmd.max_filesize),
                          cmd.archive_max_size, cmd.binary_as_text};
  return std::make_unique<ArchiveScanner>(s, diag, tally);
}

// --baseline and --fingerprints; without --fingerprints, the fingerprint
// lines of .gitleaksignore and .stealscanignore in each directory operand.
Suppressions choose_suppressions(const SecretsCommand& cmd, const RuleSet& rules) {
  Suppressions known;
  for (const std::string& b : cmd.baselines) known.add_baseline_file(b);
  for (const std::string& f : cmd.fingerprints) known.add_fingerprint_file(f);
  if (!cmd.fingerprints.empty()) return known;
  if (cmd.gitleaks_ignore_path) {  // in place of each operand's .gitleaksignore
    struct stat st;
    const std::string& p = *cmd.gitleaks_ignore_path;
    known.add_fingerprint_file(::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode) ? p + "/.gitleaksignore" : p);
  }
  std::unordered_set<std::string> ids;
  for (const Rule& r : rules.rules) ids.insert(r.id);
  for (const std::string& p : cmd.paths) {
    struct stat st;
    if (::stat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    const std::string gitleaks = p + "/.gitleaksignore";
    if (!cmd.gitleaks_ignore_path && ::access(gitleaks.c_str(), F_OK) == 0) known.add_fingerprint_file(gitleaks);
    known.add_shared_ignore_file(p + "/.stealscanignore", ids);
  }
  return known;
}

std::string summary(const Totals& t, std::size_t findings, std::size_t known) {
  std::string s = std::to_string(findings) + (findings == 1 ? " finding" : " findings");
  if (known > 0) s.append(" (").append(std::to_string(known)).append(" more known: baseline or fingerprints)");
  s.append(" in ").append(std::to_string(t.matched_files)).append(t.matched_files == 1 ? " file" : " files");
  s.append(" (").append(std::to_string(t.files)).append(" scanned, ").append(std::to_string(t.binary));
  s.append(" binary and ").append(std::to_string(t.too_large)).append(" too large skipped)");
  if (t.archives > 0)  // the members are among the files scanned
    s.append("; ").append(std::to_string(t.archives)).append(t.archives == 1 ? " archive, " : " archives, ")
        .append(std::to_string(t.archive_members)).append(" archive members, ")
        .append(std::to_string(t.archive_bytes)).append(" bytes decompressed, ")
        .append(std::to_string(t.archive_warnings)).append(" archive warnings");
  return s;
}

// Only the rules `wanted` says, and the rules they require, those reported
// only as parts (a part that is not wanted itself).
template <class Wanted>
RuleSet keep_rules(RuleSet rules, const Wanted& wanted) {
  std::unordered_set<std::string> parts;
  for (const Rule& r : rules.rules) {
    if (!wanted(r)) continue;
    for (const Required& q : r.required) parts.insert(q.id);
  }
  RuleSet out;
  out.allowlists = std::move(rules.allowlists);
  std::unordered_set<std::string> gone;
  for (Rule& r : rules.rules) {
    const bool want = wanted(r);
    if (!want && parts.count(r.id) == 0) {
      gone.insert(r.id);
      continue;
    }
    if (!want) r.skip_report = true;
    out.rules.push_back(std::move(r));
  }
  // A global allowlist aimed only at rules that are gone goes too (an id
  // that names no rule stays, for the Detector to refuse).
  if (!gone.empty())
    std::erase_if(out.allowlists, [&](Allowlist& a) {
      if (a.target_rules.empty()) return false;
      std::erase_if(a.target_rules, [&](const std::string& id) { return gone.count(id) != 0; });
      return a.target_rules.empty();
    });
  return out;
}

// --enable-rule (each id must name a rule), then --min-confidence: a rule
// named by --enable-rule is kept whatever its confidence.
RuleSet selected_rules(RuleSet rules, const SecretsCommand& cmd) {
  const std::vector<std::string>& ids = cmd.enabled_rules;
  for (const std::string& id : ids)
    if (std::none_of(rules.rules.begin(), rules.rules.end(), [&](const Rule& r) { return r.id == id; }))
      throw ConfigError("--enable-rule names no rule: \"" + id + "\"");
  if (!ids.empty()) {
    const std::unordered_set<std::string> wanted(ids.begin(), ids.end());
    return keep_rules(std::move(rules), [&](const Rule& r) { return wanted.count(r.id) != 0; });
  }
  return keep_rules(std::move(rules), [&](const Rule& r) { return r.level() >= cmd.min_confidence; });
}

// --list-rules: a line a rule reported (parts only are not listed):
// id, family, confidence, keywords (comma-separated; "-" for none).
void list_rules(const RuleSet& rules, std::ostream& out) {
  for (const Rule& r : rules.rules) {
    if (r.skip_report) continue;
    std::string keywords;
    for (const std::string& k : r.keywords) keywords.append(keywords.empty() ? "" : ",").append(k);
    out << r.id << '\t' << (r.family.empty() ? "-" : r.family) << '\t' << confidence_name(r.level()) << '\t'
        << (keywords.empty() ? "-" : keywords) << '\n';
  }
}

int scan_main(SecretsCommand& cmd, Diagnostics& diag);

}  // namespace

int secrets_main(const std::vector<std::string>& args, Diagnostics& diag) {
  SecretsCommand cmd;
  try {
    cmd = parse_secrets_command(args, stealpool::available_parallelism());
  } catch (const UsageError& e) {
    diag.message(e.what());
    return kError;
  }
  if (cmd.help) {
    std::cout << kSecretsUsage;
    return kNoFindings;
  }
  const int status = scan_main(cmd, diag);
  return status == kFindings ? cmd.exit_code : status;  // --exit-code, as gitleaks'
}

namespace {

int scan_main(SecretsCommand& cmd, Diagnostics& diag) {
  if (cmd.check_rules) return check_rules_main(*cmd.check_rules, std::cout, diag);
  if (cmd.paths.empty()) cmd.paths.push_back(".");
  if (!check_operands(cmd.paths, diag)) return kError;
  std::unique_ptr<Detector> detector;
  Suppressions known;
  OwnFiles own;
  try {
    bool from_file = false;
    ConfigWarnings warnings;
    RuleSet rules = selected_rules(choose_rules(cmd, from_file, warnings, own), cmd);
    for (const std::string& b : cmd.baselines) own.add(b);
    for (const std::string& w : warnings) diag.message("warning: " + w);
    if (cmd.list_rules) {
      list_rules(rules, std::cout);
      return kNoFindings;
    }
    DetectorOptions options;
    options.decode_depth = cmd.decode_depth;
    options.keyword_scope = cmd.keyword_scope;
    options.inline_allows = cmd.inline_allows;
    if (!cmd.no_cache) options.cache = DatabaseCache::from_environment();
    options.compile_now = from_file;
    detector = std::make_unique<Detector>(std::move(rules), std::move(options));
    known = choose_suppressions(cmd, detector->rules());
  } catch (const ConfigError& e) {
    diag.message(e.what());
    return kError;
  }
  // Opened before the scan, so that a bad --output stops it before it starts.
  std::ofstream file;
  if (cmd.output != "-") {
    file.open(cmd.output, std::ios::binary | std::ios::trunc);
    if (!file) {
      diag.error(cmd.output, std::string("cannot write the report: ") + std::strerror(errno));
      return kError;
    }
  }
  if (cmd.git) return git_secrets_main(cmd, *detector, known, own, file, diag);
  if (cmd.staged || cmd.uncommitted) return changes_secrets_main(cmd, *detector, known, own, file, diag);

  std::vector<Tally> tallies(cmd.workers + 1);
  std::vector<std::vector<Finding>> found(cmd.workers);
  InFlightBudget budget(1024);
  const WholeFileShared shared{WholeFileSettings{cmd.binary_as_text, cmd.max_filesize}, budget, diag};
  stealpool::MetricsSnapshot metrics;
  try {
    metrics = feed_files<WholeFileScratch>(
        FeedSettings{cmd.paths, cmd.walk, cmd.workers, !cmd.no_progress && ::isatty(STDERR_FILENO) == 1}, budget,
        tallies, diag,
        [&](std::size_t id) {
          return WholeFileScratch{std::make_unique<SecretWork>(*detector, found[id], cmd.redact, own, cmd.walk.follow), {}, &tallies[id],
                                  {}, make_archive_scanner(cmd, diag, tallies[id])};
        },
        [&shared](ScanTask task, WholeFileCtx& ctx) { run_whole_file_task(shared, task, ctx); });
  } catch (const ThreadStartError& e) {
    diag.message(e.what());
    return kError;
  }
  Totals totals = sum(tallies);
  report_stopped_scan(metrics, diag, totals);

  std::vector<Finding> findings;
  for (auto& f : found) std::move(f.begin(), f.end(), std::back_inserter(findings));
  std::size_t suppressed = 0;
  if (!write_findings(findings, known, cmd, detector->rules(), file, diag, suppressed)) return kError;
  diag.message(summary(totals, findings.size(), suppressed));
  if (totals.errors > 0) return kError;
  return findings.empty() ? kNoFindings : kFindings;
}

}  // namespace

}  // namespace stealscan::secrets

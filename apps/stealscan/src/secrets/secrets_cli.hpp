// secrets_cli.hpp: the command line of `stealscan secrets` (everything after the
// word `secrets`) -> SecretsCommand, or UsageError naming the bad argument.
// kSecretsUsage is its --help text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "secrets/detect/keyword_filter.hpp"
#include "secrets/report/report.hpp"
#include "walk/walker.hpp"

namespace stealscan::secrets {

struct SecretsCommand {
  bool help = false;
  std::vector<std::string> paths;     // empty: "."
  std::optional<std::string> config;  // --config; else .stealscan.toml or the defaults
  std::optional<std::string> check_rules;  // --check-rules FILE: check, do not scan
  int exit_code = 1;                       // --exit-code: the status when there are findings
  std::vector<std::string> enabled_rules;  // --enable-rule: only these rule ids (none: all)
  Confidence min_confidence = Confidence::medium;  // --min-confidence: the rules reported
  bool list_rules = false;                         // --list-rules: print the rules, do not scan
  bool inline_allows = true;               // false: --ignore-gitleaks-allow
  std::optional<std::string> gitleaks_ignore_path;  // a .gitleaksignore, or a directory holding one
  ReportFormat format = ReportFormat::text;
  std::string output = "-";  // --output; "-" is stdout
  bool redact = false;
  std::vector<std::string> baselines;     // --baseline: previous JSON reports
  std::vector<std::string> fingerprints;  // --fingerprints: files of fingerprints
  std::size_t workers = 1;
  WalkOptions walk;
  bool binary_as_text = false;
  unsigned decode_depth = 5;  // --decode-depth: decoding passes (gitleaks' default)
  KeywordScope keyword_scope = KeywordScope::line;  // --keyword-scope
  std::uint64_t max_filesize = std::uint64_t{64} << 20;
  bool no_progress = false;
  bool no_cache = false;  // --no-cache: compile the keyword database, do not keep it
  // Archives (sources/archive/): levels opened (0: none, --no-archives), the
  // limits on decompressed bytes per member (unset: --max-filesize) and per file on disk.
  unsigned archive_depth = 3;
  std::optional<std::uint64_t> archive_max_entry_size;
  std::uint64_t archive_max_size = std::uint64_t{256} << 20;
  bool git = false;                  // --git: the history of the repository at the one PATH
  std::optional<std::string> since;  // --since COMMIT (with --git)
  std::optional<std::string> range;  // --range A..B (with --git)
  bool shallow_ok = false;           // --shallow-ok: a shallow clone's cut is not an error
  bool staged = false;               // --staged: the index against HEAD, at the one PATH
  bool uncommitted = false;          // --uncommitted: the work tree against HEAD
};

extern const std::string_view kSecretsUsage;

SecretsCommand parse_secrets_command(const std::vector<std::string>& args, std::size_t default_workers);

}  // namespace stealscan::secrets

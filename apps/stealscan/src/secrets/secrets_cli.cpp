// secrets_cli.cpp: parse_secrets_command() (secrets_cli.hpp). The number, size
// and glob values are checked by the search's parsers (cli.hpp), so both modes
// say the same of a bad value.
#include "secrets/secrets_cli.hpp"

#include "cli/cli.hpp"

namespace stealscan::secrets {

const std::string_view kSecretsUsage = R"(Usage: stealscan secrets [OPTIONS] [PATH...]
Scan the regular files under each PATH (default: .) for secrets: API keys,
tokens, passwords, private keys. Rules are in gitleaks' TOML format (or Nosey
Parker's and Kingfisher's YAML); without --config, a .stealscan.toml in the
first directory PATH is used if there is one, else the built-in rules. Each file is read whole; a finding reports the rule,
file, line, column, match and secret.

Rules:
  -c, --config FILE         the rules to use (gitleaks' format; [extend] useDefault
                            = true adds them to the built-in rules); a .yml or
                            .yaml FILE, or a directory of them: Nosey Parker's
                            or Kingfisher's rules
      --check-rules FILE    check the rules of FILE (any of those formats)
                            against their own examples instead of scanning:
                            each rule that misses an example or finds a
                            negative example is named; exit 1 if any
      --list-rules          print the rules in use (id, family, confidence,
                            keywords), one a line, instead of scanning
      --min-confidence LEVEL
                            report the rules of confidence LEVEL or above:
                            low, medium (the default) or high. A rule's
                            `confidence` (Kingfisher's field; absent: medium)
                            is high for a prefix or checksum of one
                            provider, low for a kind often something else
Report (sorted by file, line, column, rule):
  -f, --format FORMAT       text (default), json (an array, gitleaks' field
                            names), sarif (SARIF 2.1.0), csv or junit
  -o, --output FILE         write the report to FILE ('-': stdout, the default)
      --redact              show REDACTED instead of each secret
Git history:
      --git                 scan every blob reachable from the refs of the
                            repository at PATH (a work tree or .git directory),
                            each once, attributed to the oldest commit adding it
      --since COMMIT        with --git: only commits not reachable from COMMIT,
                            and only blobs they add
      --range A..B          with --git: the commits of B not reachable from A
                            (A.. is A..HEAD; a single B: B and its ancestors),
                            and only blobs they add
      --shallow-ok          with --git: a shallow clone's cut is not an error
                            (without it the scan names the boundary commits
                            and exits 2, findings or not)
Changes not yet committed (a pre-commit hook; findings on added lines only):
      --staged              the index against HEAD: what `git commit` records
      --uncommitted         the work tree against HEAD, staged or not, and
                            untracked files that are not ignored
Known findings (not reported; the summary counts them):
  -b, --baseline FILE       the findings of FILE, a previous JSON report (ours or
                            gitleaks'), matched by rule, file, commit, place
                            and secret; repeatable
      --fingerprints FILE   the findings whose fingerprints FILE lists, one a
                            line ('#' comments); repeatable. Without it, the
                            fingerprints in .gitleaksignore and the lines of
                            .stealscanignore that end in :RULE:LINE, in each
                            directory PATH, are used
Which files:
      --hidden              also hidden files and directories
      --no-ignore           do not honour ignore files (.gitignore, .ignore, ...)
  -g, --glob GLOB           only files matching GLOB; !GLOB excludes (as the search's -g)
      --iglob GLOB          as -g, ASCII letters matching either case
  -L, --follow              follow symbolic links
  -a, --text                also binary files (a NUL byte in the first 256 KiB)
      --max-filesize SIZE   skip larger files (default 64M; suffix K, M or G)
Archives (.gz .bz2 .xz .zst .zip .jar .7z .tar and compressed tars, found by
their first bytes; a member is reported as ARCHIVE!MEMBER, x.env.gz's content
as x.env.gz):
      --no-archives         scan archives as plain files (binary: skipped)
      --archive-depth N     open nested archives up to N levels (default 3; 0 as
                            --no-archives)
      --archive-max-entry-size SIZE
                            skip a member larger than SIZE decompressed, with a
                            warning (default: --max-filesize)
      --archive-max-size SIZE
                            stop reading an archive (nested ones included) after
                            SIZE decompressed, with a warning (default 256M)
Which matches count:
      --keyword-scope line|file
                            a rule with keywords reports a match that covers a
                            line holding one of them (line, the default), or
                            any match in a file holding one anywhere (file:
                            gitleaks' semantics, for configs that put a
                            keyword on a line next to the secret)
What is decoded:
      --decode-depth N      decode percent and Unicode escapes, hex (32+
                            digits) and base64 (16+ characters) in place and
                            scan again, N passes (default 5, as gitleaks; 0
                            decodes nothing). A finding there is placed at the
                            encoded text and tagged decoded:KIND and
                            decode-depth:N
Performance and reporting:
  -j, --threads N           worker threads (default: the CPUs this process may use)
      --no-progress         no progress line (drawn on stderr when it is a terminal)
      --no-cache            compile the rules' keyword database without reading
                            or writing the cache ($STEALSCAN_CACHE_DIR, else
                            $XDG_CACHE_HOME/stealscan, else ~/.cache/stealscan)
  -h, --help                this text

gitleaks' options, for its CI jobs: -f/--report-format, -r/--report-path,
--baseline-path, --exit-code N (the status for findings), --max-decode-depth,
--max-archive-depth, --max-target-megabytes N, --enable-rule ID (only that
rule; repeatable), --gitleaks-ignore-path PATH, --ignore-gitleaks-allow; and,
taken without effect, -v/--verbose, --no-banner, --no-color, --log-level L.

A line holding "stealscan:allow" (or "gitleaks:allow") is never reported.
Exit status: 0 no finding, 1 findings (or --exit-code), 2 an error (a bad
option or config, a missing path, an unreadable file), also when there were
findings. A corrupt archive or a limit reached is a warning on stderr and does
not change it.
)";

namespace {

// Short options that take a value, which may be glued to them ("-j4").
constexpr std::string_view kShortWithValue = "cfogjbr";
// Deeper nesting is no real archive's; each level keeps a member's buffer.
constexpr std::uint64_t kMaxArchiveDepth = 16;

}  // namespace

SecretsCommand parse_secrets_command(const std::vector<std::string>& args, std::size_t default_workers) {
  SecretsCommand c;
  c.workers = default_workers;
  ArgReader in(args, kShortWithValue);
  while (in.next(c.paths)) {
    const std::string& name = in.name();
    const auto value = [&] { return in.value(); };
    const auto flag = [&](bool& target) {
      in.flag();
      target = true;
    };
    if (name == "-c" || name == "--config") {
      c.config = value();
    } else if (name == "--check-rules") {
      c.check_rules = value();
    } else if (name == "--list-rules") {
      flag(c.list_rules);
    } else if (name == "--min-confidence") {
      const std::string v = value();
      const std::optional<Confidence> level = confidence_named(v);
      if (!level) throw UsageError("invalid " + name + " '" + v + "': expected low, medium or high");
      c.min_confidence = *level;
    } else if (name == "-f" || name == "--format" || name == "--report-format") {
      const std::string v = value();
      const std::optional<ReportFormat> format = report_format_named(v);
      if (!format) throw UsageError("invalid " + name + " '" + v + "': expected text, json, sarif, csv or junit");
      c.format = *format;
    } else if (name == "-o" || name == "--output" || name == "-r" || name == "--report-path") {
      c.output = value();
    } else if (name == "--exit-code") {
      c.exit_code = static_cast<int>(parse_count(name, value(), 0, 255));
    } else if (name == "--max-decode-depth") {
      c.decode_depth = static_cast<unsigned>(parse_count(name, value(), 0, 8));
    } else if (name == "--max-archive-depth") {
      c.archive_depth = static_cast<unsigned>(parse_count(name, value(), 0, kMaxArchiveDepth));
    } else if (name == "--max-target-megabytes") {
      // gitleaks' megabytes are 10^6 bytes; 0 is its "no limit".
      const std::uint64_t mb = parse_count(name, value(), 0, 1'000'000);
      c.max_filesize = mb == 0 ? std::uint64_t{1} << 40 : mb * 1'000'000;
    } else if (name == "--enable-rule") {
      c.enabled_rules.push_back(value());
    } else if (name == "--gitleaks-ignore-path") {
      c.gitleaks_ignore_path = value();
    } else if (name == "--ignore-gitleaks-allow") {
      bool on = false;
      flag(on);
      c.inline_allows = false;
    } else if (name == "-v" || name == "--verbose" || name == "--no-banner" || name == "--no-color") {
      bool on = false;
      flag(on);  // gitleaks' presentation: nothing to change here
    } else if (name == "--log-level") {
      const std::string v = value();
      if (v != "trace" && v != "debug" && v != "info" && v != "warn" && v != "error" && v != "fatal")
        throw UsageError("invalid " + name + " '" + v + "': expected trace, debug, info, warn, error or fatal");
    } else if (name == "-b" || name == "--baseline" || name == "--baseline-path") {
      c.baselines.push_back(value());
    } else if (name == "--fingerprints") {
      c.fingerprints.push_back(value());
    } else if (name == "--redact") {
      flag(c.redact);
    } else if (name == "--hidden") {
      flag(c.walk.hidden);
    } else if (name == "--no-ignore") {
      bool on = false;
      flag(on);
      c.walk.gitignore = false;
    } else if (name == "-g" || name == "--glob" || name == "--iglob") {
      c.walk.globs.push_back(parse_glob_option(name, value()));
    } else if (name == "-L" || name == "--follow") {
      flag(c.walk.follow);
    } else if (name == "-a" || name == "--text") {
      flag(c.binary_as_text);
    } else if (name == "--keyword-scope") {
      const std::string v = value();
      if (v == "line") {
        c.keyword_scope = KeywordScope::line;
      } else if (v == "file") {
        c.keyword_scope = KeywordScope::file;
      } else {
        throw UsageError("invalid " + name + " '" + v + "': expected line or file");
      }
    } else if (name == "--decode-depth") {
      c.decode_depth = static_cast<unsigned>(parse_count(name, value(), 0, 8));
    } else if (name == "--max-filesize") {
      c.max_filesize = parse_size(name, value());
    } else if (name == "--no-archives") {
      bool on = false;
      flag(on);
      c.archive_depth = 0;
    } else if (name == "--archive-depth") {
      c.archive_depth = static_cast<unsigned>(parse_count(name, value(), 0, kMaxArchiveDepth));
    } else if (name == "--archive-max-entry-size") {
      c.archive_max_entry_size = parse_size(name, value());
    } else if (name == "--archive-max-size") {
      c.archive_max_size = parse_size(name, value());
    } else if (name == "-j" || name == "--threads") {
      c.workers = static_cast<std::size_t>(parse_count(name, value(), 1, 4096));
    } else if (name == "--no-cache") {
      flag(c.no_cache);
    } else if (name == "--no-progress") {
      flag(c.no_progress);
    } else if (name == "--git") {
      flag(c.git);
    } else if (name == "--since") {
      c.since = value();
    } else if (name == "--range") {
      c.range = value();
    } else if (name == "--shallow-ok") {
      flag(c.shallow_ok);
    } else if (name == "--staged") {
      flag(c.staged);
    } else if (name == "--uncommitted") {
      flag(c.uncommitted);
    } else if (name == "-h" || name == "--help") {
      c.help = true;
      return c;
    } else {
      throw UsageError("unknown option '" + in.arg() + "' for secrets (try stealscan secrets --help)");
    }
  }
  if (c.since && !c.git) throw UsageError("--since needs --git");
  if (c.range && !c.git) throw UsageError("--range needs --git");
  if (c.shallow_ok && !c.git) throw UsageError("--shallow-ok needs --git");
  if (c.since && c.range) throw UsageError("--since and --range cannot be combined: use --range SINCE..HEAD");
  if (int(c.git) + int(c.staged) + int(c.uncommitted) > 1)
    throw UsageError("--git, --staged and --uncommitted cannot be combined: one scan at a time");
  const char* repo_mode = c.git ? "--git" : c.staged ? "--staged" : c.uncommitted ? "--uncommitted" : nullptr;
  if (repo_mode != nullptr && c.paths.size() > 1)
    throw UsageError(std::string(repo_mode) + " takes one repository, got " + std::to_string(c.paths.size()) +
                     " paths");
  return c;
}

}  // namespace stealscan::secrets

// cli.cpp: parse_command_line() (cli.hpp).
#include "cli/cli.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>
#include <system_error>

#include "sources/read_all.hpp"

namespace stealscan {

const std::string_view kUsage = R"(Usage: stealscan [OPTIONS] PATTERN [PATH...]
       stealscan [OPTIONS] -e PATTERN [-e PATTERN...] [PATH...]
       stealscan [OPTIONS] -f PATTERN_FILE [PATH...]
Search the regular files under each PATH (default: .) for lines holding any of
the patterns, with a work-stealing pool of threads. A pattern with newlines is
several patterns.

Patterns:
  -e, --pattern PATTERN     a pattern; repeat for several (every operand is then a PATH)
  -f, --file FILE           read patterns from FILE, one per line
  -F, --fixed-strings       patterns are literal strings
  -E, --regex               patterns are regular expressions (the default; RE2
                            syntax; a pattern without metacharacters runs as a
                            literal string)
  -i, --ignore-case         match letters of either case (Unicode simple case folding)
  -w, --word-regexp         a match must be a whole word: no word character just
                            before or after it
      --no-unicode          bytes, not code points: `.` is a byte, \w \d \s -w and
                            -i are ASCII (grep in the C locale; (?-u) at the start
                            of every pattern does the same, as in rg).
                            By default, on UTF-8 text: `.` and [^..] match one code
                            point (never an invalid byte), \w \d \s are Unicode's
                            classes, -i folds Unicode letters
  -x, --line-regexp         a match must be the whole line
      --engine ENGINE       auto (default: a few plain literals on our SIMD filter,
                            the rest on Vectorscan), vectorscan, or re2 (all on RE2)
Output (default: PATH:TEXT for each matching line):
  -n, --line-number         PATH:LINE:TEXT (LINE from 1); -N, --no-line-number: not
  -o, --only-matching       each match on its own line (PATH:[LINE:]MATCH)
  -v, --invert-match        select the lines that do NOT match
  -m, --max-count N         stop each file after N selected lines
  -A, --after-context N     N lines of context after each selected line
  -B, --before-context N    N lines before; -C, --context N: both (PATH-[LINE-]TEXT,
                            groups that do not touch separated by "--")
  -c, --count               PATH:N, the number of selected lines, for files with N >= 1
  -l, --files-with-matches  the path of each file with a matching line
      --json                ripgrep's JSON Lines messages: begin, match (the line,
                            its number and offset, each submatch), context, end
                            for each file, then summary
      --json-matches        one JSON object per match: file, line, column, pattern
  -H, --with-filename       print PATH: also when searching a single file
      --no-filename         never print PATH:
Which files:
      --hidden              also hidden files and directories (names starting with '.')
  -L, --follow              follow symbolic links (loops are detected and skipped)
      --no-ignore           do not honour ignore files (.gitignore, also those above
                            PATH in its git repository, .ignore, .stealscanignore,
                            .git/info/exclude, git's core.excludesFile)
  -g, --glob GLOB           search only files matching GLOB (gitignore syntax; a
                            GLOB with '/' matches the path below PATH); !GLOB
                            excludes files and directories; repeatable, the last
                            matching GLOB decides; beats ignore files and types
      --iglob GLOB          as -g, ASCII letters matching either case
  -t, --type TYPE           search only files of TYPE (repeatable; see --type-list)
  -T, --type-not TYPE       do not search files of TYPE
      --type-list           list the types and their globs, then exit
  -a, --text                also binary files (a NUL byte in the first chunk)
      --max-filesize SIZE   skip files larger than SIZE bytes (suffix K, M or G)
Performance:
  -j, --threads N           worker threads (default: the CPUs this process may use)
      --chunk-size SIZE     bytes per read, and per chunk of a large file (default 256K)
      --max-in-flight N     files queued at once (default 1024); past it, the
                            worker that walks a directory scans them itself
      --no-mmap             read a line longer than two chunks, never map its file
                            (mapping it saves a copy; a file that shrinks while
                            mapped stops the program with SIGBUS)
      --mmap                map such a line's file (the default)
Reporting:
      --stats               a summary on stderr at the end, with the executor's metrics
      --no-progress         no progress line (drawn on stderr when it is a terminal)
  -h, --help                this text
  -V, --version             the version

Exit status: 0 if a line matched, 1 if none did, 2 if an error occurred (an
unreadable file, a bad option or path), also when lines matched.
)";

namespace {

constexpr std::uint64_t kMaxChunk = std::uint64_t{1} << 30;
constexpr std::uint64_t kMaxInFlight = 10'000'000;
constexpr std::uint64_t kMaxContext = 1'000'000;  // -A/-B/-C: lines kept, at most
// Short options that take a value, which may be glued to them ("-A2").
constexpr char kShortWithValue[] = "efjmABCgtT";

void add_patterns(std::vector<std::string>& out, std::string_view text) {
  // As grep: newlines separate patterns.
  for (;;) {
    const std::size_t nl = text.find('\n');
    out.emplace_back(text.substr(0, nl));
    if (nl == std::string_view::npos) return;
    text.remove_prefix(nl + 1);
  }
}

// A -f file, read whole; its lines are patterns (none if it is empty). "-" is
// standard input. Errors name the file and the system's reason.
void read_pattern_file(std::vector<std::string>& out, const std::string& path) {
  const bool standard_input = path == "-";
  const int fd = standard_input ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  auto fail = [&](int err) -> void {
    if (fd >= 0 && !standard_input) ::close(fd);
    throw UsageError("cannot read pattern file '" + path + "': " + std::strerror(err));
  };
  if (fd < 0) fail(errno);
  std::string text;
  try {
    (void)read_all(fd, text);
  } catch (const std::system_error& e) {
    fail(e.code().value());  // EISDIR for a directory
  }
  if (!standard_input) ::close(fd);
  if (text.empty()) return;  // no lines, no patterns ("\n" is one empty pattern)
  if (text.back() == '\n') text.pop_back();  // a final newline ends the last line
  add_patterns(out, text);
}

}  // namespace

std::uint64_t parse_count(std::string_view option, std::string_view text, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || r.ec != std::errc() || r.ptr != text.data() + text.size())
    throw UsageError("invalid " + std::string(option) + " '" + std::string(text) + "': expected a whole number");
  if (v < lo || v > hi)
    throw UsageError("invalid " + std::string(option) + " '" + std::string(text) + "': must be between " +
                     std::to_string(lo) + " and " + std::to_string(hi));
  return v;
}

GlobOption parse_glob_option(std::string_view option, std::string value) {
  GlobOption g{std::move(value), option == "--iglob"};
  try {
    (void)Overrides({g});
  } catch (const GlobError& e) {
    throw UsageError(std::string(option) + ": " + e.what());
  }
  return g;
}

std::uint64_t parse_size(std::string_view option, std::string_view text) {
  std::string_view digits = text;
  std::uint64_t scale = 1;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'k': case 'K': scale = std::uint64_t{1} << 10; break;
      case 'm': case 'M': scale = std::uint64_t{1} << 20; break;
      case 'g': case 'G': scale = std::uint64_t{1} << 30; break;
      default: break;
    }
    if (scale != 1) digits.remove_suffix(1);
  }
  std::uint64_t v = 0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || r.ec != std::errc() || r.ptr != digits.data() + digits.size() ||
      v > std::numeric_limits<std::uint64_t>::max() / scale)
    throw UsageError("invalid " + std::string(option) + " '" + std::string(text) +
                     "': expected a number of bytes with an optional K, M or G suffix");
  return v * scale;
}

Command parse_command_line(const std::vector<std::string>& args, std::size_t default_workers,
                           PatternInput pattern_input) {
  Command c;
  c.config.workers = default_workers;
  bool patterns_given = false;  // by -e or -f
  std::vector<std::string> operands;
  ArgReader in(args, kShortWithValue);
  while (in.next(operands)) {
    const std::string& a = in.arg();
    const std::string& name = in.name();
    auto value = [&] { return in.value(); };
    auto flag = [&](bool& target) {
      in.flag();
      target = true;
    };
    bool on = false;
    if (name == "-e" || name == "--pattern") {
      add_patterns(c.patterns, value());
      patterns_given = true;
    } else if (name == "-f" || name == "--file") {
      const std::string file = value();
      if (file == "-" && pattern_input == PatternInput::files_only)
        throw UsageError(name + " -: patterns cannot be read from standard input here; give a file");
      read_pattern_file(c.patterns, file);
      patterns_given = true;
    } else if (name == "-F" || name == "--fixed-strings") {
      flag(on);
      c.syntax = PatternSyntax::literal;
    } else if (name == "-E" || name == "--regex") {
      flag(on);
      c.syntax = PatternSyntax::regex;
    } else if (name == "-i" || name == "--ignore-case") {
      flag(c.flags.ignore_case);
    } else if (name == "-w" || name == "--word-regexp") {
      flag(c.flags.word);
    } else if (name == "-x" || name == "--line-regexp") {
      flag(c.flags.line);
    } else if (name == "--no-unicode") {
      c.flags.unicode = false;
    } else if (name == "--engine") {
      const std::string v = value();
      if (v == "auto") {
        c.engine = Engine::automatic;
      } else if (v == "vectorscan") {
        c.engine = Engine::vectorscan;
      } else if (v == "re2") {
        c.engine = Engine::re2;
      } else {
        throw UsageError("invalid --engine '" + v + "': expected auto, vectorscan or re2");
      }
    } else if (name == "-n" || name == "--line-number") {
      flag(c.config.line_numbers);
    } else if (name == "-N" || name == "--no-line-number") {
      flag(on);
      c.config.line_numbers = false;
    } else if (name == "-v" || name == "--invert-match") {
      flag(c.config.invert);
    } else if (name == "-o" || name == "--only-matching") {
      flag(c.config.only_matching);
    } else if (name == "-m" || name == "--max-count") {
      c.config.max_count = parse_count(name, value(), 0, ScanOptions::kNoLimit - 1);
    } else if (name == "-A" || name == "--after-context") {
      c.config.after = static_cast<std::uint32_t>(parse_count(name, value(), 0, kMaxContext));
    } else if (name == "-B" || name == "--before-context") {
      c.config.before = static_cast<std::uint32_t>(parse_count(name, value(), 0, kMaxContext));
    } else if (name == "-C" || name == "--context") {
      c.config.after = c.config.before = static_cast<std::uint32_t>(parse_count(name, value(), 0, kMaxContext));
    } else if (name == "-c" || name == "--count") {
      flag(on);
      c.config.output = OutputMode::count;
    } else if (name == "-l" || name == "--files-with-matches") {
      flag(on);
      c.config.output = OutputMode::list;
    } else if (name == "--json") {
      flag(on);
      c.config.output = OutputMode::json;
    } else if (name == "--json-matches") {
      flag(on);
      c.config.output = OutputMode::json_matches;
    } else if (name == "-H" || name == "--with-filename") {
      flag(on);
      c.with_filename = true;
    } else if (name == "--no-filename") {
      flag(on);
      c.with_filename = false;
    } else if (name == "--hidden") {
      flag(c.config.walk.hidden);
    } else if (name == "-L" || name == "--follow") {
      flag(c.config.walk.follow);
    } else if (name == "--no-ignore") {
      flag(on);
      c.config.walk.gitignore = false;
    } else if (name == "-g" || name == "--glob" || name == "--iglob") {
      c.config.walk.globs.push_back(parse_glob_option(name, value()));
    } else if (name == "-t" || name == "--type" || name == "-T" || name == "--type-not") {
      std::string type = value();
      if (find_file_type(type) == nullptr) throw UsageError("unknown type '" + type + "' (see --type-list)");
      (name == "-t" || name == "--type" ? c.config.walk.types : c.config.walk.types_not).push_back(std::move(type));
    } else if (name == "--type-list") {
      flag(on);
      c.action = Command::Action::type_list;
      return c;
    } else if (name == "-a" || name == "--text") {
      flag(c.config.binary_as_text);
    } else if (name == "--max-filesize") {
      c.config.max_filesize = parse_size(name, value());
    } else if (name == "-j" || name == "--threads") {
      c.config.workers = static_cast<std::size_t>(parse_count(name, value(), 1, 4096));
    } else if (name == "--chunk-size") {
      const std::string v = value();
      const std::uint64_t n = parse_size(name, v);
      if (n < 1 || n > kMaxChunk)
        throw UsageError("invalid --chunk-size '" + v + "': must be between 1 byte and 1G");
      c.config.chunk_size = static_cast<std::size_t>(n);
    } else if (name == "--no-mmap" || name == "--mmap") {
      in.flag();
      c.config.mmap = name == "--mmap";
    } else if (name == "--max-in-flight") {
      c.config.max_in_flight = static_cast<std::size_t>(parse_count(name, value(), 1, kMaxInFlight));
    } else if (name == "--stats") {
      flag(c.stats);
    } else if (name == "--no-progress") {
      flag(c.no_progress);
    } else if (name == "-h" || name == "--help") {
      c.action = Command::Action::help;
      return c;
    } else if (name == "-V" || name == "--version") {
      c.action = Command::Action::version;
      return c;
    } else if (a[1] != '-' && a.size() > 2) {
      // Bundled short flags: "-cH" is "-c -H". Options with a value cannot be bundled.
      std::vector<std::string> split;
      for (std::size_t k = 1; k < a.size(); ++k) {
        const std::string one = std::string("-") + a[k];
        if (std::string_view(kShortWithValue).find(a[k]) != std::string_view::npos)
          throw UsageError("option " + one + " in '" + a + "' needs a value: give it on its own");
        split.push_back(one);
      }
      for (const auto& s : split)
        if (std::string_view("FEclHLaiwxnNvo").find(s[1]) == std::string_view::npos)
          throw UsageError("unknown option '" + s + "' in '" + a + "' (try --help)");
      std::vector<std::string> rest(args.begin() + static_cast<std::ptrdiff_t>(in.index()) + 1, args.end());
      std::vector<std::string> again(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(in.index()));
      again.insert(again.end(), split.begin(), split.end());
      again.insert(again.end(), rest.begin(), rest.end());
      return parse_command_line(again, default_workers, pattern_input);
    } else {
      throw UsageError("unknown option '" + a + "' (try --help)");
    }
  }
  if (!patterns_given) {
    if (operands.empty()) throw UsageError("no pattern given (try --help)");
    add_patterns(c.patterns, operands.front());
    operands.erase(operands.begin());
  }
  c.config.paths = operands;  // none: main.cpp picks standard input or "."
  if (c.config.output == OutputMode::json && c.config.only_matching)
    throw UsageError("--json reports each line's matches: it cannot be combined with -o");
  if (c.config.output == OutputMode::json_matches && (c.config.invert || c.config.only_matching ||
                                                       c.config.before > 0 || c.config.after > 0))
    throw UsageError("--json-matches reports matches: it cannot be combined with -v, -o, -A, -B or -C");
  return c;
}

}  // namespace stealscan

// cli.hpp: the command line: parse_command_line() turns argv into a Command (the
// patterns and a ScanConfig), or throws UsageError with a message that names the
// bad argument. kUsage is the --help text. Nothing here touches the file system
// except reading a -f pattern file; main.cpp checks that the paths exist.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cli/arg_reader.hpp"
#include "match/matcher.hpp"
#include "scan.hpp"

namespace stealscan {


struct Command {
  enum class Action { scan, help, version, type_list };
  Action action = Action::scan;
  std::vector<std::string> patterns;
  PatternSyntax syntax = PatternSyntax::regex;  // as grep and rg; -F: literal
  MatchFlags flags{.unicode = true};  // -i, -w, -x, --no-unicode
  Engine engine = Engine::automatic;
  ScanConfig config;                // paths: empty when none given (main.cpp picks)
  std::optional<bool> with_filename;  // -H / --no-filename; else decided by main
  bool stats = false;
  bool no_progress = false;
};

extern const std::string_view kUsage;

// Whether `-f -` may read the patterns from standard input. stealscan-mpi
// refuses it: only rank 0 would see the input, and the ranks' matchers would differ.
enum class PatternInput { any, files_only };

// `default_workers`: the -j default (available_parallelism()).
Command parse_command_line(const std::vector<std::string>& args, std::size_t default_workers,
                           PatternInput pattern_input = PatternInput::any);

// "256K" -> 262144: a byte count with an optional K, M or G suffix (powers of
// 1024, either case). Throws UsageError naming `option` and the text.
std::uint64_t parse_size(std::string_view option, std::string_view text);

// A whole number in [lo, hi]; throws UsageError naming `option` and the text.
std::uint64_t parse_count(std::string_view option, std::string_view text, std::uint64_t lo, std::uint64_t hi);

// A -g / --iglob value, checked (UsageError naming the option and the glob).
GlobOption parse_glob_option(std::string_view option, std::string value);

}  // namespace stealscan

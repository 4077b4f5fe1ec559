// The command line: what each option sets, and the message for each bad value.
#include <gtest/gtest.h>

#include "cli/cli.hpp"

namespace stealscan {
// Named after the file: test binaries compile several files as one unit.
namespace cli_test {
namespace {

Command parse(std::vector<std::string> args) { return parse_command_line(args, 7); }

std::string error_of(std::vector<std::string> args) {
  try {
    parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Cli, the_first_operand_is_the_pattern_and_the_rest_are_paths) {
  const Command c = parse({"AKIA", "a", "b"});
  EXPECT_EQ(c.patterns, (std::vector<std::string>{"AKIA"}));
  EXPECT_EQ(c.config.paths, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(c.config.workers, 7u);
  EXPECT_EQ(c.config.output, OutputMode::lines);
  EXPECT_EQ(c.syntax, PatternSyntax::regex);  // as grep and rg
  EXPECT_EQ(parse({"-F", "a.b"}).syntax, PatternSyntax::literal);
  EXPECT_TRUE(c.config.walk.gitignore);
  EXPECT_FALSE(c.config.walk.hidden);
}

TEST(Cli, with_e_every_operand_is_a_path_and_newlines_split_patterns) {
  const Command c = parse({"-e", "AKIA", "--pattern=ghp_\n-----BEGIN", "src"});
  EXPECT_EQ(c.patterns, (std::vector<std::string>{"AKIA", "ghp_", "-----BEGIN"}));
  EXPECT_EQ(c.config.paths, (std::vector<std::string>{"src"}));
  EXPECT_TRUE(parse({"x"}).config.paths.empty());  // main.cpp picks stdin or "."
}

TEST(Cli, options_set_their_fields_in_every_spelling) {
  const Command c = parse({"-cE", "-j3", "--hidden", "-L", "--no-ignore", "-a", "--max-filesize=2M",
                           "--chunk-size", "64k", "--max-in-flight", "99", "--stats", "--no-progress", "p"});
  EXPECT_EQ(c.config.output, OutputMode::count);
  EXPECT_EQ(c.syntax, PatternSyntax::regex);
  EXPECT_EQ(c.config.workers, 3u);
  EXPECT_TRUE(c.config.walk.hidden);
  EXPECT_TRUE(c.config.walk.follow);
  EXPECT_FALSE(c.config.walk.gitignore);
  EXPECT_TRUE(c.config.binary_as_text);
  EXPECT_EQ(c.config.max_filesize, std::optional<std::uint64_t>(2u << 20));
  EXPECT_EQ(c.config.chunk_size, 64u << 10);
  EXPECT_EQ(c.config.max_in_flight, 99u);
  EXPECT_TRUE(c.stats);
  EXPECT_TRUE(c.no_progress);
  EXPECT_EQ(parse({"-l", "p"}).config.output, OutputMode::list);
  EXPECT_EQ(parse({"--json", "p"}).config.output, OutputMode::json);
  EXPECT_EQ(parse({"--no-filename", "p"}).with_filename, std::optional<bool>(false));
  EXPECT_EQ(parse({"--", "-p", "-q"}).patterns, (std::vector<std::string>{"-p"}));
  EXPECT_TRUE(parse({"p"}).config.mmap);
  EXPECT_FALSE(parse({"--no-mmap", "p"}).config.mmap);
  EXPECT_TRUE(parse({"--no-mmap", "--mmap", "p"}).config.mmap);  // the last one wins, as in rg
}

TEST(Cli, help_and_version_win_over_everything_else) {
  EXPECT_EQ(parse({"--help"}).action, Command::Action::help);
  EXPECT_EQ(parse({"-V"}).action, Command::Action::version);
}

TEST(Cli, every_bad_value_is_named_in_the_message) {
  EXPECT_EQ(error_of({"-j", "0", "p"}), "invalid -j '0': must be between 1 and 4096");
  EXPECT_EQ(error_of({"-j", "2x", "p"}), "invalid -j '2x': expected a whole number");
  EXPECT_EQ(error_of({"--chunk-size=0", "p"}), "invalid --chunk-size '0': must be between 1 byte and 1G");
  EXPECT_EQ(error_of({"--chunk-size", "2G", "p"}), "invalid --chunk-size '2G': must be between 1 byte and 1G");
  EXPECT_EQ(error_of({"--max-filesize", "lots", "p"}),
            "invalid --max-filesize 'lots': expected a number of bytes with an optional K, M or G suffix");
  EXPECT_EQ(error_of({"--hidden=yes", "p"}), "option --hidden takes no value (got 'yes')");
  EXPECT_EQ(error_of({"-e"}), "option -e needs a value");
  EXPECT_EQ(error_of({"-cz", "p"}), "unknown option '-z' in '-cz' (try --help)");
  EXPECT_EQ(error_of({"-cj", "2", "p"}), "option -j in '-cj' needs a value: give it on its own");
  EXPECT_EQ(error_of({}), "no pattern given (try --help)");
}

TEST(Cli, globs_and_types_keep_their_order_and_a_bad_one_is_named) {
  const Command c = parse({"-g", "*.c", "--glob=!b*", "--iglob", "*.H", "-gx", "-t", "cpp", "-Tmd", "--type-not=py",
                           "--type", "c", "p"});
  ASSERT_EQ(c.config.walk.globs.size(), 4u);
  EXPECT_EQ(c.config.walk.globs[1].glob, "!b*");
  EXPECT_TRUE(c.config.walk.globs[2].ignore_case);
  EXPECT_FALSE(c.config.walk.globs[3].ignore_case);
  EXPECT_EQ(c.config.walk.globs[3].glob, "x");
  EXPECT_EQ(c.config.walk.types, (std::vector<std::string>{"cpp", "c"}));
  EXPECT_EQ(c.config.walk.types_not, (std::vector<std::string>{"md", "py"}));
  EXPECT_EQ(parse({"--type-list"}).action, Command::Action::type_list);
  EXPECT_EQ(error_of({"-t", "xyz", "p"}), "unknown type 'xyz' (see --type-list)");
  EXPECT_EQ(error_of({"-g", "", "p"}), "-g: invalid glob '': it is empty");
  EXPECT_NE(error_of({"--iglob", "a[", "p"}).find("invalid glob 'a['"), std::string::npos);
  EXPECT_EQ(error_of({"-cg"}), "option -g in '-cg' needs a value: give it on its own");
}

TEST(Cli, files_only_refuses_patterns_from_standard_input_in_every_spelling) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"-f", "-", "dir"}, {"-f-", "dir"}, {"--file", "-", "dir"}, {"--file=-", "dir"}}) {
    std::string what = "(no error)";
    try {
      parse_command_line(args, 1, PatternInput::files_only);
    } catch (const UsageError& e) {
      what = e.what();
    }
    EXPECT_NE(what.find("standard input"), std::string::npos) << args[0] << ": " << what;
  }
  // A file named otherwise is read as before (here: one that does not exist).
  EXPECT_NE(error_of({"-f", "/nonexistent/patterns"}).find("cannot read pattern file"), std::string::npos);
}

TEST(Cli, sizes_take_binary_suffixes_in_either_case) {
  EXPECT_EQ(parse_size("--x", "17"), 17u);
  EXPECT_EQ(parse_size("--x", "3k"), 3u << 10);
  EXPECT_EQ(parse_size("--x", "3G"), std::uint64_t{3} << 30);
  EXPECT_THROW(parse_size("--x", "K"), UsageError);
  EXPECT_THROW(parse_size("--x", "-1"), UsageError);
  EXPECT_THROW(parse_size("--x", "99999999999999999999"), UsageError);
}

}  // namespace
}  // namespace cli_test
}  // namespace stealscan

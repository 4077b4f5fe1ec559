// End to end: Unicode mode (the default) against ripgrep, the reference for
// what a grep user expects on UTF-8 text: Greek, CJK, combining marks, the
// Kelvin sign, Unicode digits and spaces, and invalid UTF-8, through -w, -i,
// -o and the Perl classes; and --no-unicode against rg's (?-u).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/run_process.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_unicode_test {
namespace {

const std::string kBin = STEALSCAN_BIN;

const char kText[] =
    "na\xc3\xafve na ve\n"                                      // naïve
    "un caf\xc3\xa9, deux CAF\xc3\x89S\n"                       // café, CAFÉS
    "\xcf\x83\xce\xaf\xcf\x83\xcf\x85\xcf\x86\xce\xbf\xcf\x82 \xce\xa3\xce\x8a\xce\xa3\xce\xa5\xce\xa6\xce\x9f\xce\xa3\n"
    "typedef \xe8\xaa\x9e_t; size_t n; \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x83\x86\xe3\x82\xad\n"
    "cafe\xcc\x81 e\xcc\x81t\xcc\x81 \xe1\xb8\x8d\n"            // combining acute, dot below (precomposed)
    "\xe2\x84\xaa" "elvin kelvin \xc5\xbf" "tar STAR\n"          // Kelvin sign, long s
    "n=\xd9\xa3\xef\xbc\x93 x\xe3\x80\x80y a\xc2\xa0" "b\n"      // Arabic-Indic and fullwidth digits; spaces
    "bad \xff byte trunc \xe2\x84 end \x80 na\n"                // invalid UTF-8, between spaces
    "plain ascii line with int and foo_t\n"
    "\xe2\x80\x94na\xe2\x80\x94 \xc2\xabna\xc2\xbb\n";          // em dashes, guillemets

// Invalid UTF-8 beside word characters: ripgrep (13) counts an invalid byte as
// a word boundary for \b, not for -w.
const char kInvalidText[] =
    "a\xff" "b bad\xff" "byte \xe2\x84x \xc3\xaf\x80\n"
    "x\xffna\xffy int\xed\xec na\xe2\x84\n"
    "\x80word\xc0 \xe8\xaa\x9e\xff\n";

TEST(Unicode, search_matches_what_ripgrep_matches_on_utf8_and_invalid_text) {
  if (run_process({"rg", "--version"}).status != 0) GTEST_SKIP() << "no rg (ripgrep) on PATH";
  TempTree t;
  t.write("u.txt", kText);
  const std::vector<std::vector<std::string>> cases{
      {"-w", "na"},
      {"-i", "CAF\xc3\x89"},
      {"-i", "\xce\xa3\xce\x8a\xce\xa3\xce\xa5\xce\xa6\xce\x9f\xce\xa3"},
      {"-i", "-o", "kelvin"},
      {"-i", "-F", "-o", "KELVIN"},
      {"-i", "-o", "star"},
      {"-o", "\\w+"},
      {"-o", "\\w+_t\\b"},
      {"-o", "\\bna\\b"},
      {"-o", "\\w\\b"},
      {"-o", "\\b(na|ve)\\b"},
      {"-o", "a.b"},
      {"-o", "e."},
      {"-o", "[^ ]+"},
      {"-o", "\\d+"},
      {"-o", "x\\sy"},
      {"-o", "a\\sb"},
      {"-o", "\\W+"},
      {"-o", "\\S+"},
      {"-o", "[\\w-]+"},
      {"-o", "e\\pM"},
      {"-o", "\\p{Greek}+"},
      {"-o", "\\p{Han}+"},
      {"-o", "[[:alpha:]]+"},
      {"-o", "\\x{3c3}"},
      {"-o", "(?i)\xcf\x83"},
      {"-w", "-o", "e"},
      {"-x", "-i", "plain ASCII LINE with INT and FOO_t"},
      {"-c", "."},
      {"-v", "\\w"},
  };
  t.write("invalid.txt", kInvalidText);
  const std::vector<std::vector<std::string>> invalid_cases{
      {"-o", "a.b"}, {"-o", "\\w+"}, {"-o", "[^ ]+"}, {"-o", "\\W+"}, {"-o", "."}, {"-c", "."}, {"-i", "-o", "\xc3\x8f"},
      {"-o", "\\w\\b"},  {"-o", "\\b\\w+"},  {"-o", "\\bna\\b"},  {"-w", "-o", "na"}, {"-w", "-o", "int"},
      {"-w", "b"},         {"-o", "\\b(word|bad)\\b"}, {"-c", "-w", "word"}};
  for (const auto& [file, list] : {std::pair{"u.txt", &cases}, std::pair{"invalid.txt", &invalid_cases}}) {
    for (const auto& args : *list) {
      std::vector<std::string> rg{"rg", "--no-config", "-n", "-j", "1"};
      std::vector<std::string> ss{kBin, "-n", "-j", "1"};
      for (const auto& a : args) {
        rg.push_back(a);
        ss.push_back(a);
      }
      rg.push_back(t.path(file));
      ss.push_back(t.path(file));
      const ProcessResult want = run_process(rg);
      const ProcessResult got = run_process(ss);
      std::string shown;
      for (const auto& a : args) shown += a + " ";
      EXPECT_EQ(got.status, want.status) << file << ": " << shown << got.err << want.err;
      EXPECT_EQ(got.out, want.out) << file << ": " << shown;
    }
  }
}

TEST(Unicode, no_unicode_matches_what_ripgreps_bytes_mode_matches) {
  if (run_process({"rg", "--version"}).status != 0) GTEST_SKIP() << "no rg (ripgrep) on PATH";
  TempTree t;
  t.write("u.txt", kText);
  const std::vector<std::vector<std::string>> cases{
      {"-w", "na"}, {"-o", "\\w+"}, {"-o", "a.b"}, {"-i", "-o", "kelvin"}, {"-o", "\\d+"}, {"-o", "\\bna\\b"}};
  for (const bool flag_in_pattern : {false, true}) {  // --no-unicode, or (?-u) as rg users write it
    for (const auto& args : cases) {
      std::vector<std::string> rg{"rg", "--no-config", "-n", "-j", "1"};
      std::vector<std::string> ss{kBin, "-n", "-j", "1"};
      if (!flag_in_pattern) ss.push_back("--no-unicode");
      for (std::size_t k = 0; k < args.size(); ++k) {
        // rg's bytes mode is (?-u) at the pattern's start (the last argument).
        const bool pattern = k + 1 == args.size();
        rg.push_back(pattern ? "(?-u)" + args[k] : args[k]);
        ss.push_back(pattern && flag_in_pattern ? "(?-u)" + args[k] : args[k]);
      }
      rg.push_back(t.path("u.txt"));
      ss.push_back(t.path("u.txt"));
      const ProcessResult want = run_process(rg);
      const ProcessResult got = run_process(ss);
      EXPECT_EQ(got.status, want.status) << args.back() << got.err << want.err;
      EXPECT_EQ(got.out, want.out) << args.back() << (flag_in_pattern ? " (?-u)" : " --no-unicode");
    }
  }
}

}  // namespace
}  // namespace e2e_unicode_test
}  // namespace stealscan::test

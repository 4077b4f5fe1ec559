// The chunk protocol (line_scanner.hpp) against a naive line-by-line reference:
// split into chunks of every size, read in blocks of every size with short reads,
// the results must add up to the reference exactly: each matching line counted
// once, every line number right, every match reported once. Which lines match
// is decided apart from the engines (a naive substring search, std::regex).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <regex>
#include <string_view>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "scan/line_scanner.hpp"
#include "match/matcher.hpp"
#include "support/naive_grep.hpp"
#include "support/temp_tree.hpp"

namespace stealscan {
// Named after the file: test binaries compile several files as one unit.
namespace line_scanner_test {
namespace {

struct Line {
  std::uint64_t number;  // 0-based
  std::uint64_t offset;
  std::string text;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> matches;  // (column, pattern)
  bool operator==(const Line&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Line& l) {
  os << "{line " << l.number << " @" << l.offset << " '" << l.text << "' [";
  for (auto& [c, p] : l.matches) os << c << ":" << p << " ";
  return os << "]}";
}

// Which lines match, decided apart from the engines: a naive substring
// search for literals (support/naive_grep.hpp), std::regex (ECMAScript, on
// one line: ^ and $ its edges) for the regexes here.
using LineOracle = std::function<bool(std::string_view)>;

LineOracle literal_oracle(const std::vector<std::string>& pats) {
  return [pats](std::string_view line) { return test::naive_literal_line_matches(pats, line, MatchFlags{}); };
}

LineOracle regex_oracle(const std::vector<std::string>& pats) {
  std::vector<std::regex> res;
  for (const std::string& p : pats) res.emplace_back(p);
  return [res](std::string_view line) {
    const std::string l(line);
    return std::any_of(res.begin(), res.end(), [&](const std::regex& re) { return std::regex_search(l, re); });
  };
}

// grep's view: lines split at '\n', a last line without '\n' counts if not empty.
// The matching lines are the oracle's; the matcher gives each one's columns
// (the protocol under test must report what the matcher finds on the line),
// and must agree with the oracle on every line.
std::vector<Line> reference(const std::string& text, const Matcher& m, const LineOracle& oracle) {
  std::vector<Line> out;
  std::uint64_t start = 0, number = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    const std::size_t end = nl == std::string::npos ? text.size() : nl;
    const char* b = text.data() + start;
    const char* e = text.data() + end;
    const bool matches = oracle(std::string_view(b, static_cast<std::size_t>(e - b)));
    EXPECT_EQ(m.find(b, b, e).has_value(), matches) << "line '" << std::string(b, e) << "'";
    if (matches) {
      Line l{number, start, std::string(b, e), {}};
      std::vector<Match> all;
      m.all_in_line(b, e, all);
      for (auto& x : all) l.matches.emplace_back(x.begin - b, x.pattern);
      out.push_back(l);
    }
    ++number;
    start = end + 1;
  }
  return out;
}

struct Collect final : LineSink {
  const std::string* text;
  std::uint64_t base = 0;
  std::map<std::uint64_t, Line> lines;  // by number
  void on_line(const LineHit& h) override {
    Line& l = lines[base + h.line];
    l.number = base + h.line;
    l.offset = h.offset;
    if (h.length != 0 || h.text != nullptr) {
      // A long line (text == nullptr) is read back from the file, as the output does.
      l.text = h.text != nullptr ? std::string(h.text, h.length) : text->substr(h.offset, h.length);
    } else if (l.text.empty()) {
      // A partial report of a long line in mode `matches`: the text is found by the offset.
      const std::size_t nl = text->find('\n', h.offset);
      l.text = text->substr(h.offset, (nl == std::string::npos ? text->size() : nl) - h.offset);
    }
    for (auto& c : h.matches) l.matches.emplace_back(c.column, c.pattern);
  }
};

struct Split {
  std::size_t chunk;
  std::size_t block;
  std::size_t max_read;  // 0: whole reads
  bool preload;          // chunk 0's first block read before the scan, as the file task does
};

// Scans `text` in chunks as the executor would (in order here, since only the
// order of commits matters) and returns (matching lines, lines reported).
std::pair<std::uint64_t, std::vector<Line>> chunked(const std::string& text, const Matcher& m, ScanMode mode,
                                                     const Split& s) {
  const auto max = m.max_match_length();
  ScanWindow window(s.block, max && *max > 0 ? *max - 1 : 0);
  MemorySource src(text, s.max_read);
  LineScratch scratch;
  Collect sink;
  sink.text = &text;
  std::uint64_t matching = 0;
  const std::uint64_t n = text.empty() ? 1 : (text.size() + s.chunk - 1) / s.chunk;
  for (std::uint64_t k = 0; k < n; ++k) {
    ScanRange r{k * s.chunk, k + 1 == n ? ScanRange::kToEof : (k + 1) * s.chunk};
    bool loaded = false;
    if (k == 0 && s.preload) {
      window.reset(0);
      window.refill(src, 0, s.block);
      loaded = true;
    }
    const ScanOptions opts{mode, true};
    const ScanResult res = scan_lines(m, opts, window, src, r, loaded, &sink, scratch);
    matching += res.matching_lines;
    sink.base += res.lines;
  }
  std::vector<Line> lines;
  for (auto& [_, l] : sink.lines) lines.push_back(l);
  return {matching, lines};
}

std::string random_text(std::mt19937& rng, std::size_t n, const std::string& alphabet) {
  std::string s(n, ' ');
  for (auto& c : s) c = alphabet[rng() % alphabet.size()];
  return s;
}

void check_all_setups(const std::string& text, const Matcher& m, const LineOracle& oracle, std::mt19937& rng,
                      const std::string& what) {
  const auto want = reference(text, m, oracle);
  for (int trial = 0; trial < 6; ++trial) {
    const Split s{1 + rng() % 24, 1 + rng() % 12, rng() % 3 == 0 ? 1 + rng() % 5 : 0, rng() % 2 == 0};
    const std::string where = what + " chunk " + std::to_string(s.chunk) + " block " + std::to_string(s.block) +
                              " max_read " + std::to_string(s.max_read) + " preload " + std::to_string(s.preload) +
                              " text '" + text + "'";
    auto [count, none] = chunked(text, m, ScanMode::count, s);
    ASSERT_EQ(count, want.size()) << where;
    auto [n_lines, lines] = chunked(text, m, ScanMode::lines, s);
    ASSERT_EQ(n_lines, want.size()) << where;
    ASSERT_EQ(lines.size(), want.size()) << where;
    for (std::size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(lines[i].number, want[i].number) << where;
      ASSERT_EQ(lines[i].offset, want[i].offset) << where;
      ASSERT_EQ(lines[i].text, want[i].text) << where;
    }
    auto [n_matches, matched] = chunked(text, m, ScanMode::matches, s);
    ASSERT_EQ(n_matches, want.size()) << where;
    ASSERT_EQ(matched, want) << where;
    auto [listed, unused] = chunked(text, m, ScanMode::list, s);
    ASSERT_EQ(listed > 0, !want.empty()) << where;
  }
}

TEST(LineScanner, literal_chunks_and_blocks_of_every_size_agree_with_the_reference) {
  std::mt19937 rng(1);
  for (int round = 0; round < 1500; ++round) {
    std::vector<std::string> pats;
    const std::size_t npat = 1 + rng() % 3;
    for (std::size_t k = 0; k < npat; ++k) pats.push_back(random_text(rng, 1 + rng() % 4, "ab"));
    if (round % 50 == 0) pats.push_back("");
    // Newlines dense or sparse: short lines, and lines longer than the blocks.
    const std::string text = random_text(rng, rng() % 120, round % 3 == 0 ? "ab\n" : "aaabbbb\n");
    const auto m = make_matcher(pats, PatternSyntax::literal);
    check_all_setups(text, *m, literal_oracle(pats), rng, "round " + std::to_string(round));
    if (HasFatalFailure()) return;
  }
}

TEST(LineScanner, regex_chunks_and_blocks_of_every_size_agree_with_the_reference) {
  std::mt19937 rng(2);
  const std::vector<std::vector<std::string>> sets{{"a+b"}, {"^b"}, {"a$", "ba"}, {"b[^b]*b"}, {"(ab|ba)a"}, {"^$"}};
  for (int round = 0; round < 300; ++round) {
    const auto& pats = sets[round % sets.size()];
    const std::string text = random_text(rng, rng() % 100, round % 2 ? "ab\n" : "aaabbb\n");
    const auto m = make_matcher(pats, PatternSyntax::regex);
    check_all_setups(text, *m, regex_oracle(pats), rng, "round " + std::to_string(round) + " regex " + pats[0]);
    if (HasFatalFailure()) return;
  }
}

TEST(LineScanner, a_match_across_every_chunk_border_is_found_once) {
  const auto m = make_matcher({"AKIA", "-----BEGIN"}, PatternSyntax::literal);
  for (std::size_t at = 0; at < 40; ++at) {
    const std::string text = std::string(at, 'x') + "AKIA" + std::string(7, 'y') + "-----BEGIN z\nnext\n";
    for (std::size_t chunk = 1; chunk <= 20; ++chunk) {
      for (std::size_t block : {1ul, 3ul, 8ul, 64ul}) {
        auto [count, lines] = chunked(text, *m, ScanMode::matches, Split{chunk, block, 0, false});
        ASSERT_EQ(count, 1u) << "at " << at << " chunk " << chunk << " block " << block;
        ASSERT_EQ(lines.size(), 1u);
        ASSERT_EQ(lines[0].matches.size(), 2u) << lines[0];
        EXPECT_EQ(lines[0].matches[0], std::make_pair(std::uint64_t{at}, 0u));
        EXPECT_EQ(lines[0].matches[1], std::make_pair(std::uint64_t{at + 11}, 1u));
      }
    }
  }
}

TEST(LineScanner, a_chunk_inside_one_long_line_owns_nothing_and_reads_only_its_range) {
  const auto m = make_matcher({"needle"}, PatternSyntax::literal);
  const std::string text = std::string(1000, 'x') + "needle" + std::string(1000, 'x');
  ScanWindow window(64, 5);
  MemorySource src(text);
  LineScratch scratch;
  const ScanResult res =
      scan_lines(*m, ScanOptions{ScanMode::count, true}, window, src, ScanRange{500, 600}, false, nullptr, scratch);
  EXPECT_EQ(res.matching_lines, 0u);
  EXPECT_EQ(res.lines, 0u);
  EXPECT_LE(res.bytes_read, 101u + 64u);  // its range and the byte before, in blocks
}

// A file on disk (FdSource, which may be mapped), open for reading, in a
// TempTree that removes it.
struct TempFile {
  test::TempTree tree;
  int fd = -1;
  explicit TempFile(const std::string& text) {
    tree.write("file", text);
    fd = ::open(tree.path("file").c_str(), O_RDONLY);
    EXPECT_GE(fd, 0);
  }
  ~TempFile() { ::close(fd); }
};

// As chunked(), over a file, the window mapping a very long line or not.
std::pair<std::uint64_t, std::vector<Line>> chunked_file(const std::string& text, const TempFile& file,
                                                         const Matcher& m, ScanMode mode, std::size_t chunk,
                                                         std::size_t block, bool map, bool* mapped) {
  const auto max = m.max_match_length();
  ScanWindow window(block, max && *max > 0 ? *max - 1 : 0, map);
  FdSource src(file.fd, text.size());
  LineScratch scratch;
  Collect sink;
  sink.text = &text;
  std::uint64_t matching = 0;
  const std::uint64_t n = text.empty() ? 1 : (text.size() + chunk - 1) / chunk;
  for (std::uint64_t k = 0; k < n; ++k) {
    ScanRange r{k * chunk, k + 1 == n ? ScanRange::kToEof : (k + 1) * chunk};
    const ScanResult res = scan_lines(m, ScanOptions{mode, true}, window, src, r, false, &sink, scratch);
    *mapped = *mapped || window.mapped();
    matching += res.matching_lines;
    sink.base += res.lines;
  }
  std::vector<Line> lines;
  for (auto& [_, l] : sink.lines) lines.push_back(l);
  return {matching, lines};
}

// A line longer than twice the window is held by mapping the rest of its file
// (ScanWindow::map_rest): the lines, their numbers and their matches are the
// reference's, as with reads, for chunks that start inside it too.
TEST(LineScanner, a_line_longer_than_the_window_is_mapped_and_gives_the_lines_reads_give) {
  std::mt19937 rng(7);
  for (int round = 0; round < 12; ++round) {
    std::string text;
    for (int l = 0; l < 6; ++l) {
      const std::size_t len = rng() % 3 == 0 ? 20'000 + rng() % 60'000 : rng() % 40;
      text += random_text(rng, len, "abcdefgh ");
      if (rng() % 4 == 0) text += "needle";
      text += random_text(rng, rng() % 20, "abc");
      if (l < 5 || round % 2 == 0) text += '\n';
    }
    const TempFile file(text);
    for (const bool regex : {false, true}) {
      const std::vector<std::string> pats = regex ? std::vector<std::string>{"ne+dle", "^abc"}
                                                  : std::vector<std::string>{"needle"};
      const auto m = make_matcher(pats, regex ? PatternSyntax::regex : PatternSyntax::literal);
      const auto want = reference(text, *m, regex ? regex_oracle(pats) : literal_oracle(pats));
      bool mapped_any = false;
      for (const std::size_t chunk : {std::size_t{4096}, std::size_t{50'000}, std::size_t{1} << 30}) {
        for (const std::size_t block : {std::size_t{64}, std::size_t{4096}}) {
          for (const bool map : {true, false}) {
            for (const ScanMode mode : {ScanMode::count, ScanMode::lines, ScanMode::matches}) {
              bool mapped = false;
              auto [count, lines] = chunked_file(text, file, *m, mode, chunk, block, map, &mapped);
              const std::string where = "round " + std::to_string(round) + " regex " + std::to_string(regex) +
                                        " chunk " + std::to_string(chunk) + " block " + std::to_string(block) +
                                        " map " + std::to_string(map) + " mode " + std::to_string(int(mode));
              ASSERT_EQ(count, want.size()) << where;
              if (!map) {
                ASSERT_FALSE(mapped) << where;
              }
              mapped_any = mapped_any || mapped;
              if (mode == ScanMode::count) continue;
              ASSERT_EQ(lines.size(), want.size()) << where;
              for (std::size_t i = 0; i < want.size(); ++i) {
                ASSERT_EQ(lines[i].number, want[i].number) << where;
                ASSERT_EQ(lines[i].offset, want[i].offset) << where;
                ASSERT_EQ(lines[i].text, want[i].text) << where;
                if (mode == ScanMode::matches) {
                  ASSERT_EQ(lines[i].matches, want[i].matches) << where;
                }
              }
            }
          }
        }
      }
      // A regex holds a long line whole (and maps it); literals search it in
      // overlapping windows instead.
      if (regex) {
        EXPECT_TRUE(mapped_any) << "round " << round << ": no scan mapped its long line";
      }
    }
  }
}

// The mapped window: the file's bytes from the window's offset to the end,
// zero padding after them that a matcher may write, refills that only drop.
TEST(LineScanner, a_mapped_window_holds_the_rest_of_the_file_and_writable_zero_padding) {
  std::string text(100'000, 'x');
  for (std::size_t i = 0; i < text.size(); i += 7) text[i] = static_cast<char>('a' + i % 26);
  const TempFile file(text);
  FdSource src(file.fd, text.size());
  ScanWindow window(1024, 0);
  window.reset(0);
  std::size_t kept = 0;
  while (!window.mapped() && !window.eof()) window.refill(src, 0, window.block()), ++kept;
  ASSERT_TRUE(window.mapped()) << "after " << kept << " reads";
  ASSERT_TRUE(window.eof());
  ASSERT_EQ(window.offset(), 0u);
  ASSERT_EQ(window.size(), text.size());
  EXPECT_EQ(std::string_view(window.data(), window.size()), text);
  for (std::size_t i = 0; i < ScanWindow::kPadding; ++i) {
    EXPECT_EQ(window.data()[window.size() + i], '\0');
    window.data()[window.size() + i] = 'p';  // writable (a matcher's padding)
  }
  EXPECT_EQ(window.refill(src, 12'345, window.block()), 0u);
  EXPECT_EQ(window.offset(), 12'345u);
  EXPECT_EQ(std::string_view(window.data(), window.size()), std::string_view(text).substr(12'345));
  // The file itself is untouched by the writes to the private mapping.
  std::string back(text.size(), '\0');
  EXPECT_EQ(::pread(file.fd, back.data(), back.size(), 0), static_cast<ssize_t>(text.size()));
  EXPECT_EQ(back, text);
  // A window that must not map keeps reading.
  ScanWindow reads(1024, 0, false);
  reads.reset(0);
  while (!reads.eof()) reads.refill(src, 0, reads.block());
  EXPECT_FALSE(reads.mapped());
  EXPECT_EQ(std::string_view(reads.data(), reads.size()), text);
  window.reset(0);
  EXPECT_FALSE(window.mapped());
}

TEST(LineScanner, an_empty_file_has_no_lines) {
  const auto m = make_matcher({""}, PatternSyntax::literal);
  ScanWindow window(16, 0);
  MemorySource src("");
  LineScratch scratch;
  const ScanResult res = scan_lines(*m, ScanOptions{ScanMode::count, true}, window, src, ScanRange{}, false, nullptr, scratch);
  EXPECT_EQ(res.matching_lines, 0u);
  EXPECT_EQ(res.lines, 0u);
}

TEST(LineScanner, count_newlines_counts_every_newline_byte) {
  std::mt19937 rng(3);
  for (int round = 0; round < 200; ++round) {
    const std::string s = random_text(rng, rng() % 100, std::string("a\n\x8a\x0b\x09", 5));
    std::uint64_t want = 0;
    for (char c : s) want += c == '\n';
    EXPECT_EQ(count_newlines(s.data(), s.data() + s.size()), want);
  }
}

}  // namespace
}  // namespace line_scanner_test
}  // namespace stealscan

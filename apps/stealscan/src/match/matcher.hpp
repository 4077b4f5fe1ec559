// matcher.hpp: Matcher, what the line scanner asks of a pattern set: "which lines
// of this block hold a match?" and "where are the matches in this line?". Three
// implementations; make_matcher() picks (docs/matching.md, "Choosing an engine"):
// LiteralMatcher (up to 8 fixed strings, our own SIMD pair filter),
// VectorscanMatcher (everything else: many literals, regexes, -i/-w/-x, one pass
// of Vectorscan over the block for the whole set) and RegexMatcher (RE2: the
// exact matches within a line, and the patterns Vectorscan rejects).
//
// Contract shared by both (the line scanner relies on it, docs/design.md "Chunk
// protocol"):
// - A match lies within one line: it never contains '\n' (literal patterns cannot
//   hold one; regexes are compiled so that nothing matches '\n', RE2's never_nl).
// - find(text, from, end) returns the leftmost match starting in [from, end], and
//   for literals, among matches starting at the same byte, the one of the lowest
//   pattern index.
//   Bytes before `from` (down to `text`) are context only: a regex `^` or `\b`
//   sees them, no match starts there.
// - A match may be empty (an empty pattern, a regex like `^`); an empty match
//   may start at `end` itself.
// Matchers are immutable after construction; find() is const and may run on
// several threads at once, but clone() one per worker where the engine keeps
// caches (RE2 does, behind a lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "match/regex_syntax.hpp"

namespace stealscan {

struct Match {
  static constexpr std::uint32_t kSomePattern = UINT32_MAX;

  const char* begin;
  std::uint32_t length;
  // Index into the pattern list given to make_matcher(). A regex find() says
  // kSomePattern (naming it would cost a search per pattern, and only --json,
  // which uses all_in_line(), wants it).
  std::uint32_t pattern;
};

class Matcher {
 public:
  virtual ~Matcher() = default;

  // The leftmost match starting in [from, end] (see the contract above).
  [[nodiscard]] virtual std::optional<Match> find(const char* text, const char* from,
                                                  const char* end) const = 0;

  // The lines of the block [text, end) that hold a match, as offsets of their
  // first byte from `text`, ascending, appended to `out` (cleared first). `text`
  // is a line start; `end` is the end of the last line (not counting its '\n');
  // the lines in between end in '\n'. With `first_only` it may stop after the
  // first. The default walks find() from line to line.
  virtual void matching_lines(const char* text, const char* end, std::vector<std::size_t>& out,
                              bool first_only) const;

  // As matching_lines(), where the caller lends the kWritableAfter bytes after
  // `end` (its own memory, whatever they hold): an engine may write there
  // during the call and puts them back before it returns. Vectorscan then
  // scans the block's end in place, padded, instead of from a copy (a line of
  // 100 MB at the end of a block is not copied, nor searched again by RE2).
  static constexpr std::size_t kWritableAfter = 64;
  virtual void matching_lines_padded(char* text, char* end, std::vector<std::size_t>& out, bool first_only) const {
    matching_lines(text, end, out, first_only);
  }

  // The leftmost match starting in [from, end] inside the line [line, end),
  // leftmost-first among the patterns (the first that matches at that start):
  // what -o prints, one after another. The default asks find() with the line as
  // context.
  [[nodiscard]] virtual std::optional<Match> next_match(const char* line, const char* from, const char* end) const {
    return find(line, from, end);
  }

  // Every match within one line [line, line_end) in order of start, then pattern:
  // appended to `out` (cleared first). Literal patterns report overlapping
  // occurrences (each pattern at each start); a regex reports its own
  // non-overlapping matches. An empty pattern reports one match at the line start.
  virtual void all_in_line(const char* line, const char* line_end, std::vector<Match>& out) const = 0;

  // The longest match possible, in bytes, if bounded (literals); nullopt if a
  // match may be as long as its line (regex), in which case the scanner must
  // hold whole lines in memory.
  [[nodiscard]] virtual std::optional<std::size_t> max_match_length() const = 0;

  // The pattern text, for --json.
  [[nodiscard]] virtual const std::string& pattern(std::uint32_t index) const = 0;

  // An independent copy for another worker thread.
  [[nodiscard]] virtual std::unique_ptr<Matcher> clone() const = 0;
};

// Which engine runs the search (--engine): `automatic` is make_matcher()'s choice
// (docs/matching.md, "Choosing an engine"); the others force one, for comparisons and as an
// escape hatch: `vectorscan` (also for a few plain literals), `re2` (everything on
// RE2, one DFA pass per block).
enum class Engine { automatic, vectorscan, re2 };

// Thrown for a pattern the engine rejects; the message names the pattern.
struct PatternError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A pattern quoted for a message: 'text', or its first 60 bytes and its length
// when it is longer than 80 (a 100,000-byte pattern must not flood the terminal).
std::string quote_pattern(std::string_view pattern);

// Patterns must not contain '\n' (the command line splits them at newlines, as
// grep does); throws PatternError for one that does, for a
// regex RE2 rejects (naming it and RE2's reason) and for one that asks for a '\n'
// (it could only match across lines). An empty list (an empty -f file) gives a
// matcher that matches nothing, as in grep and ripgrep.
std::unique_ptr<Matcher> make_matcher(const std::vector<std::string>& patterns, PatternSyntax syntax,
                                      const MatchFlags& flags = {}, Engine engine = Engine::automatic);

}  // namespace stealscan

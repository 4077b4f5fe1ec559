// matcher.cpp: Matcher's default matching_lines() and make_matcher(), which
// chooses the engine (docs/matching.md, "Choosing an engine").
#include "match/matcher.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "match/literal_matcher.hpp"
#include "match/pair_filter.hpp"
#include "match/regex_matcher.hpp"
#include "match/unicode_syntax.hpp"
#include "match/vectorscan_matcher.hpp"

namespace stealscan {
namespace {
// Plain literal sets up to this size run on the pair filter, larger ones on
// Vectorscan: measured with stealscan_engine_bench over /usr/include headers
// (docs/matching.md, "Choosing an engine"): for 1 to 3 literals the pair filter is as fast
// on rare ones and faster on frequent ones (3x for one, whose many hits cost
// Vectorscan a callback each); with 8 it was 1.9x slower.
constexpr std::size_t kPairFilterPreferred = 3;

// No patterns (an empty -f file): no line matches, so -v selects every line.
class NothingMatcher final : public Matcher {
 public:
  std::optional<Match> find(const char*, const char*, const char*) const override { return std::nullopt; }
  void matching_lines(const char*, const char*, std::vector<std::size_t>& out, bool) const override { out.clear(); }
  void all_in_line(const char*, const char*, std::vector<Match>& out) const override { out.clear(); }
  std::optional<std::size_t> max_match_length() const override { return 0; }
  const std::string& pattern(std::uint32_t) const override {
    throw std::out_of_range("NothingMatcher::pattern: the pattern list is empty");
  }
  std::unique_ptr<Matcher> clone() const override { return std::make_unique<NothingMatcher>(); }
};

// A regex set whose every pattern is one string, run on a literal matcher: its
// lines and next matches are the literals', but all_in_line() reports what a
// regex set does (each pattern's own non-overlapping matches: "aa" once in
// "aaa"), and pattern() the regex as it was written.
class LiteralRegexes final : public Matcher {
 public:
  LiteralRegexes(std::unique_ptr<Matcher> literals, std::vector<std::string> regexes)
      : literals_(std::move(literals)), regexes_(std::move(regexes)) {}

  std::optional<Match> find(const char* text, const char* from, const char* end) const override {
    return literals_->find(text, from, end);
  }
  void matching_lines(const char* text, const char* end, std::vector<std::size_t>& out,
                      bool first_only) const override {
    literals_->matching_lines(text, end, out, first_only);
  }
  void matching_lines_padded(char* text, char* end, std::vector<std::size_t>& out, bool first_only) const override {
    literals_->matching_lines_padded(text, end, out, first_only);
  }
  std::optional<Match> next_match(const char* line, const char* from, const char* end) const override {
    return literals_->next_match(line, from, end);
  }
  void all_in_line(const char* line, const char* line_end, std::vector<Match>& out) const override {
    // The literals report every occurrence, in order of start, then pattern.
    // Grouped by pattern (stably: by start within one), each keeps the ones
    // that start at or after the end of its last one kept; then back in order.
    literals_->all_in_line(line, line_end, out);
    const auto by_start = [](const Match& a, const Match& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.pattern < b.pattern;
    };
    std::stable_sort(out.begin(), out.end(), [](const Match& a, const Match& b) { return a.pattern < b.pattern; });
    std::size_t kept = 0;
    const char* next = line;
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (k == 0 || out[k].pattern != out[k - 1].pattern) next = line;
      if (out[k].begin < next) continue;
      next = out[k].begin + out[k].length;
      out[kept++] = out[k];
    }
    out.resize(kept);
    std::sort(out.begin(), out.end(), by_start);
  }
  std::optional<std::size_t> max_match_length() const override { return literals_->max_match_length(); }
  const std::string& pattern(std::uint32_t index) const override { return regexes_.at(index); }
  std::unique_ptr<Matcher> clone() const override {
    return std::make_unique<LiteralRegexes>(literals_->clone(), regexes_);
  }

 private:
  std::unique_ptr<Matcher> literals_;
  std::vector<std::string> regexes_;
};

}  // namespace

void Matcher::matching_lines(const char* text, const char* end, std::vector<std::size_t>& out,
                             bool first_only) const {
  out.clear();
  const char* from = text;
  while (from <= end) {
    // Context: one byte before `from` (a '\n' after the first line) is all `^`
    // and `\b` need; passing the whole block would let an engine look through
    // it on every call.
    const auto m = find(from == text ? text : from - 1, from, end);
    if (!m) return;
    const auto* prev_nl = static_cast<const char*>(memrchr(from, '\n', static_cast<std::size_t>(m->begin - from)));
    const char* ls = prev_nl != nullptr ? prev_nl + 1 : from;
    out.push_back(static_cast<std::size_t>(ls - text));
    if (first_only) return;
    const auto* next_nl =
        static_cast<const char*>(std::memchr(m->begin, '\n', static_cast<std::size_t>(end - m->begin)));
    if (next_nl == nullptr) return;
    from = next_nl + 1;
  }
}

std::string quote_pattern(std::string_view pattern) {
  // Appended piece by piece: g++ 12 warns (-Wrestrict, a false positive) on
  // "'" + std::string(...) at -O3.
  std::string out(1, '\'');
  if (pattern.size() <= 80) {
    out.append(pattern);
    out.push_back('\'');
    return out;
  }
  out.append(pattern.substr(0, 60));
  out.append("...' (");
  out.append(std::to_string(pattern.size()));
  out.append(" bytes)");
  return out;
}

std::unique_ptr<Matcher> make_matcher(const std::vector<std::string>& patterns, PatternSyntax syntax,
                                      const MatchFlags& given, Engine engine) {
  if (patterns.empty()) return std::make_unique<NothingMatcher>();
  for (const auto& p : patterns)
    if (p.find('\n') != std::string::npos) throw PatternError("pattern " + quote_pattern(p) + " contains a newline");
  // ripgrep's bytes mode, (?-u) at the start of a regex: RE2 has no such flag,
  // so it is taken off and the set matched as bytes; all patterns or none.
  MatchFlags flags = given;
  std::size_t bytes_flagged = 0;
  if (syntax == PatternSyntax::regex)
    for (const auto& p : patterns) bytes_flagged += p.compare(0, 5, "(?-u)") == 0;
  if (bytes_flagged > 0 && bytes_flagged < patterns.size())
    throw PatternError("(?-u) starts some patterns but not all: give it to every pattern, or use --no-unicode");
  if (bytes_flagged > 0) {
    std::vector<std::string> stripped;
    for (const auto& p : patterns) stripped.push_back(p.substr(5));
    flags.unicode = false;
    return make_matcher(stripped, syntax, flags, engine);
  }
  // Unicode mode reads the patterns as UTF-8; a set with one that is not
  // (bytes from a -f file) is matched as bytes, as its author wrote it.
  for (const auto& p : patterns) flags.unicode = flags.unicode && is_utf8(p);
  // Where Unicode folding reaches past ASCII (-i with k, s or a non-ASCII
  // letter), the literal engines' ASCII folding would miss matches.
  const auto folds_wide = [&](const std::string& literal) {
    return flags.unicode && flags.ignore_case && folds_beyond_ascii(literal);
  };
  // A set of regexes that are each one non-empty string runs as that set of
  // literals, on the literal engines' fast paths (rg's choice too), with a
  // regex's columns. (An empty regex matches at every byte, an empty literal
  // once a line: such a set stays a regex.)
  if (syntax == PatternSyntax::regex && engine != Engine::re2) {
    std::vector<std::string> literals;
    literals.reserve(patterns.size());
    for (const auto& p : patterns) {
      auto l = literal_of_regex(p);
      if (!l || l->empty() || folds_wide(*l)) break;
      literals.push_back(std::move(*l));
    }
    if (literals.size() == patterns.size())
      return std::make_unique<LiteralRegexes>(make_matcher(literals, PatternSyntax::literal, flags, engine), patterns);
  }
  if (engine == Engine::re2) {
    std::vector<EngineForms> forms;
    for (const auto& p : patterns) {
      if (syntax == PatternSyntax::regex) check_regex(p, flags);
      forms.push_back(engine_forms(p, syntax, flags));
    }
    std::vector<std::string> regexes;
    const int group = re2_texts(forms, regexes);
    return std::make_unique<RegexMatcher>(patterns, std::move(regexes), flags, syntax, true, group);
  }
  const bool plain = !flags.ignore_case && !flags.word && !flags.line;
  if (syntax == PatternSyntax::literal && plain && engine == Engine::automatic) {
    std::size_t nonempty = 0;
    for (const auto& p : patterns) nonempty += !p.empty();
    static_assert(kPairFilterPreferred <= kPairFilterMaxPatterns);
    if (nonempty <= kPairFilterPreferred) return std::make_unique<LiteralMatcher>(patterns);
  }
  return std::make_unique<VectorscanMatcher>(patterns, syntax, flags);
}

}  // namespace stealscan

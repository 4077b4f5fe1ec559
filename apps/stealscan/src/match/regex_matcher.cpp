// regex_matcher.cpp: RegexMatcher (regex_matcher.hpp).
#include "match/regex_matcher.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "match/re2_text.hpp"

namespace stealscan {
namespace {

// Through re2_text() (re2_text.hpp): ASCII-only folding, and RE2 20220601's
// Latin-1 alternation bug kept away.
std::unique_ptr<RE2> compile(const std::string& text, const std::string& shown, const RE2::Options& o) {
  auto re = std::make_unique<RE2>(re2_text(text, !o.case_sensitive()), o);
  if (!re->ok()) {
    // RE2 names the offending part (error_arg); say where it starts.
    std::string where;
    const bool part = !re->error_arg().empty() && re->error_arg().size() < shown.size();
    const std::size_t at = part ? shown.find(re->error_arg()) : std::string::npos;
    if (at != std::string::npos) where = " at offset " + std::to_string(at);
    std::string reason = re->error();
    if (reason.size() > 160) reason = reason.substr(0, 120) + "...";
    throw PatternError("invalid regex " + quote_pattern(shown) + where + ": " + reason);
  }
  return re;
}

}  // namespace

RE2::Options RegexMatcher::options(const MatchFlags& flags) {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);  // bytes, as grep in the C locale
  o.set_log_errors(false);                       // errors are reported by us, naming the pattern
  o.set_max_mem(64 << 20);                       // room for a large alternation's DFA
  o.set_never_nl(true);                          // a match never crosses a line end
  o.set_case_sensitive(!flags.ignore_case);
  return o;
}

void check_regex(const std::string& regex, const MatchFlags& flags) {
  if (regex.find('\n') != std::string::npos) throw PatternError("pattern " + quote_pattern(regex) + " contains a newline");
  compile(regex, regex, RegexMatcher::options(flags));
  if (const auto at = newline_literal_at(regex))
    throw PatternError("invalid regex " + quote_pattern(regex) + ": it asks for a line end (\\n) at offset " +
                       std::to_string(*at) + ", and a match never spans lines");
}

RegexMatcher::RegexMatcher(std::vector<std::string> shown, std::vector<std::string> regexes, const MatchFlags& flags,
                           PatternSyntax syntax, bool columns)
    : shown_(std::move(shown)),
      regexes_(std::move(regexes)),
      flags_(flags),
      group_(match_group(flags)),
      literal_(syntax == PatternSyntax::literal),
      columns_(columns) {
  if (shown_.empty()) throw PatternError("no pattern given");
  all_ = "(?m)";
  for (std::size_t k = 0; k < regexes_.size(); ++k) all_ += (k == 0 ? "(?:" : "|(?:") + regexes_[k] + ")";
  // The alternation is compiled here, so that a bad one is an error at start-up,
  // not in a worker; if it fails, the pattern at fault is named (compiled alone).
  // Each program of each_ waits until all_in_line() needs it.
  try {
    any();
  } catch (const PatternError&) {
    for (std::size_t k = 0; k < regexes_.size(); ++k) compile("(?m)" + regexes_[k], shown_[k], options(flags_));
    throw;  // each is fine alone: the alternation is too large
  }
  if (columns_) each_.resize(regexes_.size());
}

RegexMatcher::RegexMatcher(const RegexMatcher& other)
    : Matcher(other),
      shown_(other.shown_),
      regexes_(other.regexes_),
      flags_(other.flags_),
      group_(other.group_),
      literal_(other.literal_),
      columns_(other.columns_),
      all_(other.all_),
      each_(other.each_.size()) {}

const RE2& RegexMatcher::any() const {
  if (!any_) any_ = compile(all_, all_, options(flags_));
  return *any_;
}

const RE2& RegexMatcher::each(std::uint32_t k) const {
  if (!each_[k]) each_[k] = compile("(?m)" + regexes_[k], shown_[k], options(flags_));
  return *each_[k];
}

std::optional<Match> RegexMatcher::find(const char* text, const char* from, const char* end) const {
  const re2::StringPiece t(text, static_cast<std::size_t>(end - text));
  re2::StringPiece m;
  if (!any().Match(t, static_cast<std::size_t>(from - text), t.size(), RE2::UNANCHORED, &m, 1)) return std::nullopt;
  return Match{m.data(), static_cast<std::uint32_t>(m.size()), Match::kSomePattern};
}

std::optional<re2::StringPiece> RegexMatcher::first_from(std::uint32_t k, re2::StringPiece t, std::size_t from) const {
  // With -w a match begins one byte before its word (the leading non-word byte),
  // so it may begin at from - 1; a word that starts before `from` is passed over.
  std::size_t pos = group_ == 0 || from == 0 ? from : from - 1;
  re2::StringPiece m[2];
  while (pos <= t.size() && each(k).Match(t, pos, t.size(), RE2::UNANCHORED, m, group_ + 1)) {
    if (static_cast<std::size_t>(m[group_].data() - t.data()) >= from) return m[group_];
    if (group_ == 1 && m[0].data() == t.data() && m[1].data() == t.data()) {
      // The line-start alternative of -w's prefix won at byte 0. The other one
      // (byte 0 itself as the non-word byte before a word at 1) starts there
      // too, and RE2 gives only the first; past byte 0, line_start_less()'s
      // program, which has only the other, answers for a match starting at 0.
      re2::StringPiece w[2];
      if (line_start_less(k).Match(t, 0, t.size(), RE2::ANCHOR_START, w, 2) &&
          static_cast<std::size_t>(w[1].data() - t.data()) >= from)
        return w[1];
    }
    pos = static_cast<std::size_t>(m[0].data() - t.data()) + 1;
  }
  return std::nullopt;
}

const RE2& RegexMatcher::line_start_less(std::uint32_t k) const {
  if (line_start_less_.empty()) line_start_less_.resize(regexes_.size());
  if (!line_start_less_[k]) {
    // -w's regex with [^\w\n] in place of its prefix (regex_syntax.hpp, kWordBefore).
    const std::string& r = regexes_[k];
    if (r.compare(0, kWordBefore.size(), kWordBefore) != 0)
      throw std::logic_error("RegexMatcher: a -w regex without with_match_flags()'s prefix: " + r);
    line_start_less_[k] = compile("(?m)[^\\w\\n]" + r.substr(kWordBefore.size()), shown_[k], options(flags_));
  }
  return *line_start_less_[k];
}

std::optional<Match> RegexMatcher::next_match(const char* line, const char* from, const char* end) const {
  if (group_ == 0 || each_.empty()) return find(line, from, end);
  // The word group of each pattern: the leftmost start wins, the lowest index
  // among equal starts (the alternation's order).
  const re2::StringPiece t(line, static_cast<std::size_t>(end - line));
  std::optional<Match> best;
  for (std::uint32_t k = 0; k < each_.size(); ++k) {
    const std::optional<re2::StringPiece> g = first_from(k, t, static_cast<std::size_t>(from - line));
    if (g && (!best || g->data() < best->begin)) best = Match{g->data(), static_cast<std::uint32_t>(g->size()), k};
  }
  return best;
}

void RegexMatcher::all_in_line(const char* line, const char* line_end, std::vector<Match>& out) const {
  out.clear();
  const re2::StringPiece t(line, static_cast<std::size_t>(line_end - line));
  for (std::uint32_t k = 0; k < each_.size(); ++k) {
    // From the line start: a regex's non-overlapping matches, each search going
    // on after the last match (an empty one: one byte on; with -w from the
    // word's end, so the byte after it may start the next match). A literal's
    // every occurrence: one byte after the last one's start (an empty literal:
    // once, at the line start), as LiteralMatcher reports them.
    std::size_t from = 0;
    while (from <= t.size()) {
      const std::optional<re2::StringPiece> g = first_from(k, t, from);
      if (!g) break;
      out.push_back(Match{g->data(), static_cast<std::uint32_t>(g->size()), k});
      const auto g_begin = static_cast<std::size_t>(g->data() - line);
      if (literal_) {
        if (g->empty()) break;
        from = g_begin + 1;
      } else {
        from = g->empty() ? g_begin + 1 : g_begin + g->size();
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Match& a, const Match& b) { return a.begin < b.begin; });
}

}  // namespace stealscan

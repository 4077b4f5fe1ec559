// regex_matcher.cpp: RegexMatcher (regex_matcher.hpp).
#include "match/regex_matcher.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "match/re2_text.hpp"
#include "match/unicode_syntax.hpp"

namespace stealscan {
namespace {

// Through re2_text() (re2_text.hpp): ASCII-only folding, and RE2 20220601's
// Latin-1 alternation bug kept away.
std::unique_ptr<RE2> compile(const std::string& text, const std::string& shown, const RE2::Options& o) {
  auto re = std::make_unique<RE2>(o.encoding() == RE2::Options::EncodingUTF8 ? re2_text_utf8(text)
                                                                             : re2_text(text, !o.case_sensitive()),
                                  o);
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
  // Bytes, as grep in the C locale; or code points (Unicode mode).
  o.set_encoding(flags.unicode ? RE2::Options::EncodingUTF8 : RE2::Options::EncodingLatin1);
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
                           PatternSyntax syntax, bool columns, int group)
    : shown_(std::move(shown)),
      regexes_(std::move(regexes)),
      flags_(flags),
      group_(group >= 0 ? group : match_group(flags)),
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
  if (flags_.unicode && group_ == 1) {
    for (const std::string& r : regexes_) {
      std::string_view body = r;
      Edges e;
      if (body.substr(0, kBoundaryBeforeUnicode.size()) == kBoundaryBeforeUnicode) {
        e.before = true;
        body.remove_prefix(kBoundaryBeforeUnicode.size());
      }
      if (body.size() >= kBoundaryAfterUnicode.size() &&
          body.substr(body.size() - kBoundaryAfterUnicode.size()) == kBoundaryAfterUnicode) {
        e.after = true;
        body.remove_suffix(kBoundaryAfterUnicode.size());
      }
      edges_.push_back(e);
      bare_.emplace_back(body);
    }
    bare_re_.resize(regexes_.size());
  }
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
      each_(other.each_.size()),
      edges_(other.edges_),
      bare_(other.bare_),
      bare_re_(other.bare_re_.size()) {}

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
  std::optional<Match> strict;
  if (any().Match(t, static_cast<std::size_t>(from - text), t.size(), RE2::UNANCHORED, &m, 1))
    strict = Match{m.data(), static_cast<std::uint32_t>(m.size()), Match::kSomePattern};
  if (edges_.empty()) return strict;
  return find_beside_invalid(text, from, end, strict);
}

bool RegexMatcher::line_is_utf8(re2::StringPiece t) const {
  if (t.data() != checked_line_ || t.size() != checked_size_) {
    checked_line_ = t.data();
    checked_size_ = t.size();
    checked_utf8_ = is_utf8(std::string_view(t.data(), t.size()));
  }
  return checked_utf8_;
}

std::optional<re2::StringPiece> RegexMatcher::first_from_bare(std::uint32_t k, re2::StringPiece t,
                                                              std::size_t from) const {
  if (!bare_re_[k]) bare_re_[k] = compile("(?m)" + bare_[k], shown_[k], options(flags_));
  const std::string_view line(t.data(), t.size());
  re2::StringPiece m[2];
  for (std::size_t pos = from; pos <= t.size() && bare_re_[k]->Match(t, pos, t.size(), RE2::UNANCHORED, m, 2);) {
    const auto b = static_cast<std::size_t>(m[1].data() - t.data());
    if ((!edges_[k].before || !word_char_at(line, b, true)) &&
        (!edges_[k].after || !word_char_at(line, b + m[1].size(), false)))
      return m[1];
    pos = static_cast<std::size_t>(m[0].data() - t.data()) + 1;
  }
  return std::nullopt;
}

std::optional<Match> RegexMatcher::find_beside_invalid(const char* text, const char* from, const char* end,
                                                       std::optional<Match> strict) const {
  // The lines from `from`'s to the strict match's (or the end): one that is
  // not valid UTF-8 may hold an earlier match the wrappers missed. Each is
  // read once per call, and the caller's next call starts past the match:
  // linear over a block.
  const char* stop = end;
  if (strict) {
    const auto* nl = static_cast<const char*>(std::memchr(strict->begin, '\n', static_cast<std::size_t>(end - strict->begin)));
    stop = nl != nullptr ? nl : end;
  }
  const auto* prev = static_cast<const char*>(memrchr(text, '\n', static_cast<std::size_t>(from - text)));
  for (const char* ls = prev != nullptr ? prev + 1 : text; ls <= stop;) {
    const auto* nl = static_cast<const char*>(std::memchr(ls, '\n', static_cast<std::size_t>(end - ls)));
    const char* le = nl != nullptr ? nl : end;
    const re2::StringPiece line(ls, static_cast<std::size_t>(le - ls));
    if (!line_is_utf8(line)) {
      const std::size_t at = from > ls ? static_cast<std::size_t>(from - ls) : 0;
      std::optional<Match> best;
      for (std::uint32_t k = 0; k < edges_.size(); ++k) {
        if (!edges_[k].before && !edges_[k].after) continue;  // the strict search is exact for it
        const auto g = first_from_bare(k, line, at);
        if (g && (!best || g->data() < best->begin)) best = Match{g->data(), static_cast<std::uint32_t>(g->size()), k};
      }
      if (best && (!strict || best->begin < strict->begin)) return best;
    }
    if (nl == nullptr) break;
    ls = nl + 1;
  }
  return strict;
}

std::optional<re2::StringPiece> RegexMatcher::first_from(std::uint32_t k, re2::StringPiece t, std::size_t from) const {
  if (!edges_.empty() && (edges_[k].before || edges_[k].after) && !line_is_utf8(t)) return first_from_bare(k, t, from);
  // With -w a match begins one byte before its word (the leading non-word byte),
  // so it may begin at from - 1; a word that starts before `from` is passed over.
  std::size_t pos = group_ == 0 || from == 0 ? from : from - 1;
  re2::StringPiece m[2];
  while (pos <= t.size() && each(k).Match(t, pos, t.size(), RE2::UNANCHORED, m, group_ + 1)) {
    if (static_cast<std::size_t>(m[group_].data() - t.data()) >= from) return m[group_];
    if (group_ == 1 && m[0].data() == t.data() && m[1].data() == t.data() && line_start_less(k) != nullptr) {
      // The line-start alternative of -w's prefix won at byte 0. The other one
      // (byte 0 itself as the non-word byte before a word at 1) starts there
      // too, and RE2 gives only the first; past byte 0, line_start_less()'s
      // program, which has only the other, answers for a match starting at 0.
      re2::StringPiece w[2];
      if (line_start_less(k)->Match(t, 0, t.size(), RE2::ANCHOR_START, w, 2) &&
          static_cast<std::size_t>(w[1].data() - t.data()) >= from)
        return w[1];
    }
    pos = static_cast<std::size_t>(m[0].data() - t.data()) + 1;
  }
  return std::nullopt;
}

const RE2* RegexMatcher::line_start_less(std::uint32_t k) const {
  if (line_start_less_.empty()) line_start_less_.resize(regexes_.size());
  if (!line_start_less_[k]) {
    // -w's regex with its prefix's other alternative alone (regex_syntax.hpp,
    // kWordBefore, kWordBeforeUnicode): [^\w\n], or Unicode's. A pattern
    // without the prefix (a set where only another has -w's wrappers) has none.
    const std::string& r = regexes_[k];
    std::string_view prefix = flags_.unicode ? kWordBeforeUnicode : kWordBefore;
    if (flags_.unicode && r.compare(0, prefix.size(), prefix) != 0) prefix = kBoundaryBeforeUnicode;
    if (r.compare(0, prefix.size(), prefix) != 0) return nullptr;
    // "(?:^|" + the class + ")": the class alone.
    const std::string_view cls = prefix.substr(5, prefix.size() - 6);
    line_start_less_[k] = compile("(?m)" + std::string(cls) + r.substr(prefix.size()), shown_[k], options(flags_));
  }
  return line_start_less_[k].get();
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

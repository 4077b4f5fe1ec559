// regex_matcher.cpp: RegexMatcher (regex_matcher.hpp) and make_matcher().
#include "match/regex_matcher.hpp"

#include <algorithm>
#include <cstring>

#include "match/literal_matcher.hpp"

namespace stealscan {
namespace {

RE2::Options regex_options() {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);  // bytes, as grep in the C locale
  o.set_log_errors(false);                       // errors are reported by us, naming the pattern
  o.set_max_mem(64 << 20);                       // room for a large alternation's DFA
  return o;
}

std::unique_ptr<RE2> compile(const std::string& text, const std::string& shown) {
  auto re = std::make_unique<RE2>(text, regex_options());
  if (!re->ok()) throw PatternError("invalid regex '" + shown + "': " + re->error());
  return re;
}

}  // namespace

RegexMatcher::RegexMatcher(std::vector<std::string> patterns) : patterns_(std::move(patterns)) {
  if (patterns_.empty()) throw PatternError("no pattern given");
  std::string all = "(?m)";
  for (std::size_t k = 0; k < patterns_.size(); ++k) {
    const std::string& p = patterns_[k];
    if (p.find('\n') != std::string::npos) throw PatternError("pattern '" + p + "' contains a newline");
    compile(p, p);  // alone first: an error then names the user's text, not our (?m)
    each_.push_back(compile("(?m)" + p, p));
    all += (k == 0 ? "(?:" : "|(?:") + p + ")";
  }
  any_ = compile(all, all);
}

std::optional<Match> RegexMatcher::find(const char* text, const char* from, const char* end) const {
  const re2::StringPiece t(text, static_cast<std::size_t>(end - text));
  std::size_t pos = static_cast<std::size_t>(from - text);
  re2::StringPiece m;
  while (pos <= t.size()) {
    if (!any_->Match(t, pos, t.size(), RE2::UNANCHORED, &m, 1)) return std::nullopt;
    if (std::memchr(m.data(), '\n', m.size()) == nullptr)
      return Match{m.data(), static_cast<std::uint32_t>(m.size()), Match::kSomePattern};
    // Crossed a line end: search the line where it starts on its own (`text` stays
    // the context, so `^`, `$` and `\b` see the real neighbours).
    const std::size_t start = static_cast<std::size_t>(m.data() - text);
    const char* nl = static_cast<const char*>(std::memchr(m.data(), '\n', m.size()));
    const std::size_t line_end = static_cast<std::size_t>(nl - text);
    if (any_->Match(t, start, line_end, RE2::UNANCHORED, &m, 1))
      return Match{m.data(), static_cast<std::uint32_t>(m.size()), Match::kSomePattern};
    pos = line_end + 1;
  }
  return std::nullopt;
}

void RegexMatcher::all_in_line(const char* line, const char* line_end, std::vector<Match>& out) const {
  out.clear();
  const re2::StringPiece t(line, static_cast<std::size_t>(line_end - line));
  re2::StringPiece m;
  for (std::uint32_t k = 0; k < each_.size(); ++k) {
    std::size_t pos = 0;
    while (pos <= t.size() && each_[k]->Match(t, pos, t.size(), RE2::UNANCHORED, &m, 1)) {
      out.push_back(Match{m.data(), static_cast<std::uint32_t>(m.size()), k});
      const std::size_t end = static_cast<std::size_t>(m.data() - line) + m.size();
      pos = m.empty() ? end + 1 : end;  // an empty match: step over one byte
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Match& a, const Match& b) { return a.begin < b.begin; });
}

std::unique_ptr<Matcher> make_matcher(const std::vector<std::string>& patterns, PatternSyntax syntax) {
  if (syntax == PatternSyntax::regex) return std::make_unique<RegexMatcher>(patterns);
  return std::make_unique<LiteralMatcher>(patterns);
}

}  // namespace stealscan

// detector.cpp: Detector (detector.hpp; ../README.md, "Matching").
#include "secrets/detect/detector.hpp"

#include <algorithm>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "secrets/detect/entropy.hpp"
#include "secrets/detect/generic_findings.hpp"
#include "secrets/detect/line_index.hpp"
#include "match/regex_syntax.hpp"

namespace stealscan::secrets {
namespace {

std::vector<std::vector<std::string>> keywords_of(const RuleSet& rules) {
  std::vector<std::vector<std::string>> out;
  for (const Rule& r : rules.rules) out.push_back(r.keywords);
  return out;
}

std::vector<std::string> regexes_of(const RuleSet& rules) {
  std::vector<std::string> out;
  for (const Rule& r : rules.rules) out.push_back(r.regex);
  return out;
}

// The regexes a prefilter is offered: those of the rules without keywords
// (`all` false: the rules with keywords are already run only where those
// are), or every rule's.
std::vector<std::string> prefilter_regexes(const RuleSet& rules, bool on, bool all) {
  std::vector<std::string> out(rules.rules.size());
  if (!on) return out;
  for (std::size_t r = 0; r < rules.rules.size(); ++r)
    if (all || rules.rules[r].keywords.empty()) out[r] = rules.rules[r].regex;
  return out;
}

// The lines in both `a` and `b` (each sorted, disjoint runs of whole lines),
// into `out`: runs of whole lines again, since the larger of two lines'
// starts is a line's start and the smaller of two lines' ends a line's end.
void intersect(const std::vector<LineSpan>& a, const std::vector<LineSpan>& b, std::vector<LineSpan>& out) {
  out.clear();
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const std::size_t begin = std::max(a[i].begin, b[j].begin);
    const std::size_t end = std::min(a[i].end, b[j].end);
    if (begin <= end) out.push_back(LineSpan{begin, end});
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
}

}  // namespace

// A rule compiled. Its regex is compiled on first use (most rules never see
// their keyword in a small scan, and compiling all of them was most of the
// start-up); std::call_once makes that safe from any worker and publishes the
// regex and its group to every later caller.
struct Detector::Compiled {
  explicit Compiled(const Rule* r)
      : rule(r),
        newline_last(newline_only_last(r->regex)),
        single_line(newline_last || !may_match_newline(r->regex)) {}
  const Rule* rule;
  // A match of the regex holds a '\n' only as its last byte, its line's
  // newline (regex_syntax.hpp): a line is searched with its newline.
  bool newline_last;
  // No match of the regex can hold a '\n' but as newline_last allows (a
  // conservative answer: false may be wrong, true is a promise): it can be
  // searched one line at a time.
  bool single_line;
  std::unique_ptr<RE2> path;  // null: any file
  std::vector<AllowlistCheck> allowlists;
  std::vector<const AllowlistCheck*> global;  // the global allowlists that target this rule
  std::vector<const Compiled*> required;      // rule->required's rules, in order

  // The rule's regex; throws ConfigError for a bad one (see the constructor).
  const RE2& regex() const {
    std::call_once(once_, [this] {
      auto re = compile_config_regex(rule->regex, rule->where, "regex");
      const int groups = re->NumberOfCapturingGroups();
      if (rule->secret_group && *rule->secret_group > groups)
        throw ConfigError(rule->where + ": 'secretGroup' is " + std::to_string(*rule->secret_group) +
                          " but 'regex' has " + std::to_string(groups) + " capture group" + (groups == 1 ? "" : "s"));
      group_ = rule->secret_group.value_or(groups >= 1 ? 1 : 0);
      regex_ = std::move(re);
    });
    return *regex_;
  }
  // The secret's capture group (0: the whole match); after regex().
  int group() const noexcept { return group_; }

 private:
  mutable std::once_flag once_;
  mutable std::unique_ptr<RE2> regex_;
  mutable int group_ = 0;
};

Detector::Detector(RuleSet rules, DetectorOptions options)
    : rules_(std::move(rules)),
      keywords_(keywords_of(rules_), options.cache, regexes_of(rules_)),
      prefilter_(prefilter_regexes(rules_, options.regex_prefilter, false), options.cache),
      all_(prefilter_regexes(rules_, options.regex_prefilter, true), options.cache, options.prefilter_all_after),
      prefilter_all_(options.regex_prefilter),
      inline_allows_(options.inline_allows),
      decode_depth_(options.decode_depth),
      keyword_scope_(options.keyword_scope) {
  std::unordered_map<std::string_view, std::size_t> by_id;
  for (const Rule& r : rules_.rules) {
    by_id.emplace(r.id, compiled_.size());
    Compiled& c = compiled_.emplace_back(&r);
    if (!r.path.empty()) c.path = compile_config_regex(r.path, r.where, "path");
    for (const Allowlist& a : r.allowlists) c.allowlists.emplace_back(a);
  }
  for (Compiled& c : compiled_)
    for (const Required& q : c.rule->required) {
      const auto it = by_id.find(q.id);
      if (it == by_id.end()) throw ConfigError(c.rule->where + ": required 'id' names no rule: \"" + q.id + "\"");
      c.required.push_back(&compiled_[it->second]);
    }
  if (options.compile_now) compile_all();
  global_.reserve(rules_.allowlists.size());
  for (const Allowlist& a : rules_.allowlists) global_.emplace_back(a);
  for (std::size_t g = 0; g < rules_.allowlists.size(); ++g) {
    const Allowlist& a = rules_.allowlists[g];
    if (a.target_rules.empty()) {
      for (Compiled& c : compiled_) c.global.push_back(&global_[g]);
      continue;
    }
    for (const std::string& id : a.target_rules) {
      const auto it = by_id.find(id);
      if (it == by_id.end()) throw ConfigError(a.where + ": 'targetRules' names no rule: \"" + id + "\"");
      compiled_[it->second].global.push_back(&global_[g]);
    }
  }
}

Detector::~Detector() = default;

void Detector::compile_all() const {
  for (const Compiled& c : compiled_)
    if (!c.rule->regex.empty()) (void)c.regex();
}

bool Detector::allowed(const Compiled& rule, const Candidate& c) const {
  const auto allows = [&](const AllowlistCheck* a) { return a->allows(c); };
  for (const AllowlistCheck& a : rule.allowlists)
    if (a.allows(c)) return true;
  return std::any_of(rule.global.begin(), rule.global.end(), allows);
}

void Detector::scan(std::string_view path, std::string_view text, Scratch& s, std::vector<Finding>& out,
                    std::string_view commit) const {
  const RegexPrefilter* all = prefilter_all_ ? all_.offer(text.size()) : nullptr;
  if (all != nullptr && s.all_ == nullptr) s.all_ = std::make_unique<RegexPrefilter::Scratch>(*all);
  const Prefilter pf = all == nullptr ? Prefilter{&prefilter_, &s.prefilter_} : Prefilter{all, s.all_.get()};
  const std::size_t before = out.size();
  scan_layers(path, commit, text, pf, s, out);
  drop_generic_repeats(out, before);
}

void Detector::scan_layers(std::string_view path, std::string_view commit, std::string_view text,
                           const Prefilter& pf, Scratch& s, std::vector<Finding>& out) const {
  scan_layer(path, commit, text, nullptr, pf, s, out);
  if (decode_depth_ == 0) return;
  // Decoding passes, each over the text the one before left, with what it
  // decoded spliced in (decode_splice.hpp), until nothing decodes.
  std::optional<LineIndex> index;
  std::optional<InlineAllows> file_lines;
  s.file_pieces_.assign(1, SplicedText::Piece{0, text.size(), 0, text.size(), false, 0, 0});
  for (unsigned pass = 1; pass <= decode_depth_; ++pass) {
    const bool decoded = pass == 1 ? decode_pass(text, s.file_pieces_, pass, s.next_, s.decode_)
                                   : decode_pass(s.cur_.text, s.cur_.pieces, pass, s.next_, s.decode_);
    if (!decoded) break;
    if (!index) {
      index.emplace(text);
      file_lines.emplace(*index);
    }
    const Blob placement{&*file_lines, &s.next_, pass};
    scan_layer(path, commit, s.next_.text, &placement, pf, s, out);
    std::swap(s.cur_, s.next_);
  }
  // A large file's decoded copies are not kept.
  constexpr std::size_t kKept = std::size_t{4} << 20;
  if (s.cur_.text.capacity() > kKept) s.cur_ = SplicedText{};
  if (s.next_.text.capacity() > kKept) s.next_ = SplicedText{};
}

// One layer: the file's bytes (blob null), or a decoding pass's text.
void Detector::scan_layer(std::string_view path, std::string_view commit, std::string_view text, const Blob* blob,
                          const Prefilter& pf, Scratch& s, std::vector<Finding>& out) const {
  keywords_.rules_for(text, s.keywords_, s.rules_);
  LineIndex index(text);
  InlineAllows lines(index);
  s.line_verdicts_.clear();  // keyed by where lines are: this text's only
  bool prefiltered = false, prefilter_ok = false;
  for (const std::size_t r : s.rules_) {
    const Compiled& c = compiled_[r];
    if (c.rule->skip_report) continue;  // found only as a composite rule's part
    if (c.path != nullptr && !RE2::PartialMatch(path, *c.path)) continue;
    const std::size_t before = out.size();
    // Its findings into `out`; then, for a composite rule, only those with their parts nearby.
    const auto finish = [&] {
      if (!c.required.empty() && out.size() > before)
        keep_composite(c, path, commit, text, lines, blob, before, s, out);
    };
    if (c.rule->regex.empty()) {
      if (blob != nullptr) continue;  // the file was found by its path already
      // A path-only rule: the file itself is the finding.
      const Candidate cand{path, {}, {}, {}, commit};
      if (allowed(c, cand)) continue;
      Finding f;
      f.rule = c.rule;
      f.file = path;
      f.match = "file detected: " + std::string(path);
      out.push_back(std::move(f));
      finish();
      continue;
    }
    const bool keyword_lines = keyword_scope_ == KeywordScope::line && keywords_.has_keywords(r);
    if (pf.filter->covers(r)) {
      // One Vectorscan scan for every such rule, on the first that asks.
      if (!prefiltered) {
        prefiltered = true;
        prefilter_ok = prefilter(text, pf, s);
      }
      if (prefilter_ok) {
        const std::vector<LineSpan>& where = pf.filter->lines_for(r, *pf.scratch);
        if (where.empty()) continue;  // no finding: nothing to keep or drop
        if (!keyword_lines) {
          scan_rule(c, path, commit, text, lines, blob, &where, s, out);
        } else if (c.single_line) {
          intersect(where, keywords_.lines_for(r, s.keywords_), s.both_);
          if (!s.both_.empty()) scan_rule(c, path, commit, text, lines, blob, &s.both_, s, out);
        } else {
          // It may match somewhere (`where` is the whole text): kept where it
          // covers a keyword's line, as without the prefilter.
          scan_rule(c, path, commit, text, lines, blob, &keywords_.lines_for(r, s.keywords_), s, out);
        }
        finish();
        continue;
      }
    }
    scan_rule(c, path, commit, text, lines, blob, keyword_lines ? &keywords_.lines_for(r, s.keywords_) : nullptr, s,
              out);
    finish();
  }
}

bool Detector::prefilter(std::string_view text, const Prefilter& pf, Scratch& s) const {
  // With every rule it covers searched only on its keywords' lines, the
  // prefilter need read only those lines: a few percent of most source
  // code. A rule whose match may span lines but is at most so many bytes
  // long needs the lines around its keywords' lines that far. A covered rule
  // without keywords (it runs everywhere) needs the whole text, and so does
  // one whose match may span lines without bound (it may cover a keyword's
  // line from anywhere), and a file whose keyword lines are most of it.
  const RegexPrefilter& filter = *pf.filter;
  if (keyword_scope_ == KeywordScope::line &&
      std::all_of(s.rules_.begin(), s.rules_.end(), [&](std::size_t r) {
        return !filter.covers(r) || (keywords_.has_keywords(r) && filter.reach(r) != RegexPrefilter::kUnbounded);
      })) {
    keywords_.all_lines(s.keywords_, s.any_keyword_);
    for (const std::size_t r : s.rules_)
      if (filter.covers(r) && filter.reach(r) != RegexPrefilter::kOneLine)
        widen(text, keywords_.lines_for(r, s.keywords_), filter.reach(r), s.any_keyword_);
    normalize(s.any_keyword_);
    std::size_t bytes = 0;
    for (const LineSpan& l : s.any_keyword_) bytes += l.end - l.begin + 1;
    if (bytes < text.size() / 2) return pf.filter->scan_lines(text, s.any_keyword_, *pf.scratch);
  }
  return pf.filter->scan(text, *pf.scratch);
}

void Detector::keep_composite(const Compiled& c, std::string_view path, std::string_view commit,
                              std::string_view text, InlineAllows& lines, const Blob* blob, std::size_t from,
                              Scratch& s, std::vector<Finding>& out) const {
  // Each part's findings over the whole text (a path-only part: none).
  std::vector<std::vector<Finding>> parts(c.required.size());
  for (std::size_t k = 0; k < c.required.size(); ++k) {
    const Compiled& q = *c.required[k];
    if (q.rule->regex.empty() || (q.path != nullptr && !RE2::PartialMatch(path, *q.path))) continue;
    scan_rule(q, path, commit, text, lines, blob, nullptr, s, parts[k]);
  }
  // Each part's findings in line order (they come in rule order, which is
  // text order but for decoding passes).
  for (std::vector<Finding>& p : parts)
    std::stable_sort(p.begin(), p.end(), [](const Finding& a, const Finding& b) { return a.start_line < b.start_line; });
  const auto distance = [](std::uint64_t a, std::uint64_t b) { return a > b ? a - b : b - a; };
  std::vector<std::size_t> near;
  std::size_t kept = from;
  for (std::size_t i = from; i < out.size(); ++i) {
    Finding& f = out[i];
    bool all = true;
    for (std::size_t k = 0; k < c.required.size() && all; ++k) {
      const Required& want = c.rule->required[k];
      const std::vector<Finding>& found = parts[k];
      const auto within = [&](const Finding& p) {
        return (!want.within_lines || distance(p.start_line, f.start_line) <= static_cast<std::uint64_t>(*want.within_lines)) &&
               (!want.within_columns ||
                distance(p.start_column, f.start_column) <= static_cast<std::uint64_t>(*want.within_columns));
      };
      // The nearest parts by line, outward from the finding's line, at most
      // kMaxParts of them: a text with many of both stays linear in size.
      near.clear();
      auto up = std::lower_bound(found.begin(), found.end(), f.start_line,
                                 [](const Finding& p, std::uint64_t line) { return p.start_line < line; });
      auto down = up;
      while (near.size() < kMaxParts && (down != found.begin() || up != found.end())) {
        const bool take_up = down == found.begin() ||
                             (up != found.end() && distance(up->start_line, f.start_line) <=
                                                       distance(std::prev(down)->start_line, f.start_line));
        const auto at = take_up ? up++ : --down;
        if (want.within_lines && distance(at->start_line, f.start_line) > static_cast<std::uint64_t>(*want.within_lines))
          break;  // nearest first: all the rest are farther
        if (within(*at)) near.push_back(static_cast<std::size_t>(at - found.begin()));
      }
      std::sort(near.begin(), near.end());  // attached in text order
      for (const std::size_t n : near)
        f.required.push_back(RequiredPart{found[n].rule, found[n].start_line, found[n].start_column, found[n].secret});
      all = !near.empty();
    }
    if (!all) continue;
    if (kept != i) out[kept] = std::move(f);
    ++kept;
  }
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(kept), out.end());
}

void Detector::scan_rule(const Compiled& c, std::string_view path, std::string_view commit, std::string_view text,
                         InlineAllows& lines, const Blob* blob, const std::vector<LineSpan>* keyword_lines, Scratch& s,
                         std::vector<Finding>& out) const {
  if (keyword_lines == nullptr) {
    scan_range(c, path, commit, text, 0, text.size(), lines, blob, nullptr, s, out);
  } else if (c.single_line) {
    // Only the keywords' lines are searched: a match cannot leave its line.
    const std::size_t newline = c.newline_last ? 1 : 0;
    for (const LineSpan& l : *keyword_lines)
      scan_range(c, path, commit, text, l.begin, std::min(l.end + newline, text.size()), lines, blob, nullptr, s,
                 out);
  } else {
    // A match may span lines: the whole text is searched (one pass, so still
    // linear), and a match is kept if one of the lines it covers is a keyword's.
    scan_range(c, path, commit, text, 0, text.size(), lines, blob, keyword_lines, s, out);
  }
}

namespace {

// Whether [begin, end) covers (touches a byte of, or the newline of) one of
// `spans`, sorted and disjoint lines.
bool covers_a_line(const std::vector<LineSpan>& spans, std::size_t begin, std::size_t end) {
  const auto first = std::lower_bound(spans.begin(), spans.end(), begin,
                                      [](const LineSpan& l, std::size_t at) { return l.end < at; });
  return first != spans.end() && first->begin <= std::max(begin, end > begin ? end - 1 : begin);
}

}  // namespace

void Detector::scan_range(const Compiled& c, std::string_view path, std::string_view commit, std::string_view text,
                          std::size_t from, std::size_t to, InlineAllows& lines, const Blob* blob,
                          const std::vector<LineSpan>* keep, Scratch& s, std::vector<Finding>& out) const {
  const RE2& regex = c.regex();
  s.groups_.assign(static_cast<std::size_t>(regex.NumberOfCapturingGroups()) + 1, re2::StringPiece());
  const int n = static_cast<int>(s.groups_.size());
  std::size_t pos = from;
  // RE2 searches [pos, to) with the whole text as context: ^, $ and \b see
  // the bytes around the range.
  while (pos <= to &&
         regex.Match(re2::StringPiece(text.data(), text.size()), pos, to, RE2::UNANCHORED, s.groups_.data(), n)) {
    re2::StringPiece whole = s.groups_[0];
    const auto begin = static_cast<std::size_t>(whole.data() - text.data());
    const std::size_t matched_end = begin + whole.size();
    pos = matched_end > begin ? matched_end : matched_end + 1;  // leftmost, non-overlapping; empty: on a byte
    if (keep != nullptr && !covers_a_line(*keep, begin, matched_end)) continue;
    // In a decoding pass, a match must touch what this pass decoded.
    const std::uint8_t encodings = blob != nullptr ? blob->spliced->decoded_by(blob->pass, begin, matched_end) : 0;
    if (blob != nullptr && encodings == 0) continue;
    // A rule that ends its token with "a byte that cannot continue it" takes
    // the line's newline along: the reported match stops before it.
    while (!whole.empty() && (whole[whole.size() - 1] == '\n' || whole[whole.size() - 1] == '\r'))
      whole.remove_suffix(1);
    const std::size_t end = begin + whole.size();
    re2::StringPiece secret;
    if (c.rule->secret_group) {
      secret = s.groups_[static_cast<std::size_t>(c.group())];
      if (secret.data() == nullptr) continue;  // the named group took no part in this match
    } else {
      // As gitleaks: the first group that captured something, else the match
      // (a rule whose branches capture in different groups reports each one's).
      for (std::size_t g = 1; g < s.groups_.size() && secret.empty(); ++g) secret = s.groups_[g];
      if (secret.empty()) secret = whole;
    }
    const std::string_view match_text(whole.data(), whole.size());
    const std::string_view secret_text(secret.data(), secret.size());
    const double entropy = shannon_entropy(secret_text);
    const std::optional<double>& floor =
        c.rule->entropy_hex && is_long_hex(secret_text) ? c.rule->entropy_hex : c.rule->entropy;
    if (floor && entropy < *floor) continue;
    const std::string_view line_text = lines.lines().lines(begin, end);
    if (allowed(c, Candidate{path, match_text, secret_text, line_text, commit, &s.line_verdicts_})) continue;
    if (inline_allows_ && lines.any(begin, end)) continue;
    // A decoded match is placed where its text lies encoded in the file,
    // whose lines may allow it too.
    InlineAllows& place_allows = blob != nullptr ? *blob->file_lines : lines;
    LineIndex& place = place_allows.lines();
    const std::size_t from_at = blob != nullptr ? blob->spliced->file_begin(begin) : begin;
    const std::size_t to_at = blob != nullptr ? blob->spliced->file_end(end) : end;
    if (inline_allows_ && blob != nullptr && place_allows.any(from_at, to_at)) continue;
    Finding f;
    f.rule = c.rule;
    f.file = path;
    if (blob != nullptr) {  // gitleaks' tags
      f.decode_tags = encoding_tags(encodings);
      f.decode_tags.push_back("decode-depth:" + std::to_string(blob->pass));
    }
    const LineIndex::Position from = place.at(from_at);
    const LineIndex::Position to = place.at(to_at > from_at ? to_at - 1 : from_at);
    f.start_line = from.line;
    f.start_column = from.column;
    f.end_line = to.line;
    f.end_column = to.column;
    f.match = match_text;
    f.secret = secret_text;
    f.entropy = entropy;
    out.push_back(std::move(f));
  }
}

}  // namespace stealscan::secrets

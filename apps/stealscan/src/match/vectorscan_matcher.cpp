// vectorscan_matcher.cpp: VectorscanMatcher (vectorscan_matcher.hpp).
#include "match/vectorscan_matcher.hpp"

#include <hs/hs.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <new>

#include "match/literal_matcher.hpp"
#include "match/unicode_syntax.hpp"
#include "match/vectorscan_end.hpp"

namespace stealscan {

struct VectorscanMatcher::Database {
  std::vector<std::string> shown;    // the user's patterns
  std::vector<std::string> regexes;  // as RE2 runs them: escaped literals, -w/-x wrappers
  std::vector<std::string> hs_texts; // as Vectorscan runs them: the same, or a byte superset (Unicode mode)
  MatchFlags flags;
  int group = 0;                     // RE2's capture group of a match: 1 when a pattern has -w's wrappers
  bool plain_literals = false;       // -F without -w/-x: no confirmation, bounded length
  bool every_line = false;           // a plain empty literal: every line matches
  std::size_t longest = 0;
  hs_database_t* hs = nullptr;       // null when every pattern is in `rest`
  // By pattern index: confirm a hit on its line, always (kConfirmAlways) or
  // where the line holds a byte >= 0x80 (kConfirmNonAscii: a Unicode
  // pattern's byte superset, exact on ASCII lines), or not (0).
  static constexpr std::uint8_t kConfirmAlways = 1, kConfirmNonAscii = 2;
  std::vector<std::uint8_t> confirm;
  std::vector<std::uint32_t> confirm_set, rest_set;  // pattern indices

  Database() = default;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database() { hs_free_database(hs); }

  // Compiles the patterns not in rest_set. Each regex is first checked alone
  // (hs_expression_info, cheap: no database is built), and one Vectorscan cannot
  // parse moves to rest_set; if the set still fails, the pattern named by the
  // error moves and the rest is compiled again (an error not tied to one pattern
  // moves them all).
  void compile();
};

namespace {

std::string hs_reason(hs_compile_error_t* e) {
  std::string s = e != nullptr && e->message != nullptr ? e->message : "unknown error";
  hs_free_compile_error(e);
  return s;
}

}  // namespace

void VectorscanMatcher::Database::compile() {
  if (hs_valid_platform() != HS_SUCCESS) {  // a CPU Vectorscan does not run on: RE2 alone
    for (std::uint32_t k = 0; k < regexes.size(); ++k) rest_set.push_back(k);
    return;
  }
  if (!plain_literals) {
    const unsigned f = HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY | (flags.ignore_case ? HS_FLAG_CASELESS : 0);
    for (std::uint32_t k = 0; k < regexes.size(); ++k) {
      hs_expr_info_t* info = nullptr;
      hs_compile_error_t* err = nullptr;
      if (hs_expression_info(hs_texts[k].c_str(), f, &info, &err) != HS_SUCCESS) {
        hs_reason(err);
        rest_set.push_back(k);
      }
      std::free(info);
    }
  }
  std::vector<std::uint8_t> in_rest(regexes.size(), 0);
  for (;;) {
    for (auto k : rest_set) in_rest[k] = 1;
    std::vector<std::uint32_t> ids;
    std::vector<const char*> exprs;
    std::vector<std::size_t> lengths;
    std::vector<unsigned> hs_flags;
    for (std::uint32_t k = 0; k < regexes.size(); ++k) {
      if (in_rest[k] != 0) continue;
      if (plain_literals && shown[k].empty()) continue;  // every_line covers it
      ids.push_back(k);
      unsigned f = flags.ignore_case ? HS_FLAG_CASELESS : 0;
      if (plain_literals) {
        exprs.push_back(shown[k].data());
        lengths.push_back(shown[k].size());
      } else {
        exprs.push_back(hs_texts[k].c_str());
        f |= HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY;
      }
      hs_flags.push_back(f);
    }
    if (ids.empty()) return;
    hs_compile_error_t* err = nullptr;
    const auto n = static_cast<unsigned>(ids.size());
    const hs_error_t rc =
        plain_literals
            ? hs_compile_lit_multi(exprs.data(), hs_flags.data(), ids.data(), lengths.data(), n, HS_MODE_BLOCK,
                                   nullptr, &hs, &err)
            : hs_compile_multi(exprs.data(), hs_flags.data(), ids.data(), n, HS_MODE_BLOCK, nullptr, &hs, &err);
    if (rc == HS_SUCCESS) return;
    const int bad = err != nullptr ? err->expression : -1;
    hs_reason(err);
    hs = nullptr;
    if (bad >= 0 && static_cast<unsigned>(bad) < n) {
      rest_set.push_back(ids[static_cast<unsigned>(bad)]);
    } else {
      rest_set.insert(rest_set.end(), ids.begin(), ids.end());
      return;
    }
  }
}

VectorscanMatcher::VectorscanMatcher(const std::vector<std::string>& patterns, PatternSyntax syntax,
                                     const MatchFlags& flags) {
  if (patterns.empty()) throw PatternError("no pattern given");
  auto db = std::make_shared<Database>();
  db->shown = patterns;
  db->flags = flags;
  // Unicode folding reaches past ASCII for some literals (k, s, non-ASCII
  // letters): those run as regexes, on RE2's folding.
  bool unicode_fold = false;
  if (flags.unicode && flags.ignore_case)
    for (const std::string& p : patterns) unicode_fold = unicode_fold || folds_beyond_ascii(p);
  db->plain_literals = syntax == PatternSyntax::literal && !flags.word && !flags.line && !unicode_fold;
  std::vector<EngineForms> forms;
  forms.reserve(patterns.size());
  for (const std::string& p : patterns) {
    if (p.find('\n') != std::string::npos) throw PatternError("pattern " + quote_pattern(p) + " contains a newline");
    db->longest = std::max(db->longest, p.size());
    if (syntax == PatternSyntax::regex) check_regex(p, flags);
    forms.push_back(engine_forms(p, syntax, flags));
    if (db->plain_literals && p.empty()) db->every_line = true;
    // On RE2 alone: Unicode classes (Vectorscan reads them otherwise), and a
    // raw NUL byte (Vectorscan takes a regex as a C string: it would search a
    // truncated pattern).
    if (syntax == PatternSyntax::regex && (has_unicode_class(p) || p.find('\0') != std::string::npos))
      db->rest_set.push_back(static_cast<std::uint32_t>(forms.size() - 1));
    if (forms.back().re2_only) db->rest_set.push_back(static_cast<std::uint32_t>(forms.size() - 1));
  }
  for (EngineForms& f : forms) db->hs_texts.push_back(std::move(f.bytes));
  db->group = re2_texts(forms, db->regexes);
  db->compile();
  db->confirm.assign(patterns.size(), 0);
  for (std::uint32_t k = 0; k < patterns.size(); ++k) {
    const bool in_rest = std::find(db->rest_set.begin(), db->rest_set.end(), k) != db->rest_set.end();
    if (in_rest || db->plain_literals) continue;
    if (may_match_newline(db->hs_texts[k])) db->confirm[k] = Database::kConfirmAlways;
    else if (forms[k].widened) db->confirm[k] = Database::kConfirmNonAscii;
    if (db->confirm[k] != 0) db->confirm_set.push_back(k);
  }
  std::sort(db->rest_set.begin(), db->rest_set.end());
  db->rest_set.erase(std::unique(db->rest_set.begin(), db->rest_set.end()), db->rest_set.end());
  db_ = std::move(db);
  if (db_->hs != nullptr) {
    hs_scratch_t* s = nullptr;
    if (hs_alloc_scratch(db_->hs, &s) != HS_SUCCESS) throw std::bad_alloc();
    scratch_.reset(s);
  }

  if (db_->plain_literals && !flags.ignore_case) {
    columns_ = std::make_unique<LiteralMatcher>(db_->shown);
  } else {
    columns_ = std::make_unique<RegexMatcher>(db_->shown, db_->regexes, flags, syntax, true, db_->group);
  }
  auto subset = [&](const std::vector<std::uint32_t>& set) -> std::unique_ptr<RegexMatcher> {
    if (set.empty()) return nullptr;
    std::vector<std::string> shown, regexes;
    for (auto k : set) {
      shown.push_back(db_->shown[k]);
      regexes.push_back(db_->regexes[k]);
    }
    return std::make_unique<RegexMatcher>(std::move(shown), std::move(regexes), db_->flags, syntax, false, db_->group);
  };
  // Whether an empty line (after a '\n') matches: RE2 says it once, for the
  // trailing empty lines of a block that Vectorscan is not shown (matching_lines()).
  const char nl[] = "\n";
  empty_line_matches_ = columns_->find(nl, nl + 1, nl + 1).has_value();
  confirm_ = subset(db_->confirm_set);
  rest_ = subset(db_->rest_set);
}

VectorscanMatcher::VectorscanMatcher(const VectorscanMatcher& other)
    : Matcher(other), db_(other.db_), columns_(other.columns_->clone()), empty_line_matches_(other.empty_line_matches_) {
  if (other.scratch_ != nullptr) {
    hs_scratch_t* s = nullptr;
    if (hs_clone_scratch(other.scratch_.get(), &s) != HS_SUCCESS) throw std::bad_alloc();
    scratch_.reset(s);
  }
  if (other.confirm_) confirm_ = std::unique_ptr<RegexMatcher>(static_cast<RegexMatcher*>(other.confirm_->clone().release()));
  if (other.rest_) rest_ = std::unique_ptr<RegexMatcher>(static_cast<RegexMatcher*>(other.rest_->clone().release()));
}

VectorscanMatcher::~VectorscanMatcher() = default;

void VectorscanMatcher::FreeScratch::operator()(hs_scratch* s) const noexcept { hs_free_scratch(s); }

std::optional<std::size_t> VectorscanMatcher::max_match_length() const {
  if (db_->plain_literals) return db_->longest;
  return std::nullopt;
}

VectorscanMatcher::Plan VectorscanMatcher::plan() const {
  Plan p;
  p.re2_only = db_->rest_set.size();
  p.vectorscan = db_->shown.size() - p.re2_only;
  p.confirmed = db_->confirm_set.size();
  return p;
}

// The state of one matching_lines() pass, for the callback.
struct VectorscanMatcher::Scan {
  const VectorscanMatcher* self;
  const char* text;
  std::size_t size;
  std::vector<std::size_t>* out;
  bool first_only;
  bool sorted = true;
  // The line holding the last match end: [begin, end] (end: its '\n' or the block end).
  bool have_line = false;
  std::size_t begin = 0, end = 0;
  enum class State : std::uint8_t { open, matched, rejected } state = State::open;
};

int VectorscanMatcher::on_match(unsigned id, unsigned long long /*from*/, unsigned long long to, unsigned /*flags*/,
                                void* context) {
  Scan& s = *static_cast<Scan*>(context);
  // A match that reaches into the padding after a tail copy (scan_tail())
  // crosses a line end: no line match. Every match that ends inside a line is
  // reported by its own end.
  if (to > s.size) return 0;
  const auto at = static_cast<std::size_t>(to);
  if (!s.have_line || at < s.begin || at > s.end) {
    const auto* prev = static_cast<const char*>(memrchr(s.text, '\n', at));
    const auto* next = static_cast<const char*>(std::memchr(s.text + at, '\n', s.size - at));
    s.begin = prev != nullptr ? static_cast<std::size_t>(prev - s.text) + 1 : 0;
    s.end = next != nullptr ? static_cast<std::size_t>(next - s.text) : s.size;
    s.have_line = true;
    s.state = Scan::State::open;
  }
  if (s.state == Scan::State::matched) return 0;
  const std::uint8_t confirm = s.self->db_->confirm[id];
  if (confirm != 0) {
    if (s.state == Scan::State::rejected) return 0;
    // Context: the byte before the line (its '\n', for `^` and `\b`), not the
    // whole block, which RE2 would look through on every call.
    const char* line = s.text + s.begin;
    // The superset is exact where the bytes it matched and their neighbours
    // are ASCII (Unicode and byte semantics agree there; `\b` and `$` look at
    // one byte after the match, `^` and `\b` at one before it): the line up to
    // the byte after the match end. Not the rest of the line, which may be
    // 100 MB long.
    const std::size_t upto = at < s.end ? at + 1 : s.end;
    const bool exact = confirm == Database::kConfirmNonAscii && !has_high_byte(line, upto - s.begin);
    if (!exact && !s.self->confirm_->find(line == s.text ? line : line - 1, line, s.text + s.end)) {
      s.state = Scan::State::rejected;
      return 0;
    }
  }
  s.state = Scan::State::matched;
  if (!s.out->empty() && s.out->back() >= s.begin) s.sorted = false;
  s.out->push_back(s.begin);
  // No line follows one that reaches the end of the data: the scan stops
  // (a 100 MB line that matches early is not searched to its end).
  return s.first_only || s.end == s.size ? 1 : 0;
}

void VectorscanMatcher::scan(const char* text, std::size_t size, Scan& s) const {
  const hs_error_t rc = hs_scan(db_->hs, text, static_cast<unsigned>(size), 0, scratch_.get(), &on_match, &s);
  if (rc != HS_SUCCESS && rc != HS_SCAN_TERMINATED)
    throw std::runtime_error("vectorscan: scan failed (" + std::to_string(rc) + ")");
}

// The end of a block (vectorscan_end.hpp): the lines that reach into its
// last kTail bytes, from tail_start() on, are scanned again from a padded copy;
// what that finds is added to the first scan's lines (a line found twice is
// kept once). A copy longer than kMaxCopy (a very long last line) is not made:
// its lines are searched by the exact engine instead, so memory stays bounded.
namespace {
constexpr std::size_t kTail = kVectorscanEndPad;
constexpr std::size_t kMaxCopy = std::size_t{1} << 20;

// The start of the line that holds the block's byte size - kTail (0 if none).
std::size_t tail_start(const char* text, std::size_t size) {
  if (size <= kTail) return 0;
  const auto* nl = static_cast<const char*>(memrchr(text, '\n', size - kTail));
  return nl == nullptr ? 0 : static_cast<std::size_t>(nl - text) + 1;
}
}  // namespace

void VectorscanMatcher::scan_tail(const char* text, std::size_t size, std::size_t from, Scan& s) const {
  std::vector<std::size_t>& out = *s.out;
  s.sorted = false;
  std::vector<std::size_t> found;
  if (size - from > kMaxCopy) {
    columns_->Matcher::matching_lines(text + from, text + size, found, s.first_only);
  } else {
    padded_end(tail_, std::string_view(text + from, size - from));
    Scan t{this, tail_.data(), size - from, &found, s.first_only};
    scan(tail_.data(), tail_.size(), t);
  }
  for (const std::size_t line : found) out.push_back(from + line);
}

void VectorscanMatcher::matching_lines(const char* text, const char* end, std::vector<std::size_t>& out,
                                       bool first_only) const {
  lines(text, end, nullptr, out, first_only);
}

void VectorscanMatcher::matching_lines_padded(char* text, char* end, std::vector<std::size_t>& out,
                                              bool first_only) const {
  lines(text, end, text, out, first_only);
}

void VectorscanMatcher::lines(const char* text, const char* end, char* writable, std::vector<std::size_t>& out,
                              bool first_only) const {
  out.clear();
  const auto size = static_cast<std::size_t>(end - text);
  if (db_->every_line) {
    for (const char* p = text;;) {
      out.push_back(static_cast<std::size_t>(p - text));
      if (first_only) return;
      const auto* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      if (nl == nullptr) return;
      p = nl + 1;
    }
  }
  if (size > UINT_MAX) {  // longer than one Vectorscan call takes: the exact engine alone
    columns_->Matcher::matching_lines(text, end, out, first_only);
    return;
  }
  // Vectorscan is given the block without its trailing empty lines: it follows
  // PCRE, where `^` does not match after a '\n' that ends the data, and Vectorscan
  // 5.4.9 also misses `^ *$` on an empty line when the data ends just after it.
  // Every empty line after a '\n' matches alike, so RE2 decides them once
  // (empty_line_matches_, in the constructor) and they are added here.
  std::size_t scanned = size;
  while (scanned > 0 && text[scanned - 1] == '\n') --scanned;
  Scan s{this, text, scanned, &out, first_only};
  static_assert(kTail <= Matcher::kWritableAfter);
  if (db_->hs != nullptr && scanned > 0 && writable != nullptr && scanned + kTail <= UINT_MAX) {
    // The padding written in place after the scanned bytes (what it covers:
    // the block's trailing '\n's, then the caller's lent bytes), one scan,
    // the bytes put back. A match reaching into the padding is dropped
    // (on_match()), as from a padded copy.
    char saved[kTail];
    char* pad = writable + scanned;
    std::memcpy(saved, pad, kTail);
    std::memset(pad, '\n', kTail);
    try {
      scan(text, scanned + kTail, s);
    } catch (...) {
      std::memcpy(pad, saved, kTail);
      throw;
    }
    std::memcpy(pad, saved, kTail);
    if (first_only && !out.empty()) return;
  } else if (db_->hs != nullptr && scanned > 0) {
    // A block that is all tail (a small file) is scanned from the padded copy
    // alone: the first scan would find nothing the copy does not.
    const std::size_t from = tail_start(text, scanned);
    if (from > 0 || scanned > kMaxCopy) scan(text, scanned, s);
    if (!(first_only && !out.empty())) scan_tail(text, scanned, from, s);
    if (first_only && !out.empty()) return;
  }
  if (empty_line_matches_ && (scanned < size || size == 0)) {
    if (scanned == 0) out.push_back(0);                                 // the first line is empty too
    for (std::size_t q = scanned; q < size; ++q) out.push_back(q + 1);  // the line after each '\n'
    if (first_only) {
      out.resize(1);
      return;
    }
  }
  if (rest_ && !(first_only && !out.empty())) {
    std::vector<std::size_t> more;
    rest_->matching_lines(text, end, more, first_only);
    out.insert(out.end(), more.begin(), more.end());
    s.sorted = false;
  }
  if (!s.sorted) {
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
}

}  // namespace stealscan

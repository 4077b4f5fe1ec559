// regex_prefilter.cpp: RegexPrefilter (regex_prefilter.hpp).
#include "secrets/detect/regex_prefilter.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <stdexcept>

#include <hs/hs.h>

#include "match/regex_syntax.hpp"
#include "match/vectorscan_end.hpp"

namespace stealscan::secrets {
namespace {

constexpr unsigned kPrefilterFlags = HS_FLAG_PREFILTER | HS_FLAG_MULTILINE | HS_FLAG_ALLOWEMPTY;
// hs_scan takes an unsigned length; a text this long is left to RE2 whole.
constexpr std::size_t kMaxText = std::size_t{1} << 30;
// A worker keeps its copy buffer between texts up to this size.
constexpr std::size_t kKeptCopy = std::size_t{4} << 20;

void free_error(hs_compile_error_t* e) { hs_free_compile_error(e); }

// A hit's line. The match cannot hold a '\n' (else its reach is not
// kOneLine): if the byte before its end is one, the match is empty and lies at
// the start of the next line (the empty line after a text's last '\n', at its
// very end); otherwise the match's line is that byte's. For a rule whose
// matches may span lines, the whole text.
struct PrefilterHits {
  LineCollector& lines;
  const std::vector<std::size_t>& reach;
};

// Adds the line holding the text's byte `at`, or, at the text's end, the
// empty line there.
void add_hit_line(LineCollector& c, unsigned id, std::size_t at) {
  if (at < c.text.size()) {
    c.add(id, at);
  } else if (c.lines[id].empty() || c.lines[id].back().end < at) {
    c.lines[id].push_back(LineSpan{at, at});
  }
}

int on_hit(unsigned int id, unsigned long long, unsigned long long to, unsigned int, void* ctx) {
  auto& h = *static_cast<PrefilterHits*>(ctx);
  LineCollector& c = h.lines;
  if (to > c.limit) return 0;  // in the padding
  if (h.reach[id] != RegexPrefilter::kOneLine) {
    if (c.lines[id].empty()) c.lines[id].push_back(LineSpan{0, c.text.size()});
    return 0;
  }
  std::size_t at = static_cast<std::size_t>(to);
  if (at > 0 && c.text[at - 1] != '\n') --at;
  add_hit_line(c, id, at);
  return 0;
}

// scan_lines()'s hits: a hit's end in the copy, taken back to the text
// through the pieces (hits come in order of their ends, so the piece of the
// last one is tried first); the line around it is the same line in both.
struct CopiedLinesHits {
  LineCollector& lines;
  const std::vector<std::size_t>& reach;
  const std::vector<RegexPrefilter::Scratch::Piece>& pieces;
  std::string_view copy;  // without the padding
  std::size_t last = 0;   // the piece of the last hit
};

int on_copied_lines_hit(unsigned int id, unsigned long long, unsigned long long to, unsigned int, void* ctx) {
  auto& h = *static_cast<CopiedLinesHits*>(ctx);
  if (to > h.copy.size()) return 0;  // in the padding
  if (h.reach[id] != RegexPrefilter::kOneLine) {
    // A rule that may span lines: the whole text, once it may match in the
    // copy (given at the start for one of unbounded reach).
    if (h.lines.lines[id].empty()) h.lines.lines[id].push_back(LineSpan{0, h.lines.text.size()});
    return 0;
  }
  // The hit's byte, as on_hit() picks it: the one before its end, unless
  // that is a '\n' (an empty match at a line's start). Every piece ends in
  // a '\n' the text may not have, so a byte at or past the last one is not
  // in the text.
  std::size_t at = static_cast<std::size_t>(to);
  if (at > 0 && h.copy[at - 1] != '\n') --at;
  if (at >= h.copy.size()) return 0;
  const auto& p = h.pieces;
  if (!(p[h.last].at_copy <= at && (h.last + 1 == p.size() || at < p[h.last + 1].at_copy))) {
    h.last = static_cast<std::size_t>(
        std::upper_bound(p.begin(), p.end(), at, [](std::size_t a, const auto& piece) { return a < piece.at_copy; }) -
        p.begin() - 1);
  }
  add_hit_line(h.lines, id, p[h.last].at_text + (at - p[h.last].at_copy));
  return 0;
}

}  // namespace

bool prefilter_eligible(std::string_view regex) {
  if (regex.empty() || has_unicode_class(regex)) return false;
  return std::none_of(regex.begin(), regex.end(),
                      [](char c) { return c == '\0' || static_cast<unsigned char>(c) >= 0x80; });
}

RegexPrefilter::RegexPrefilter(const std::vector<std::string>& regexes, const DatabaseCache& cache)
    : slot_(regexes.size(), kNone) {
  if (hs_valid_platform() != HS_SUCCESS) return;
  // What Vectorscan compiles: the regex with the escapes it reads otherwise
  // than RE2 written as RE2 means them (self_contained(), as the search does).
  std::vector<std::string> exprs(regexes.size());
  std::vector<std::size_t> candidates;
  // Each pattern's widest match (Vectorscan's max_width of the approximation
  // compiled, which no match of the regex exceeds, as every one is a match of it).
  std::vector<std::size_t> width(regexes.size(), kUnbounded);
  for (std::size_t r = 0; r < regexes.size(); ++r) {
    if (!prefilter_eligible(regexes[r])) continue;
    exprs[r] = self_contained(regexes[r]);
    hs_expr_info_t* info = nullptr;
    hs_compile_error_t* err = nullptr;
    const bool ok = hs_expression_info(exprs[r].c_str(), kPrefilterFlags, &info, &err) == HS_SUCCESS;
    if (ok && info->max_width != UINT_MAX) width[r] = info->max_width;
    free_error(err);
    std::free(info);
    if (ok) candidates.push_back(r);
  }
  // The set compiled; a pattern named by a compile error is left out and the
  // rest compiled again (one error not tied to a pattern leaves them all out).
  while (!candidates.empty()) {
    std::string key = "prefilter block flags=" + std::to_string(kPrefilterFlags);
    for (const std::size_t r : candidates) key.append("\n").append(std::to_string(exprs[r].size())).append(":").append(exprs[r]);
    int bad = -1;
    db_ = cache.load_or_compile("prefilter", key, [&]() -> hs_database_t* {
      std::vector<const char*> ptrs;
      std::vector<unsigned> flags(candidates.size(), kPrefilterFlags);
      std::vector<unsigned> ids;
      for (std::size_t i = 0; i < candidates.size(); ++i) {
        ptrs.push_back(exprs[candidates[i]].c_str());
        ids.push_back(static_cast<unsigned>(i));
      }
      hs_database_t* db = nullptr;
      hs_compile_error_t* err = nullptr;
      if (hs_compile_multi(ptrs.data(), flags.data(), ids.data(), static_cast<unsigned>(ptrs.size()), HS_MODE_BLOCK,
                           nullptr, &db, &err) != HS_SUCCESS) {
        bad = err != nullptr ? err->expression : -1;
        free_error(err);
        return nullptr;
      }
      return db;
    });
    if (db_ != nullptr) break;
    if (bad < 0 || static_cast<std::size_t>(bad) >= candidates.size()) return;
    candidates.erase(candidates.begin() + bad);
  }
  for (std::size_t i = 0; i < candidates.size() && db_ != nullptr; ++i) {
    slot_[candidates[i]] = i;
    // A match that ends in its line's newline (newline_only_last()) counts
    // as one line: its regex ends in (?:C|$) or (?:C|\z), which
    // self_contained() makes a line's end, so the same match ending before
    // the newline is a match too, and the prefilter reports every match.
    const std::string& regex = regexes[candidates[i]];
    const bool one_line = newline_only_last(regex) || !may_match_newline(regex);
    reach_.push_back(one_line ? kOneLine : std::max<std::size_t>(width[candidates[i]], 1));
  }
}

RegexPrefilter::~RegexPrefilter() { hs_free_database(db_); }

RegexPrefilter::Scratch::Scratch(const RegexPrefilter& filter) : lines_(filter.reach_.size()) {
  if (filter.db_ != nullptr && hs_alloc_scratch(filter.db_, &hs_) != HS_SUCCESS) throw std::bad_alloc();
}

RegexPrefilter::Scratch::~Scratch() { hs_free_scratch(hs_); }

bool RegexPrefilter::scan(std::string_view text, Scratch& s) const {
  for (std::vector<LineSpan>& v : s.lines_) v.clear();
  // An empty text costs RE2 nothing (and Vectorscan reports no empty match
  // in no data).
  if (db_ == nullptr || text.empty() || text.size() + kVectorscanEndPad >= kMaxText) return false;
  // Vectorscan misses some matches that end in the last 32 bytes of its data
  // (vectorscan_end.hpp), and a match of a rule that spans lines may start
  // anywhere before: so the text is scanned whole from a copy with padding
  // after it, in one pass (a memcpy, several times faster than the scan).
  padded_end(s.copy_, text);
  LineCollector lines{text, s.lines_};
  lines.limit = text.size();
  PrefilterHits hits{lines, reach_};
  if (hs_scan(db_, s.copy_.data(), static_cast<unsigned>(s.copy_.size()), 0, s.hs_, &on_hit, &hits) != HS_SUCCESS)
    throw std::runtime_error("prefilter scan failed");
  if (s.copy_.capacity() > kKeptCopy) std::string().swap(s.copy_);  // a large file's copy is not kept
  for (std::vector<LineSpan>& v : s.lines_) normalize(v);
  return true;
}

bool RegexPrefilter::scan_lines(std::string_view text, const std::vector<LineSpan>& only, Scratch& s) const {
  for (std::vector<LineSpan>& v : s.lines_) v.clear();
  if (db_ == nullptr || text.empty()) return false;
  s.copy_.clear();
  s.pieces_.clear();
  for (const LineSpan& l : only) {
    s.pieces_.push_back(Scratch::Piece{s.copy_.size(), l.begin});
    s.copy_.append(text.substr(l.begin, l.end - l.begin)).push_back('\n');
  }
  if (s.copy_.size() + kVectorscanEndPad >= kMaxText) return false;
  const std::size_t copied = s.copy_.size();
  s.copy_.append(kVectorscanEndPad, '\n');  // as padded_end(): the copy's end is scanned with room after it
  for (std::size_t slot = 0; slot < reach_.size(); ++slot)
    if (reach_[slot] == kUnbounded) s.lines_[slot].push_back(LineSpan{0, text.size()});
  if (!s.pieces_.empty()) {
    LineCollector lines{text, s.lines_};
    lines.limit = text.size();
    CopiedLinesHits hits{lines, reach_, s.pieces_, std::string_view(s.copy_).substr(0, copied)};
    if (hs_scan(db_, s.copy_.data(), static_cast<unsigned>(s.copy_.size()), 0, s.hs_, &on_copied_lines_hit, &hits) !=
        HS_SUCCESS)
      throw std::runtime_error("prefilter scan failed");
  }
  if (s.copy_.capacity() > kKeptCopy) std::string().swap(s.copy_);
  for (std::vector<LineSpan>& v : s.lines_) normalize(v);
  return true;
}

}  // namespace stealscan::secrets

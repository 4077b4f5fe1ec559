// keyword_filter.cpp: KeywordFilter (keyword_filter.hpp).
#include "secrets/detect/keyword_filter.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>
#include <unordered_map>

#include <hs/hs.h>

#include "match/vectorscan_end.hpp"
#include "secrets/detect/ascii.hpp"

namespace stealscan::secrets {
namespace {

constexpr unsigned kKeywordFlags = HS_FLAG_CASELESS;  // every occurrence: their lines are wanted

// A keyword scan's callback context: the collector, the keywords (a hit's
// line is the line of its first byte, `to` less the keyword's length) and
// their shapes.
struct KeywordHits {
  LineCollector& lines;
  const std::vector<std::string>* keywords;
  const std::vector<std::vector<KeywordShape>>* shapes;
  std::vector<std::size_t>* touched;  // the keywords with lines so far, each once
};

void add_line(KeywordHits& k, std::size_t id, std::size_t at) {
  if (k.lines.lines[id].empty()) k.touched->push_back(id);
  k.lines.add(id, at);
}

int on_keyword(unsigned int id, unsigned long long, unsigned long long to, unsigned int, void* ctx) {
  auto& k = *static_cast<KeywordHits*>(ctx);
  if (to > k.lines.limit) return 0;
  const std::size_t end = k.lines.base + static_cast<std::size_t>(to);
  const std::vector<KeywordShape>& shapes = (*k.shapes)[id];
  if (!shapes.empty() &&
      std::none_of(shapes.begin(), shapes.end(), [&](const KeywordShape& s) { return fits(s, k.lines.text, end); }))
    return 0;  // no match of a rule holding it could hold this hit
  add_line(k, id, end - (*k.keywords)[id].size());
  return 0;
}

}  // namespace

KeywordFilter::KeywordFilter(const std::vector<std::vector<std::string>>& keywords, const DatabaseCache& cache,
                             const std::vector<std::string>& regexes)
    : keywords_of_(keywords.size()) {
  std::unordered_map<std::string, std::size_t> index;
  std::vector<bool> unshaped;  // per keyword: a rule holding it has no shape after it
  for (std::size_t r = 0; r < keywords.size(); ++r) {
    for (const std::string& k : keywords[r]) {
      const auto [it, fresh] = index.emplace(k, keywords_.size());
      if (fresh) {
        keywords_.push_back(k);
        shapes_.emplace_back();
        unshaped.push_back(false);
        longest_ = std::max(longest_, k.size());
      }
      keywords_of_[r].push_back(it->second);
      const std::optional<KeywordShape> shape =
          r < regexes.size() ? keyword_shape(regexes[r], k) : std::nullopt;
      if (shape) {
        shapes_[it->second].push_back(*shape);
      } else {
        unshaped[it->second] = true;
      }
    }
  }
  for (std::size_t k = 0; k < shapes_.size(); ++k)
    if (unshaped[k]) shapes_[k].clear();
  rules_of_.resize(keywords_.size());
  for (std::size_t r = 0; r < keywords_of_.size(); ++r) {
    if (keywords_of_[r].empty()) always_.push_back(r);
    for (const std::size_t k : keywords_of_[r]) rules_of_[k].push_back(r);
  }
  if (keywords_.empty() || hs_valid_platform() != HS_SUCCESS) return;
  // The cache key: everything the compilation below depends on.
  std::string key = "keywords block flags=" + std::to_string(kKeywordFlags);
  for (const std::string& k : keywords_) key.append("\n").append(std::to_string(k.size())).append(":").append(k);
  db_ = cache.load_or_compile("keywords", key, [this] {
    std::vector<const char*> exprs;
    std::vector<std::size_t> lengths;
    std::vector<unsigned> flags(keywords_.size(), kKeywordFlags);
    std::vector<unsigned> ids;
    for (std::size_t k = 0; k < keywords_.size(); ++k) {
      exprs.push_back(keywords_[k].data());
      lengths.push_back(keywords_[k].size());
      ids.push_back(static_cast<unsigned>(k));
    }
    hs_database_t* db = nullptr;
    hs_compile_error_t* err = nullptr;
    if (hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lengths.data(),
                             static_cast<unsigned>(keywords_.size()), HS_MODE_BLOCK, nullptr, &db, &err) != HS_SUCCESS) {
      const std::string reason = err != nullptr && err->message != nullptr ? err->message : "unknown error";
      hs_free_compile_error(err);
      throw std::runtime_error("cannot compile the rules' keywords: " + reason);
    }
    return db;
  });
}

KeywordFilter::~KeywordFilter() { hs_free_database(db_); }

KeywordFilter::Scratch::Scratch(const KeywordFilter& filter) : lines_(filter.keywords_.size()) {
  if (filter.db_ != nullptr && hs_alloc_scratch(filter.db_, &hs_) != HS_SUCCESS) throw std::bad_alloc();
}

KeywordFilter::Scratch::~Scratch() { hs_free_scratch(hs_); }

void KeywordFilter::find_keywords(std::string_view text, Scratch& s) const {
  // Only the keywords the last text touched have lines to clear: a file
  // costs what it holds, not the number of keywords (most hold none).
  for (const std::size_t k : s.touched_) s.lines_[k].clear();
  s.touched_.clear();
  if (text.empty()) return;
  LineCollector lines{text, s.lines_};
  KeywordHits hits{lines, &keywords_, &shapes_, &s.touched_};
  if (db_ == nullptr) {
    // A plain caseless search per keyword, going on from the end of each line
    // it finds the keyword on.
    for (std::size_t k = 0; k < keywords_.size(); ++k)
      for (std::size_t at = find_caseless(text, keywords_[k]); at != std::string_view::npos;
           at = find_caseless(text, keywords_[k], lines.current.end + 1))
        add_line(hits, k, at);
    return;
  }
  // Vectorscan misses some matches that end near the end of its data (a
  // one-byte keyword that begins another one, x beside xy; vectorscan_end.hpp).
  // So the text's end is scanned again below from a padded copy, and pieces
  // overlap by kTail bytes more than a keyword needs.
  constexpr std::size_t kTail = kVectorscanEndPad;
  // hs_scan takes an unsigned length: a long text goes in pieces of 1 GiB that
  // overlap by the longest keyword less one byte, so no keyword is cut, and by
  // kTail: a keyword that ends in a piece's last kTail bytes lies whole in the
  // next one, and not at its end.
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  const std::size_t from = text.size() - std::min(text.size(), kTail + longest_);
  // A text no longer than the re-scanned end (a small file) is scanned from
  // the padded copy alone: the first scan would find nothing the copy does not.
  for (std::size_t at = 0; from > 0;) {
    const std::size_t n = std::min(kPiece, text.size() - at);
    lines.base = at;
    lines.limit = n;
    if (hs_scan(db_, text.data() + at, static_cast<unsigned>(n), 0, s.hs_, &on_keyword, &hits) != HS_SUCCESS)
      throw std::runtime_error("keyword scan failed");
    if (at + n >= text.size()) break;
    at += n - std::min(n, longest_ - 1 + kTail);
  }
  // The text's end again, from `from` (no keyword is anchored: any start will
  // do, as long as a keyword that ends in the last kTail bytes fits).
  padded_end(s.tail_, text.substr(from));
  lines.base = from;
  lines.limit = text.size() - from;
  if (hs_scan(db_, s.tail_.data(), static_cast<unsigned>(s.tail_.size()), 0, s.hs_, &on_keyword, &hits) != HS_SUCCESS)
    throw std::runtime_error("keyword scan failed");
  for (const std::size_t k : s.touched_) normalize(s.lines_[k]);
}

void KeywordFilter::rules_for(std::string_view text, Scratch& s, std::vector<std::size_t>& rules) const {
  rules.assign(always_.begin(), always_.end());
  if (keywords_.empty()) return;
  find_keywords(text, s);
  if (s.touched_.empty()) return;
  for (const std::size_t k : s.touched_) rules.insert(rules.end(), rules_of_[k].begin(), rules_of_[k].end());
  std::sort(rules.begin(), rules.end());  // rule order
  rules.erase(std::unique(rules.begin(), rules.end()), rules.end());
}

const std::vector<LineSpan>& KeywordFilter::lines_for(std::size_t r, Scratch& s) const {
  const std::vector<std::size_t>& ks = keywords_of_[r];
  if (ks.size() == 1) return s.lines_[ks[0]];
  s.merged_.clear();
  for (const std::size_t k : ks) s.merged_.insert(s.merged_.end(), s.lines_[k].begin(), s.lines_[k].end());
  normalize(s.merged_);
  return s.merged_;
}

void KeywordFilter::all_lines(const Scratch& s, std::vector<LineSpan>& out) const {
  out.clear();
  for (const std::size_t k : s.touched_) out.insert(out.end(), s.lines_[k].begin(), s.lines_[k].end());
  normalize(out);
}

}  // namespace stealscan::secrets

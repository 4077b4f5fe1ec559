// keyword_filter.cpp: KeywordFilter (keyword_filter.hpp).
#include "secrets/detect/keyword_filter.hpp"

#include <algorithm>
#include <new>
#include <stdexcept>
#include <unordered_map>

#include <hs/hs.h>

#include "secrets/detect/ascii.hpp"

namespace stealscan::secrets {
namespace {

constexpr unsigned kFlags = HS_FLAG_CASELESS | HS_FLAG_SINGLEMATCH;  // each keyword reported once

int on_keyword(unsigned int id, unsigned long long, unsigned long long, unsigned int, void* ctx) {
  static_cast<std::vector<char>*>(ctx)->at(id) = 1;
  return 0;
}

}  // namespace

KeywordFilter::KeywordFilter(const std::vector<std::vector<std::string>>& keywords, const DatabaseCache& cache)
    : keywords_of_(keywords.size()) {
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t r = 0; r < keywords.size(); ++r) {
    for (const std::string& k : keywords[r]) {
      const auto [it, fresh] = index.emplace(k, keywords_.size());
      if (fresh) {
        keywords_.push_back(k);
        longest_ = std::max(longest_, k.size());
      }
      keywords_of_[r].push_back(it->second);
    }
  }
  if (keywords_.empty() || hs_valid_platform() != HS_SUCCESS) return;
  // The cache key: everything the compilation below depends on.
  std::string key = "keywords block flags=" + std::to_string(kFlags);
  for (const std::string& k : keywords_) key.append("\n").append(std::to_string(k.size())).append(":").append(k);
  db_ = cache.load_or_compile("keywords", key, [this] {
    std::vector<const char*> exprs;
    std::vector<std::size_t> lengths;
    std::vector<unsigned> flags(keywords_.size(), kFlags);
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

KeywordFilter::Scratch::Scratch(const KeywordFilter& filter) : seen_(filter.keywords_.size()) {
  if (filter.db_ != nullptr && hs_alloc_scratch(filter.db_, &hs_) != HS_SUCCESS) throw std::bad_alloc();
}

KeywordFilter::Scratch::~Scratch() { hs_free_scratch(hs_); }

void KeywordFilter::find_keywords(std::string_view text, Scratch& s) const {
  std::fill(s.seen_.begin(), s.seen_.end(), 0);
  if (db_ == nullptr) {
    for (std::size_t k = 0; k < keywords_.size(); ++k) s.seen_[k] = contains_caseless(text, keywords_[k]) ? 1 : 0;
    return;
  }
  // hs_scan takes an unsigned length: a text over 4 GiB goes in pieces that
  // overlap by the longest keyword less one byte, so no keyword is cut.
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  std::size_t at = 0;
  do {
    const std::size_t n = std::min(kPiece, text.size() - at);
    if (hs_scan(db_, text.data() + at, static_cast<unsigned>(n), 0, s.hs_, &on_keyword, &s.seen_) != HS_SUCCESS)
      throw std::runtime_error("keyword scan failed");
    if (at + n >= text.size()) break;
    at += n - std::min(n, longest_ - 1);
  } while (true);
}

void KeywordFilter::rules_for(std::string_view text, Scratch& s, std::vector<std::size_t>& rules) const {
  rules.clear();
  if (!keywords_.empty()) find_keywords(text, s);
  for (std::size_t r = 0; r < keywords_of_.size(); ++r) {
    const auto& ks = keywords_of_[r];
    if (ks.empty() || std::any_of(ks.begin(), ks.end(), [&](std::size_t k) { return s.seen_[k] != 0; }))
      rules.push_back(r);
  }
}

}  // namespace stealscan::secrets

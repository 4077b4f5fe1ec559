// keyword_filter.hpp: KeywordFilter, the first step of the pipeline (../README.md,
// "Matching"): one Vectorscan literal scan, caseless, for every rule's keywords
// at once, giving the rules that must run on a file: those with a keyword in it
// and those without keywords (gitleaks' semantics). Compiled once, shared by
// the workers; each worker scans with its own KeywordFilter::Scratch.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "match/database_cache.hpp"

struct hs_database;
struct hs_scratch;

namespace stealscan::secrets {

class KeywordFilter {
 public:
  // keywords[r]: rule r's keywords, lower case (empty: the rule always runs).
  // The compiled database comes from `cache` when it holds this keyword set.
  KeywordFilter(const std::vector<std::vector<std::string>>& keywords, const DatabaseCache& cache);
  ~KeywordFilter();
  KeywordFilter(const KeywordFilter&) = delete;
  KeywordFilter& operator=(const KeywordFilter&) = delete;

  class Scratch {
   public:
    explicit Scratch(const KeywordFilter& filter);
    ~Scratch();
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;

   private:
    friend class KeywordFilter;
    hs_scratch* hs_ = nullptr;
    std::vector<char> seen_;  // per keyword, for the file being scanned
  };

  // The rules to run on `text`, in rule order, into `rules` (cleared first).
  void rules_for(std::string_view text, Scratch& scratch, std::vector<std::size_t>& rules) const;

 private:
  void find_keywords(std::string_view text, Scratch& scratch) const;

  std::vector<std::string> keywords_;                  // distinct, lower case
  std::vector<std::vector<std::size_t>> keywords_of_;  // rule -> its keywords; empty: always runs
  std::size_t longest_ = 0;
  hs_database* db_ = nullptr;  // null: no keywords, or no Vectorscan on this CPU (plain search)
};

}  // namespace stealscan::secrets

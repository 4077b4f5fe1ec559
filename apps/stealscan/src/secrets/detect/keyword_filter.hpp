// keyword_filter.hpp: KeywordFilter, the first step of the pipeline (../README.md,
// "Matching"): one Vectorscan literal scan, caseless, for every rule's keywords
// at once, giving the rules that must run on a file (those with a keyword in it,
// and those without keywords) and, for each, the lines that hold one of its
// keywords. Compiled once, shared by the workers; each worker scans with its
// own KeywordFilter::Scratch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "match/database_cache.hpp"
#include "secrets/detect/keyword_shape.hpp"
#include "secrets/detect/line_spans.hpp"

struct hs_database;
struct hs_scratch;

namespace stealscan::secrets {

// Where a rule with keywords may report a match (../README.md, "Matching").
enum class KeywordScope : std::uint8_t {
  line,  // a match covering a line that holds one of the rule's keywords (the default)
  file,  // any match in a text that holds one of them anywhere (gitleaks' semantics)
};

class KeywordFilter {
 public:
  // keywords[r]: rule r's keywords, lower case (empty: the rule always runs).
  // The compiled database comes from `cache` when it holds this keyword set.
  // With `regexes` (regexes[r]: rule r's), a hit of a keyword that every rule
  // holding it follows with a shape of its own (keyword_shape.hpp) counts
  // only where one of those shapes follows it.
  KeywordFilter(const std::vector<std::vector<std::string>>& keywords, const DatabaseCache& cache,
                const std::vector<std::string>& regexes = {});
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
    // Per keyword, the lines of the text being scanned that hold it: sorted,
    // disjoint spans of consecutive lines.
    std::vector<std::vector<LineSpan>> lines_;
    std::vector<std::size_t> touched_;  // the keywords with lines in the text scanned last
    std::vector<LineSpan> merged_;  // lines_for()'s answer for a rule of several keywords
    std::string tail_;              // the text's end, padded, scanned again (find_keywords)
  };

  // The rules to run on `text`, in rule order, into `rules` (cleared first).
  // Until the next call with this scratch, lines_for() answers for `text`.
  void rules_for(std::string_view text, Scratch& scratch, std::vector<std::size_t>& rules) const;

  // Whether rule r has keywords (without, it runs on every line).
  [[nodiscard]] bool has_keywords(std::size_t r) const { return !keywords_of_[r].empty(); }
  // The lines of rules_for()'s text that hold one of rule r's keywords, as
  // sorted, disjoint spans of consecutive lines, with at least one line
  // between two spans (empty for a rule without keywords). Valid until the
  // next rules_for() or lines_for() with this scratch.
  [[nodiscard]] const std::vector<LineSpan>& lines_for(std::size_t r, Scratch& scratch) const;
  // The lines of rules_for()'s text that hold any keyword, as lines_for()'s
  // spans (the union of every rule's), into `out`.
  void all_lines(const Scratch& scratch, std::vector<LineSpan>& out) const;

 private:
  void find_keywords(std::string_view text, Scratch& scratch) const;

  std::vector<std::string> keywords_;                  // distinct, lower case
  // Per keyword, the shapes one of which must follow a hit; empty: none needed.
  std::vector<std::vector<KeywordShape>> shapes_;
  std::vector<std::vector<std::size_t>> keywords_of_;  // rule -> its keywords; empty: always runs
  std::vector<std::vector<std::size_t>> rules_of_;     // keyword -> the rules holding it
  std::vector<std::size_t> always_;                    // the rules without keywords
  std::size_t longest_ = 0;
  hs_database* db_ = nullptr;  // null: no keywords, or no Vectorscan on this CPU (plain search)
};

}  // namespace stealscan::secrets

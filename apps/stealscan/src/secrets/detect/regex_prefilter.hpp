// regex_prefilter.hpp: RegexPrefilter, one Vectorscan scan for the regexes of
// every rule that has no keywords (../README.md, "Matching"), as Nosey
// Parker's first stage: each byte is read once whatever the number of such
// rules, and RE2 then runs only where a rule's regex may match.
//
// Each regex is compiled in Vectorscan's prefilter mode (HS_FLAG_PREFILTER:
// it reports at least every place the regex matches, maybe more, so that
// constructs Vectorscan lacks or would blow up on, such as large bounded
// repeats, are approximated rather than refused) and multi-line (`^` and `$`
// at every line's edge: more places than RE2's text edges, still a
// superset). A rule whose regex cannot match a '\n' (may_match_newline())
// has its matches within one line, the line holding the match's end, which
// Vectorscan's end offset names: RE2 runs on those lines, and finds there
// exactly what it finds over the whole text. So does a rule whose match may
// end in its line's newline and hold no other (newline_only_last()): a hit
// whose last byte is a '\n' names the line that newline ends. A rule whose regex may span
// lines runs over the whole text, if Vectorscan saw a hit anywhere in it; its
// reach (the widest match Vectorscan's approximation allows, when bounded)
// tells a caller which lines around its keywords' lines such a match can lie in.
// Left to RE2 over every text: regexes with bytes >= 0x80 or Unicode classes
// (Vectorscan reads those bytes and classes otherwise than RE2's Latin-1
// mode), a NUL, one Vectorscan rejects even as a prefilter, and texts of
// 1 GiB or more.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "match/database_cache.hpp"
#include "secrets/detect/line_spans.hpp"

struct hs_database;
struct hs_scratch;

namespace stealscan::secrets {

class RegexPrefilter {
 public:
  // regexes[r]: rule r's regex if it is to be prefiltered, else empty. A
  // regex that does not qualify (see above) is left out: covers(r) false.
  RegexPrefilter(const std::vector<std::string>& regexes, const DatabaseCache& cache);
  ~RegexPrefilter();
  RegexPrefilter(const RegexPrefilter&) = delete;
  RegexPrefilter& operator=(const RegexPrefilter&) = delete;

  // Whether rule r's regex is in the database.
  [[nodiscard]] bool covers(std::size_t r) const { return r < slot_.size() && slot_[r] != kNone; }

  // How far a match of a covered rule's regex reaches: kOneLine (it keeps to
  // one line: the class above), else the most bytes it can hold, or kUnbounded.
  static constexpr std::size_t kOneLine = 0;
  static constexpr std::size_t kUnbounded = static_cast<std::size_t>(-1);
  [[nodiscard]] std::size_t reach(std::size_t r) const { return reach_[slot_[r]]; }

  class Scratch {
   public:
    explicit Scratch(const RegexPrefilter& filter);
    ~Scratch();
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;

    // Where scan_lines() put each line span in its copy: its first byte
    // there and in the text.
    struct Piece {
      std::size_t at_copy;
      std::size_t at_text;
    };

   private:
    friend class RegexPrefilter;
    hs_scratch* hs_ = nullptr;
    std::vector<std::vector<LineSpan>> lines_;  // per slot: the lines of its hits
    std::string copy_;                          // what was scanned, with padding after it
    std::vector<Piece> pieces_;
  };

  // Scans `text` once for every covered rule. False (nothing scanned) for an
  // empty text or one too long for one scan: the caller runs those rules
  // over it whole.
  bool scan(std::string_view text, Scratch& scratch) const;
  // As scan(), over only the lines `only` of `text` (sorted, disjoint spans
  // of whole lines, as KeywordFilter gives): they are copied one after the
  // other, each followed by a '\n', and scanned in one pass. A rule whose
  // matches keep to one line gets the lines of `only` where it may match,
  // exactly as scan() would answer within them: each line is whole and
  // between '\n's in the copy as in the text, so ^, $ and \b see what they
  // see there. A rule whose matches may span lines gets the whole text if it
  // has unbounded reach (the copy cannot tell), or if it may match somewhere
  // in the copy, and nothing otherwise: so for such a rule `only` must hold
  // every run of lines its wanted matches can lie in whole (widen() around
  // the lines they must cover); its caller then searches the whole text as
  // without a prefilter. Worth it where the lines are a small part of the
  // text: the lines that hold a rule's keyword are all its regex is searched
  // on, or must be covered by its matches (KeywordScope::line).
  bool scan_lines(std::string_view text, const std::vector<LineSpan>& only, Scratch& scratch) const;
  // After scan(): the lines of the text where rule r's regex may match, as
  // sorted, disjoint spans (empty: it matches nowhere; for a regex that may
  // span lines, the whole text as one span when it may match anywhere).
  [[nodiscard]] const std::vector<LineSpan>& lines_for(std::size_t r, const Scratch& scratch) const {
    return scratch.lines_[slot_[r]];
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::size_t> slot_;   // rule -> its pattern id in the database, or kNone
  std::vector<std::size_t> reach_;  // pattern id -> kOneLine, a match's most bytes, or kUnbounded
  hs_database* db_ = nullptr;       // null: nothing covered
};

// Whether `regex` may go to the prefilter at all (before Vectorscan is asked):
// it holds no byte >= 0x80, no Unicode class, no NUL.
bool prefilter_eligible(std::string_view regex);

}  // namespace stealscan::secrets

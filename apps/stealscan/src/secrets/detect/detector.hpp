// detector.hpp: Detector, a RuleSet compiled, and the per-file pipeline of
// ../README.md ("Matching"): keywords -> each triggered rule's regex, leftmost
// non-overlapping matches -> secret group -> entropy -> allowlists (rule's,
// then global) -> inline allow comments. Built once and shared, read-only, by
// every worker (RE2 objects are safe to share); each worker brings its own
// Detector::Scratch.
#pragma once

#include <deque>
#include <memory>
#include <string_view>
#include <vector>

#include <re2/re2.h>

#include "match/database_cache.hpp"
#include "secrets/rules/allowlist_check.hpp"
#include "secrets/report/finding.hpp"
#include "secrets/detect/decode_splice.hpp"
#include "secrets/detect/deferred_prefilter.hpp"
#include "secrets/detect/keyword_filter.hpp"
#include "secrets/detect/regex_prefilter.hpp"
#include "secrets/rules/rule.hpp"

namespace stealscan::secrets {

class InlineAllows;

struct DetectorOptions {
  // How many decoding passes run (decode_splice.hpp; 0: none; 2: base64
  // inside base64, or hex inside percent, and so on; the CLI's default is
  // gitleaks' 5).
  unsigned decode_depth = 2;
  KeywordScope keyword_scope = KeywordScope::line;
  // Where the compiled keyword database is kept between runs (default: nowhere).
  DatabaseCache cache;
  // Compile every rule's regex in the constructor, so that a bad one is a
  // ConfigError there; otherwise each is compiled when a file first needs it
  // (for the built-in rules, which the tests compile).
  bool compile_now = true;
  // Run the regexes of rules without keywords through one Vectorscan
  // prefilter scan (regex_prefilter.hpp), RE2 then only on the lines it
  // names; off: RE2 over every text (the same findings, slower: the tests
  // compare the two).
  bool regex_prefilter = true;
  // With regex_prefilter: once this many bytes have been scanned, every
  // rule's regex goes through the prefilter, those with keywords too
  // (deferred_prefilter.hpp; 0: from the first text).
  std::uint64_t prefilter_all_after = std::uint64_t{64} << 20;
  // Whether "stealscan:allow" / "gitleaks:allow" on a line drops its findings
  // (false: --ignore-gitleaks-allow).
  bool inline_allows = true;
};

class Detector {
 public:
  // Throws ConfigError naming the rule for a bad regex, a secretGroup the regex
  // does not have, or a targetRules id that no rule has.
  explicit Detector(RuleSet rules, DetectorOptions options = {});
  ~Detector();
  Detector(const Detector&) = delete;
  Detector& operator=(const Detector&) = delete;

  [[nodiscard]] const RuleSet& rules() const noexcept { return rules_; }

  // Compiles every rule's regex not compiled yet; throws ConfigError for the
  // first bad one (the constructor does this unless compile_now is false).
  void compile_all() const;

  class Scratch {
   public:
    explicit Scratch(const Detector& d) : keywords_(d.keywords_), prefilter_(d.prefilter_) {}

   private:
    friend class Detector;
    KeywordFilter::Scratch keywords_;
    RegexPrefilter::Scratch prefilter_;
    std::unique_ptr<RegexPrefilter::Scratch> all_;  // for the prefilter of every rule, once there is one
    std::vector<LineSpan> both_;  // lines of a rule's keywords where its prefilter may match
    std::vector<LineSpan> any_keyword_;  // the lines that hold any keyword (prefilter())
    DecodeScratch decode_;        // the decoding passes' buffers, kept from file to file
    std::vector<SplicedText::Piece> file_pieces_;
    SplicedText cur_, next_;
    std::vector<std::size_t> rules_;
    std::vector<re2::StringPiece> groups_;
    LineVerdicts line_verdicts_;  // of the text being scanned
  };

  // How many parts of each required rule a composite rule's finding carries
  // at most: the nearest by line (gitleaks attaches every one, which is
  // quadratic in a text full of both).
  static constexpr std::size_t kMaxParts = 8;

  // Appends the findings in `text`, the bytes of the file shown as `path`;
  // `commit` (hex, for a blob of git history) is what allowlists' commits see.
  // A generic rule's finding that a specific rule's finding repeats is left
  // out (generic_findings.hpp).
  void scan(std::string_view path, std::string_view text, Scratch& scratch, std::vector<Finding>& out,
            std::string_view commit = {}) const;

 private:
  struct Compiled;
  // A decoding pass's text: where its stretches come from in the file, whose
  // lines give the findings' positions. Only matches touching what this pass
  // decoded are its own (the others were found by an earlier pass).
  struct Blob {
    InlineAllows* file_lines;
    const SplicedText* spliced;
    unsigned pass;
  };
  // The prefilter a text goes through, and the worker's scratch for it.
  struct Prefilter {
    const RegexPrefilter* filter;
    RegexPrefilter::Scratch* scratch;
  };
  // The prefilter's scan of `text` for the rules of s.rules_ (false: none made).
  bool prefilter(std::string_view text, const Prefilter& prefilter, Scratch& scratch) const;
  // The file's text, then each decoding pass's, into `out`.
  void scan_layers(std::string_view path, std::string_view commit, std::string_view text, const Prefilter& prefilter,
                   Scratch& scratch, std::vector<Finding>& out) const;
  // `commit`: as scan()'s, for the allowlists.
  void scan_layer(std::string_view path, std::string_view commit, std::string_view text, const Blob* blob,
                  const Prefilter& prefilter, Scratch& scratch, std::vector<Finding>& out) const;
  // Runs one rule over `text`; `keyword_lines` (null: everywhere) are the
  // lines a match must cover.
  void scan_rule(const Compiled& rule, std::string_view path, std::string_view commit, std::string_view text,
                 InlineAllows& lines, const Blob* blob, const std::vector<LineSpan>* keyword_lines, Scratch& scratch,
                 std::vector<Finding>& out) const;
  // The matches of `rule` that start in [from, to) (leftmost, non-overlapping),
  // each reported unless `keep` says no.
  void scan_range(const Compiled& rule, std::string_view path, std::string_view commit, std::string_view text,
                  std::size_t from, std::size_t to, InlineAllows& lines, const Blob* blob,
                  const std::vector<LineSpan>* keep, Scratch& scratch, std::vector<Finding>& out) const;
  [[nodiscard]] bool allowed(const Compiled& rule, const Candidate& c) const;
  // Keeps the findings out[from, end) of composite rule `c` that have a
  // finding of each required rule nearby (each required rule run over the
  // whole text, keywords or not, as gitleaks does), with those parts attached:
  // of each required rule, the kMaxParts nearest by line.
  void keep_composite(const Compiled& c, std::string_view path, std::string_view commit, std::string_view text,
                      InlineAllows& lines, const Blob* blob, std::size_t from, Scratch& scratch,
                      std::vector<Finding>& out) const;

  RuleSet rules_;
  std::deque<Compiled> compiled_;  // one per rule, in order (a deque: Compiled does not move)
  std::vector<AllowlistCheck> global_;
  KeywordFilter keywords_;
  RegexPrefilter prefilter_;  // the keyword-less rules' regexes, one scan for all
  DeferredPrefilter all_;     // every rule's regex, once enough has been scanned
  bool prefilter_all_;        // options.regex_prefilter
  bool inline_allows_;        // options.inline_allows
  unsigned decode_depth_;
  KeywordScope keyword_scope_;
};

}  // namespace stealscan::secrets

// detector.hpp: Detector, a RuleSet compiled, and the per-file pipeline of
// README.md ("Matching"): keywords -> each triggered rule's regex, leftmost
// non-overlapping matches -> secret group -> entropy -> allowlists (rule's,
// then global) -> inline allow comments. Built once and shared, read-only, by
// every worker (RE2 objects are safe to share); each worker brings its own
// Detector::Scratch.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include <re2/re2.h>

#include "secrets/allowlist_check.hpp"
#include "secrets/finding.hpp"
#include "secrets/keyword_filter.hpp"
#include "secrets/rule.hpp"

namespace stealscan::secrets {

class LineIndex;

class Detector {
 public:
  // Throws ConfigError naming the rule for a bad regex, a secretGroup the regex
  // does not have, or a targetRules id that no rule has. `decode_depth`: how
  // many layers of base64 are decoded (0: none; 2: base64 inside base64).
  explicit Detector(RuleSet rules, unsigned decode_depth = kDefaultDecodeDepth);
  static constexpr unsigned kDefaultDecodeDepth = 2;
  ~Detector();
  Detector(const Detector&) = delete;
  Detector& operator=(const Detector&) = delete;

  [[nodiscard]] const RuleSet& rules() const noexcept { return rules_; }

  class Scratch {
   public:
    explicit Scratch(const Detector& d) : keywords_(d.keywords_) {}

   private:
    friend class Detector;
    KeywordFilter::Scratch keywords_;
    std::vector<std::size_t> rules_;
    std::vector<re2::StringPiece> groups_;
  };

  // Appends the findings in `text`, the bytes of the file shown as `path`.
  void scan(std::string_view path, std::string_view text, Scratch& scratch, std::vector<Finding>& out) const;

 private:
  struct Compiled;
  // Where a decoded text came from: the blob [begin, end) of the file's own
  // bytes, whose lines give the findings' positions.
  struct Blob {
    LineIndex* file_lines;
    std::size_t begin, end;
  };
  void scan_layer(std::string_view path, std::string_view text, const Blob* blob, unsigned depth, Scratch& scratch,
                  std::vector<Finding>& out) const;
  void scan_rule(const Compiled& rule, std::string_view path, std::string_view text, LineIndex& lines,
                 const Blob* blob, Scratch& scratch, std::vector<Finding>& out) const;
  [[nodiscard]] bool allowed(const Compiled& rule, const Candidate& c) const;

  RuleSet rules_;
  std::vector<Compiled> compiled_;  // one per rule, in order
  std::vector<AllowlistCheck> global_;
  KeywordFilter keywords_;
  unsigned decode_depth_;
};

}  // namespace stealscan::secrets

// detector.cpp: Detector (detector.hpp; README.md, "Matching").
#include "secrets/detector.hpp"

#include <algorithm>
#include <unordered_map>

#include "secrets/base64_blobs.hpp"
#include "secrets/entropy.hpp"
#include "secrets/line_index.hpp"

namespace stealscan::secrets {
namespace {

constexpr std::string_view kInlineAllow[] = {"stealscan:allow", "gitleaks:allow"};

std::vector<std::vector<std::string>> keywords_of(const RuleSet& rules) {
  std::vector<std::vector<std::string>> out;
  for (const Rule& r : rules.rules) out.push_back(r.keywords);
  return out;
}

bool has_inline_allow(std::string_view lines) {
  return std::any_of(std::begin(kInlineAllow), std::end(kInlineAllow),
                     [&](std::string_view a) { return lines.find(a) != std::string_view::npos; });
}

}  // namespace

struct Detector::Compiled {
  const Rule* rule;
  std::unique_ptr<RE2> regex;  // null: a path-only rule
  std::unique_ptr<RE2> path;   // null: any file
  int group = 0;               // the secret's capture group (0: the whole match)
  std::vector<AllowlistCheck> allowlists;
  std::vector<const AllowlistCheck*> global;  // the global allowlists that target this rule
};

Detector::Detector(RuleSet rules, unsigned decode_depth)
    : rules_(std::move(rules)), keywords_(keywords_of(rules_)), decode_depth_(decode_depth) {
  std::unordered_map<std::string_view, std::size_t> by_id;
  compiled_.reserve(rules_.rules.size());
  for (const Rule& r : rules_.rules) {
    by_id.emplace(r.id, compiled_.size());
    Compiled c{&r, nullptr, nullptr, 0, {}, {}};
    if (!r.regex.empty()) {
      c.regex = compile_config_regex(r.regex, r.where, "regex");
      const int groups = c.regex->NumberOfCapturingGroups();
      if (r.secret_group && *r.secret_group > groups)
        throw ConfigError(r.where + ": 'secretGroup' is " + std::to_string(*r.secret_group) + " but 'regex' has " +
                          std::to_string(groups) + " capture group" + (groups == 1 ? "" : "s"));
      c.group = r.secret_group.value_or(groups >= 1 ? 1 : 0);
    }
    if (!r.path.empty()) c.path = compile_config_regex(r.path, r.where, "path");
    for (const Allowlist& a : r.allowlists) c.allowlists.emplace_back(a);
    compiled_.push_back(std::move(c));
  }
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

bool Detector::allowed(const Compiled& rule, const Candidate& c) const {
  const auto allows = [&](const AllowlistCheck* a) { return a->allows(c); };
  for (const AllowlistCheck& a : rule.allowlists)
    if (a.allows(c)) return true;
  return std::any_of(rule.global.begin(), rule.global.end(), allows);
}

void Detector::scan(std::string_view path, std::string_view text, Scratch& s, std::vector<Finding>& out) const {
  scan_layer(path, text, nullptr, 0, s, out);
}

// One layer: the file's bytes (blob null), or text decoded from a blob of them.
void Detector::scan_layer(std::string_view path, std::string_view text, const Blob* blob, unsigned depth, Scratch& s,
                          std::vector<Finding>& out) const {
  keywords_.rules_for(text, s.keywords_, s.rules_);
  LineIndex lines(text);
  for (const std::size_t r : s.rules_) {
    const Compiled& c = compiled_[r];
    if (c.path != nullptr && !RE2::PartialMatch(path, *c.path)) continue;
    if (c.regex == nullptr) {
      if (blob != nullptr) continue;  // the file was found by its path already
      // A path-only rule: the file itself is the finding.
      const Candidate cand{path, {}, {}, {}};
      if (allowed(c, cand)) continue;
      Finding f;
      f.rule = c.rule;
      f.file = path;
      f.match = "file detected: " + std::string(path);
      out.push_back(std::move(f));
      continue;
    }
    scan_rule(c, path, text, lines, blob, s, out);
  }
  if (depth >= decode_depth_) return;
  // s.rules_ is free again: a nested layer may reuse the scratch.
  std::string decoded;
  for_each_base64_blob(text, [&](std::size_t begin, std::size_t end) {
    decoded.clear();
    if (!decode_base64(text.substr(begin, end - begin), decoded) || !decoded_is_text(decoded)) return;
    // Positions stay those of the outermost blob in the file.
    const Blob inner = blob != nullptr ? *blob : Blob{&lines, begin, end};
    scan_layer(path, decoded, &inner, depth + 1, s, out);
  });
}

void Detector::scan_rule(const Compiled& c, std::string_view path, std::string_view text, LineIndex& lines,
                         const Blob* blob, Scratch& s, std::vector<Finding>& out) const {
  s.groups_.assign(static_cast<std::size_t>(c.regex->NumberOfCapturingGroups()) + 1, re2::StringPiece());
  const int n = static_cast<int>(s.groups_.size());
  std::size_t pos = 0;
  while (pos <= text.size() &&
         c.regex->Match(re2::StringPiece(text.data(), text.size()), pos, text.size(), RE2::UNANCHORED,
                        s.groups_.data(), n)) {
    re2::StringPiece whole = s.groups_[0];
    const auto begin = static_cast<std::size_t>(whole.data() - text.data());
    const std::size_t matched_end = begin + whole.size();
    pos = matched_end > begin ? matched_end : matched_end + 1;  // leftmost, non-overlapping; empty: on a byte
    // A rule that ends its token with "a byte that cannot continue it" takes
    // the line's newline along: the reported match stops before it.
    while (!whole.empty() && (whole[whole.size() - 1] == '\n' || whole[whole.size() - 1] == '\r'))
      whole.remove_suffix(1);
    const std::size_t end = begin + whole.size();
    re2::StringPiece secret = s.groups_[static_cast<std::size_t>(c.group)];
    if (secret.data() == nullptr) {
      if (c.rule->secret_group) continue;  // the named group took no part in this match
      secret = whole;
    }
    const std::string_view match_text(whole.data(), whole.size());
    const std::string_view secret_text(secret.data(), secret.size());
    const double entropy = shannon_entropy(secret_text);
    if (c.rule->entropy && entropy < *c.rule->entropy) continue;
    const std::string_view line_text = lines.lines(begin, end);
    if (allowed(c, Candidate{path, match_text, secret_text, line_text})) continue;
    if (has_inline_allow(line_text)) continue;
    // A decoded match is placed at its blob, whose lines may allow it too.
    LineIndex& place = blob != nullptr ? *blob->file_lines : lines;
    const std::size_t from_at = blob != nullptr ? blob->begin : begin;
    const std::size_t to_at = blob != nullptr ? blob->end : end;
    if (blob != nullptr && has_inline_allow(place.lines(from_at, to_at))) continue;
    Finding f;
    f.rule = c.rule;
    f.file = path;
    if (blob != nullptr) f.decoded = "base64";
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

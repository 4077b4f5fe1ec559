// allowlist_check.cpp: AllowlistCheck (allowlist_check.hpp).
#include "secrets/rules/allowlist_check.hpp"

#include <algorithm>
#include <optional>

#include "match/re2_text.hpp"
#include "secrets/detect/ascii.hpp"

namespace stealscan::secrets {
namespace {

bool any_match(const std::vector<std::unique_ptr<RE2>>& regexes, std::string_view text) {
  return std::any_of(regexes.begin(), regexes.end(),
                     [&](const std::unique_ptr<RE2>& re) { return RE2::PartialMatch(text, *re); });
}

}  // namespace

RE2::Options secret_regex_options() {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_log_errors(false);
  o.set_max_mem(64 << 20);
  return o;
}

std::unique_ptr<RE2> compile_config_regex(const std::string& pattern, const std::string& where,
                                          std::string_view field) {
  // Through re2_text(), as the search's regexes: a byte >= 0x80 becomes a
  // repeat, which RE2 20220601 does not factor out of an alternation (it lost
  // Latin-1 mode when it did: "café1|café2" matched nothing), and (?i) folds
  // ASCII letters only (Latin-1 folding of UTF-8 bytes matched nonsense such
  // as "ã©" for (?i)"é"; gitleaks' Go regexps fold Unicode, which no byte
  // engine here does).
  auto re = std::make_unique<RE2>(re2_text(pattern, false), secret_regex_options());
  if (!re->ok())
    throw ConfigError(where + ": '" + std::string(field) + "' is not a valid regular expression: " + pattern + ": " +
                      re->error());
  return re;
}

AllowlistCheck::AllowlistCheck(const Allowlist& a)
    : target_(a.target), stopwords_(a.stopwords), condition_(a.condition) {
  for (const std::string& c : a.commits) commits_.push_back(ascii_lower(c));
  for (const std::string& r : a.regexes) regexes_.push_back(compile_config_regex(r, a.where, "regexes"));
  for (const std::string& p : a.paths) paths_.push_back(compile_config_regex(p, a.where, "paths"));
}

bool AllowlistCheck::allows(const Candidate& c) const {
  // Outside git there is no commit: a commits check is a miss there (so an
  // AND allowlist that lists commits allows nothing outside git, as gitleaks).
  if (!active() && (commits_.empty() || c.commit.empty())) return false;
  const std::string_view target = target_ == RegexTarget::secret ? c.secret
                                  : target_ == RegexTarget::match ? c.match
                                                                  : c.line;
  // Each configured check, lazily: OR stops at the first hit, AND at the first miss.
  const bool all = condition_ == Condition::all;
  bool decided_any = false;
  auto check = [&](bool configured, auto&& hit) -> std::optional<bool> {
    if (!configured) return std::nullopt;
    decided_any = true;
    const bool h = hit();
    if (!all && h) return true;
    if (all && !h) return false;
    return std::nullopt;
  };
  if (auto r = check(!commits_.empty(), [&] {
        return !c.commit.empty() && std::find(commits_.begin(), commits_.end(), c.commit) != commits_.end();
      }))
    return *r;
  if (auto r = check(!paths_.empty(), [&] { return any_match(paths_, c.path); })) return *r;
  if (auto r = check(!regexes_.empty(), [&] {
        if (target_ != RegexTarget::line || c.verdicts == nullptr) return any_match(regexes_, target);
        return c.verdicts->get(this, target, [&] { return any_match(regexes_, target); });
      }))
    return *r;
  if (auto r = check(!stopwords_.empty(), [&] {
        return std::any_of(stopwords_.begin(), stopwords_.end(),
                           [&](const std::string& w) { return contains_caseless(c.secret, w); });
      }))
    return *r;
  return all && decided_any;
}

}  // namespace stealscan::secrets

// overrides.cpp: Overrides and expand_alternatives() (overrides.hpp).
#include "walk/overrides.hpp"

namespace stealscan {
namespace {

constexpr std::size_t kMaxAlternatives = 1000;

[[noreturn]] void bad_glob(std::string_view glob, std::string_view why) {
  throw GlobError("invalid glob '" + std::string(glob) + "': " + std::string(why));
}

// The first '{' at `from` or later that is not escaped nor inside [...], and its
// matching '}'; npos when there is no '{'. Throws for an unclosed one.
std::pair<std::size_t, std::size_t> first_group(std::string_view g, std::string_view whole) {
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (g[i] == '\\') {
      ++i;
    } else if (g[i] == '[') {
      const std::size_t close = g.find(']', i + 2);  // "[]...]": the first ']' is a member
      if (close != std::string_view::npos) i = close;
    } else if (g[i] == '{') {
      int depth = 0;
      for (std::size_t j = i; j < g.size(); ++j) {
        if (g[j] == '\\') {
          ++j;
        } else if (g[j] == '{') {
          ++depth;
        } else if (g[j] == '}' && --depth == 0) {
          return {i, j};
        }
      }
      bad_glob(whole, "unclosed alternatives '{' (write '\\{' for a literal one)");
    }
  }
  return {std::string_view::npos, std::string_view::npos};
}

void expand_into(std::string_view g, std::string_view whole, std::vector<std::string>& out) {
  const auto [open, close] = first_group(g, whole);
  if (open == std::string_view::npos) {
    if (out.size() >= kMaxAlternatives) bad_glob(whole, "more than 1000 alternatives");
    out.emplace_back(g);
    return;
  }
  // Split the group's inside at its top-level commas.
  const std::string_view inside = g.substr(open + 1, close - open - 1);
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= inside.size(); ++i) {
    if (i < inside.size() && inside[i] == '\\') {
      ++i;
      continue;
    }
    if (i < inside.size() && inside[i] == '{') ++depth;
    if (i < inside.size() && inside[i] == '}') --depth;
    if (i == inside.size() || (inside[i] == ',' && depth == 0)) {
      std::string one(g.substr(0, open));
      one.append(inside.substr(start, i - start));
      one.append(g.substr(close + 1));
      expand_into(one, whole, out);
      start = i + 1;
    }
  }
}

}  // namespace

std::vector<std::string> expand_alternatives(std::string_view glob) {
  std::vector<std::string> out;
  expand_into(glob, glob, out);
  return out;
}

Overrides::Overrides(const std::vector<GlobOption>& globs) {
  for (const GlobOption& g : globs) {
    for (const std::string& one : expand_alternatives(g.glob)) {
      if (!one.empty() && one.front() == '#') bad_glob(g.glob, "a glob starting with '#' is a comment (write '\\#')");
      std::optional<IgnoreRule> rule = parse_rule(one, g.ignore_case);
      if (!rule) bad_glob(g.glob, "it is empty");
      if (rule->glob.has_unterminated_class()) bad_glob(g.glob, "unclosed character class '[' (write '\\[')");
      any_include_ = any_include_ || !rule->negated;
      rules_.push_back(std::move(*rule));
    }
  }
}

IgnoreVerdict Overrides::verdict(std::string_view relative, bool is_dir) const {
  if (rules_.empty()) return IgnoreVerdict::none;
  // match_rules says `ignore` for a plain glob, `keep` for a '!' one: the reverse here.
  switch (match_rules(rules_, relative, is_dir)) {
    case IgnoreVerdict::ignore: return IgnoreVerdict::keep;
    case IgnoreVerdict::keep: return IgnoreVerdict::ignore;
    case IgnoreVerdict::none: break;
  }
  return any_include_ && !is_dir ? IgnoreVerdict::ignore : IgnoreVerdict::none;
}

}  // namespace stealscan

// gitignore.cpp: .gitignore parsing and matching (gitignore.hpp).
#include "walk/gitignore.hpp"

#include <array>

namespace stealscan {

std::optional<IgnoreRule> parse_rule(std::string_view line, bool ignore_case) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  // Trailing spaces go, unless the last one is escaped.
  while (!line.empty() && line.back() == ' ' && !(line.size() >= 2 && line[line.size() - 2] == '\\'))
    line.remove_suffix(1);
  if (line.empty() || line.front() == '#') return std::nullopt;
  IgnoreRule r;
  if (line.front() == '!') {
    r.negated = true;
    line.remove_prefix(1);
  }
  if (!line.empty() && line.back() == '/') {
    r.directory_only = true;
    while (!line.empty() && line.back() == '/') line.remove_suffix(1);
  }
  if (line.find('/') != std::string_view::npos) r.anchored = true;
  while (!line.empty() && line.front() == '/') line.remove_prefix(1);
  if (line.empty()) return std::nullopt;
  // "\#" and "\!" at the start are literal; the glob reads `\x` as x anyway.
  r.pattern = std::string(line);
  r.glob = Glob(r.pattern, ignore_case);
  return r;
}

std::vector<IgnoreRule> parse_gitignore(std::string_view contents) {
  std::vector<IgnoreRule> rules;
  while (!contents.empty()) {
    const std::size_t nl = contents.find('\n');
    const std::string_view line = contents.substr(0, nl);
    contents.remove_prefix(nl == std::string_view::npos ? contents.size() : nl + 1);
    if (auto r = parse_rule(line)) rules.push_back(std::move(*r));
  }
  return rules;
}

IgnoreVerdict match_rules(const std::vector<IgnoreRule>& rules, std::string_view relative, bool is_dir) {
  const std::size_t slash = relative.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? relative : relative.substr(slash + 1);
  for (auto it = rules.rbegin(); it != rules.rend(); ++it) {
    if (it->directory_only && !is_dir) continue;
    if (it->glob.matches(it->anchored ? relative : name))
      return it->negated ? IgnoreVerdict::keep : IgnoreVerdict::ignore;
  }
  return IgnoreVerdict::none;
}

IgnoreVerdict IgnoreStack::verdict(std::string_view path, bool is_dir, std::string& scratch) const {
  // The first verdict of each kind, deepest file first; the strongest kind wins.
  std::array<IgnoreVerdict, kIgnoreKinds> found{};
  bool outer_repository = false;  // past a nested repository's root
  for (const IgnoreStack* s = this; s != nullptr; s = s->parent_.get()) {
    if (s->boundary_) {
      outer_repository = true;
      continue;
    }
    if (outer_repository && (s->kind_ == IgnoreKind::gitignore || s->kind_ == IgnoreKind::git_exclude)) continue;
    const auto kind = static_cast<std::size_t>(s->kind_);
    if (found[kind] != IgnoreVerdict::none || path.size() <= s->base_length_) continue;
    std::string_view relative = path.substr(s->base_length_);
    if (!s->prefix_.empty()) {
      scratch.assign(s->prefix_);
      scratch.append(relative);
      relative = scratch;
    }
    found[kind] = match_rules(s->rules_, relative, is_dir);
    if (kind == 0 && found[kind] != IgnoreVerdict::none) break;
  }
  for (const IgnoreVerdict v : found)
    if (v != IgnoreVerdict::none) return v;
  return IgnoreVerdict::none;
}

}  // namespace stealscan

// gitignore.cpp: .gitignore parsing and matching (gitignore.hpp).
#include "walk/gitignore.hpp"

namespace stealscan {

std::vector<IgnoreRule> parse_gitignore(std::string_view contents) {
  std::vector<IgnoreRule> rules;
  while (!contents.empty()) {
    const std::size_t nl = contents.find('\n');
    std::string_view line = contents.substr(0, nl);
    contents.remove_prefix(nl == std::string_view::npos ? contents.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // Trailing spaces go, unless the last one is escaped.
    while (!line.empty() && line.back() == ' ' && !(line.size() >= 2 && line[line.size() - 2] == '\\'))
      line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
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
    if (line.empty()) continue;
    // "\#" and "\!" at the start are literal; glob_match reads `\x` as x anyway.
    r.pattern = std::string(line);
    r.glob = Glob(r.pattern);
    rules.push_back(std::move(r));
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

bool IgnoreStack::ignored(std::string_view path, bool is_dir) const {
  for (const IgnoreStack* s = this; s != nullptr; s = s->parent_.get()) {
    if (path.size() <= s->base_length_) continue;
    const IgnoreVerdict v = match_rules(s->rules_, path.substr(s->base_length_), is_dir);
    if (v != IgnoreVerdict::none) return v == IgnoreVerdict::ignore;
  }
  return false;
}

}  // namespace stealscan

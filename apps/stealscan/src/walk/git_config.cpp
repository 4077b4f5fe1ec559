// git_config.cpp: core.excludesFile (git_config.hpp).
#include "walk/git_config.hpp"

#include <fcntl.h>

#include <cctype>

#include "walk/small_file.hpp"

namespace stealscan {
namespace {

bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

// A value after '=': quotes group, `\` escapes, `#` or `;` outside quotes ends it,
// spaces at the end outside quotes go.
std::string parse_value(std::string_view s) {
  s = trim_left(s);
  std::string out;
  std::size_t keep = 0;  // out's length without trailing unquoted spaces
  bool quoted = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      quoted = !quoted;
      keep = out.size();
    } else if (c == '\\' && i + 1 < s.size()) {
      const char e = s[++i];
      out.push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'b' ? '\b' : e);
      keep = out.size();
    } else if (!quoted && (c == '#' || c == ';')) {
      break;
    } else {
      out.push_back(c);
      if (quoted || !is_space(c)) keep = out.size();
    }
  }
  out.resize(keep);
  return out;
}

std::string expand_tilde(std::string path, const char* home) {
  if (home != nullptr && *home != '\0' && (path == "~" || path.rfind("~/", 0) == 0)) path.replace(0, 1, home);
  return path;
}

}  // namespace

std::optional<std::string> core_excludes_file(std::string_view config) {
  std::optional<std::string> found;
  bool in_core = false;
  while (!config.empty()) {
    const std::size_t nl = config.find('\n');
    std::string_view line = trim_left(config.substr(0, nl));
    config.remove_prefix(nl == std::string_view::npos ? config.size() : nl + 1);
    if (!line.empty() && line.front() == '[') {
      const std::size_t close = line.find(']');
      if (close == std::string_view::npos) {
        in_core = false;
        continue;
      }
      std::string_view section = trim_left(line.substr(1, close - 1));
      while (!section.empty() && is_space(section.back())) section.remove_suffix(1);
      in_core = equals_ignoring_case(section, "core");  // `[core "x"]` is another section
      line = trim_left(line.substr(close + 1));         // a key may follow on the same line
    }
    if (!in_core || line.empty() || line.front() == '#' || line.front() == ';') continue;
    std::size_t k = 0;
    while (k < line.size() && (std::isalnum(static_cast<unsigned char>(line[k])) || line[k] == '-')) ++k;
    if (!equals_ignoring_case(line.substr(0, k), "excludesfile")) continue;
    const std::string_view rest = trim_left(line.substr(k));
    if (rest.empty() || rest.front() != '=') continue;  // a bare key is a boolean: no path
    found = parse_value(rest.substr(1));
  }
  return found;
}

std::string global_excludes_path(const char* home, const char* xdg_config_home) {
  const bool has_home = home != nullptr && *home != '\0';
  const bool has_xdg = xdg_config_home != nullptr && *xdg_config_home != '\0';
  if (!has_home && !has_xdg) return {};
  const std::string config_dir = has_xdg ? std::string(xdg_config_home) : std::string(home) + "/.config";
  std::optional<std::string> configured = core_excludes_file(read_small_file(AT_FDCWD, (config_dir + "/git/config").c_str()));
  if (has_home) {
    if (auto v = core_excludes_file(read_small_file(AT_FDCWD, (std::string(home) + "/.gitconfig").c_str())))
      configured = std::move(v);
  }
  if (configured && !configured->empty()) return expand_tilde(std::move(*configured), home);
  return config_dir + "/git/ignore";
}

}  // namespace stealscan

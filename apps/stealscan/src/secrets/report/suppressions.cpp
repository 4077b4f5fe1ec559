// suppressions.cpp: Suppressions (suppressions.hpp). The baseline is read with
// nlohmann/json (Debian's nlohmann-json3-dev); this is the only unit that
// includes it.
#include "secrets/report/suppressions.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "secrets/detect/base64.hpp"
#include "secrets/rules/rule.hpp"
#include "sources/read_all.hpp"

namespace stealscan::secrets {
namespace {

constexpr std::uint64_t kFileLimit = std::uint64_t{1} << 30;  // a baseline of 1 GiB is refused
constexpr std::string_view kRedacted = "REDACTED";

std::string_view strip_dot_slash(std::string_view file) {
  while (file.substr(0, 2) == "./") file.remove_prefix(2);
  return file;
}

bool is_commit_id(std::string_view s) {
  return (s.size() == 40 || s.size() == 64) &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A fingerprint split at its last two colons: HEAD:RULE:LINE. False when it
// has fewer than two colons or LINE is not a number.
bool split_fingerprint(std::string_view fp, std::string_view& head, std::string_view& rule, std::string_view& line) {
  const std::size_t b = fp.rfind(':');
  if (b == std::string_view::npos || b == 0) return false;
  const std::size_t a = fp.rfind(':', b - 1);
  if (a == std::string_view::npos) return false;
  line = fp.substr(b + 1);
  rule = fp.substr(a + 1, b - a - 1);
  head = fp.substr(0, a);
  return !line.empty() && !rule.empty() &&
         std::all_of(line.begin(), line.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Calls fn(line) for each line of `text`, its "\n" or "\r\n" removed.
template <class Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(line);
  }
}

}  // namespace

std::string Suppressions::key(std::string_view rule, std::string_view file, std::string_view commit,
                              std::uint64_t start_line) {
  std::string k(commit);
  k.push_back('\0');
  k.append(strip_dot_slash(file)).push_back('\0');
  k.append(rule).push_back('\0');
  k.append(std::to_string(start_line));
  return k;
}

void Suppressions::add_fingerprint(std::string_view fp) {
  std::string_view head, rule, line;
  if (!split_fingerprint(fp, head, rule, line)) {
    fingerprints_.insert(std::string(fp));  // never equal to a finding's; kept for completeness
    return;
  }
  std::string_view commit, file = head;
  // commit:file (gitleaks' order) or file:commit (also accepted).
  if (const std::size_t c = head.find(':'); c != std::string_view::npos && is_commit_id(head.substr(0, c))) {
    commit = head.substr(0, c);
    file = head.substr(c + 1);
  } else if (const std::size_t d = head.rfind(':'); d != std::string_view::npos && is_commit_id(head.substr(d + 1))) {
    commit = head.substr(d + 1);
    file = head.substr(0, d);
  }
  std::uint64_t n = 0;
  for (const char ch : line) n = n * 10 + static_cast<std::uint64_t>(ch - '0');
  // A path written on Windows ("dir\\a.py") names the same file as ours
  // ("dir/a.py"), as gitleaks reads it.
  std::string slashed(file);
  std::replace(slashed.begin(), slashed.end(), '\\', '/');
  fingerprints_.insert(key(rule, slashed, commit, n));
}

void Suppressions::add_fingerprint_text(std::string_view text) {
  for_each_line(text, [this](std::string_view line) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (!line.empty() && line.front() != '#') add_fingerprint(line);
  });
}

void Suppressions::add_fingerprint_file(const std::string& path) {
  try {
    add_fingerprint_text(read_named_file(path, "fingerprint file", kFileLimit));
  } catch (const std::runtime_error& e) {
    throw ConfigError(e.what());
  }
}

void Suppressions::add_shared_ignore_file(const std::string& path,
                                          const std::unordered_set<std::string>& rule_ids) {
  std::string text;
  try {
    text = read_named_file(path, "ignore file", kFileLimit);
  } catch (const std::runtime_error&) {
    return;  // missing or unreadable: the walker says what it says of it
  }
  for_each_line(text, [&](std::string_view line) {
    std::string_view head, rule, number;
    if (line.empty() || line.front() == '#' || !split_fingerprint(line, head, rule, number)) return;
    if (rule_ids.count(std::string(rule)) > 0) add_fingerprint(line);
  });
}

void Suppressions::add_baseline_file(const std::string& path) {
  std::string text;
  try {
    text = read_named_file(path, "baseline", kFileLimit);
  } catch (const std::runtime_error& e) {
    throw ConfigError(e.what());
  }
  add_baseline_text(text, path);
}

void Suppressions::add_baseline_text(std::string_view text, std::string_view name) {
  const std::string where(name);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number too large
    throw ConfigError(where + ": not a JSON report: " + e.what());
  }
  if (!doc.is_array()) throw ConfigError(where + ": not a JSON report: expected an array of findings");
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const nlohmann::json& f = doc[i];
    const std::string at = where + ": [" + std::to_string(i) + "]";
    if (!f.is_object()) throw ConfigError(at + ": expected an object");
    // A string field, or a {"bytes": BASE64} object (a name that is not UTF-8).
    const auto str = [&](const char* field, bool required) -> std::string {
      const auto it = f.find(field);
      if (it == f.end() || it->is_null()) {
        if (required) throw ConfigError(at + ": '" + field + "' is missing");
        return {};
      }
      if (it->is_string()) return it->get<std::string>();
      if (it->is_object() && it->contains("bytes") && (*it)["bytes"].is_string()) {
        std::string bytes;
        if (decode_base64((*it)["bytes"].get<std::string>(), bytes)) return bytes;
      }
      throw ConfigError(at + ": '" + field + "' must be a string");
    };
    const auto num = [&](const char* field) -> std::uint64_t {
      const auto it = f.find(field);
      if (it == f.end()) throw ConfigError(at + ": '" + field + "' is missing");
      if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<std::int64_t>() >= 0))
        throw ConfigError(at + ": '" + field + "' must be a number of 0 or more, got " + it->dump());
      return it->get<std::uint64_t>();
    };
    Known k{str("RuleID", true), str("File", true), str("Commit", false), str("Secret", false),
            num("StartLine"),    num("EndLine"),    num("StartColumn"),   num("EndColumn")};
    std::string bucket = key(k.rule, k.file, k.commit, k.start_line);
    baseline_.emplace(std::move(bucket), std::move(k));
  }
}

bool Suppressions::suppresses(const Finding& f) const {
  const std::string k = key(f.rule->id, f.file, f.commit, f.start_line);
  if (fingerprints_.count(k) > 0) return true;
  const auto [first, last] = baseline_.equal_range(k);
  for (auto it = first; it != last; ++it) {
    const Known& b = it->second;
    if (b.end_line == f.end_line && b.start_column == f.start_column && b.end_column == f.end_column &&
        (b.secret == f.secret || b.secret == kRedacted || f.secret == kRedacted))
      return true;
  }
  return false;
}

std::size_t Suppressions::filter(std::vector<Finding>& findings) const {
  if (empty()) return 0;
  const auto gone = std::remove_if(findings.begin(), findings.end(), [this](const Finding& f) { return suppresses(f); });
  const auto n = static_cast<std::size_t>(findings.end() - gone);
  findings.erase(gone, findings.end());
  return n;
}

}  // namespace stealscan::secrets

// keyword_shape.cpp: keyword_shape() (keyword_shape.hpp).
#include "secrets/detect/keyword_shape.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

namespace stealscan::secrets {
namespace {

constexpr unsigned kLeast = 4;   // a shorter repeat is too weak to be worth a check
constexpr unsigned kCheck = 16;  // the most bytes checked after a hit

bool plain_byte(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-'; }

bool caseless_at(std::string_view r, std::size_t i, std::string_view keyword) {
  if (r.size() - i < keyword.size()) return false;
  for (std::size_t k = 0; k < keyword.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(r[i + k])) != static_cast<unsigned char>(keyword[k])) return false;
  return true;
}

// Whether the group closed at r[i] == ')' may be skipped: ?, * or {0 after it.
bool optional_after(std::string_view r, std::size_t i) {
  if (i + 1 >= r.size()) return false;
  const char q = r[i + 1];
  return q == '?' || q == '*' || (q == '{' && i + 2 < r.size() && r[i + 2] == '0');
}

// The repeat count {n}, {n,} or {n,m} at r[i]; 0 if there is none.
unsigned repeat_at(std::string_view r, std::size_t i) {
  if (i >= r.size() || r[i] != '{') return 0;
  std::size_t j = i + 1;
  unsigned n = 0;
  for (; j < r.size() && std::isdigit(static_cast<unsigned char>(r[j])) != 0 && n < 100000; ++j)
    n = n * 10 + static_cast<unsigned>(r[j] - '0');
  if (j == i + 1 || j >= r.size() || (r[j] != '}' && r[j] != ',')) return 0;
  return n;
}

}  // namespace

std::optional<KeywordShape> keyword_shape(std::string_view r, std::string_view keyword) {
  if (keyword.empty() || !std::all_of(keyword.begin(), keyword.end(), plain_byte)) return std::nullopt;
  const ClassScanner classes(r);
  struct Group {
    bool alternative = false;
    bool holds_keyword = false;
  };
  std::vector<Group> open;
  bool top_alternative = false;
  std::optional<std::size_t> after;  // where the keyword's occurrence ends
  for (std::size_t i = 0; i < r.size(); ++i) {
    const char c = r[i];
    if (c == '\\') {
      const std::optional<Escaped> e = byte_escape(r, i);
      i += (e ? e->length : 2) - 1;  // its bytes are not the keyword's
      continue;
    }
    if (c == '[') {
      const std::optional<BracketClass> cls = classes.at(i);
      if (!cls) return std::nullopt;
      i = cls->close;
      continue;
    }
    if (c == '(') {
      if (i + 1 < r.size() && r[i + 1] == '?') {
        // (?flags) sets flags: no group. (?flags:, (?P<name>: a group, its header skipped.
        const std::size_t end = r.find_first_of(":)>", i + 2);
        if (end == std::string_view::npos) return std::nullopt;
        i = end;
        if (r[end] == ')') continue;
      }
      open.emplace_back();
      continue;
    }
    if (c == ')') {
      if (open.empty()) return std::nullopt;
      const Group g = open.back();
      open.pop_back();
      if (g.holds_keyword && (g.alternative || optional_after(r, i))) return std::nullopt;
      if (g.holds_keyword && !open.empty()) open.back().holds_keyword = true;
      continue;
    }
    if (c == '|') {
      (open.empty() ? top_alternative : open.back().alternative) = true;
      if (!open.empty() && open.back().holds_keyword) return std::nullopt;
      continue;
    }
    if (caseless_at(r, i, keyword)) {
      if (after) return std::nullopt;  // twice: which one a match holds is not plain
      after = i + keyword.size();
      if (!open.empty()) open.back().holds_keyword = true;
      i = *after - 1;
    }
  }
  if (!after || top_alternative || !open.empty()) return std::nullopt;
  // Right after it, a class repeated at least kLeast times.
  if (*after >= r.size() || r[*after] != '[') return std::nullopt;
  const std::optional<BracketClass> cls = classes.at(*after);
  if (!cls) return std::nullopt;
  const unsigned n = repeat_at(r, cls->close + 1);
  if (n < kLeast) return std::nullopt;
  const bool fold = r.find("(?i") != std::string_view::npos;  // anywhere: the fold may reach the class
  const std::optional<ByteSet> members = class_members(r, classes, *cls, fold);
  if (!members) return std::nullopt;
  KeywordShape s;
  s.next = cls->negated ? ~*members : *members;
  s.count = std::min(n, kCheck);
  return s;
}

}  // namespace stealscan::secrets

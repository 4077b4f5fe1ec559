// glob.cpp: glob_match() (glob.hpp). Backtracking on '*': patterns in .gitignore
// files are short, and each star only retries the rest of its own segment.
#include "walk/glob.hpp"

namespace stealscan {
namespace {

// Matches a bracket expression at p (p[0] == '['); sets *next past it. Returns -1
// if it is not terminated (then '[' is a literal), else 1 on a match, 0 if not.
int match_class(std::string_view pat, std::size_t p, char c, std::size_t* next) {
  std::size_t i = p + 1;
  bool negate = false;
  if (i < pat.size() && (pat[i] == '!' || pat[i] == '^')) {
    negate = true;
    ++i;
  }
  bool found = false;
  bool first = true;
  while (i < pat.size() && (pat[i] != ']' || first)) {
    first = false;
    char lo = pat[i];
    if (lo == '\\' && i + 1 < pat.size()) lo = pat[++i];
    char hi = lo;
    if (i + 2 < pat.size() && pat[i + 1] == '-' && pat[i + 2] != ']') {
      hi = pat[i + 2];
      i += 2;
      if (hi == '\\' && i + 1 < pat.size()) hi = pat[++i];
    }
    if (static_cast<unsigned char>(c) >= static_cast<unsigned char>(lo) &&
        static_cast<unsigned char>(c) <= static_cast<unsigned char>(hi))
      found = true;
    ++i;
  }
  if (i >= pat.size()) return -1;
  *next = i + 1;
  return found != negate ? 1 : 0;
}

bool match_from(std::string_view pat, std::size_t p, std::string_view text, std::size_t t) {
  while (p < pat.size()) {
    const char c = pat[p];
    if (c == '*') {
      const bool double_star = p + 1 < pat.size() && pat[p + 1] == '*';
      const bool segment_start = p == 0 || pat[p - 1] == '/';
      if (double_star && segment_start && (p + 2 == pat.size() || pat[p + 2] == '/')) {
        if (p + 2 == pat.size()) return true;  // "**" at the end: everything
        // "**/": zero or more directories, i.e. the rest matches at a segment start.
        const std::size_t rest = p + 3;
        for (std::size_t s = t;;) {
          if (match_from(pat, rest, text, s)) return true;
          const std::size_t slash = text.find('/', s);
          if (slash == std::string_view::npos) return false;
          s = slash + 1;
        }
      }
      while (p < pat.size() && pat[p] == '*') ++p;
      if (p == pat.size()) return text.find('/', t) == std::string_view::npos;
      for (std::size_t s = t; s <= text.size(); ++s) {
        if (match_from(pat, p, text, s)) return true;
        if (s < text.size() && text[s] == '/') return false;
      }
      return false;
    }
    if (t == text.size()) return false;
    if (c == '?') {
      if (text[t] == '/') return false;
      ++p;
      ++t;
      continue;
    }
    if (c == '[') {
      std::size_t next = 0;
      const int r = text[t] == '/' ? 0 : match_class(pat, p, text[t], &next);
      if (r == 0) return false;
      if (r == 1) {
        p = next;
        ++t;
        continue;
      }
      // unterminated: a literal '['
    }
    char want = c;
    if (c == '\\' && p + 1 < pat.size()) want = pat[++p];
    if (text[t] != want) return false;
    ++p;
    ++t;
  }
  return t == text.size();
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) { return match_from(pattern, 0, text, 0); }

}  // namespace stealscan

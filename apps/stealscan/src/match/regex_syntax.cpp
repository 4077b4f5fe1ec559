// regex_syntax.cpp: the pattern-text passes of regex_syntax.hpp.
#include "match/regex_syntax.hpp"

#include <cstring>
#include <optional>
#include <utility>

#include "match/regex_class.hpp"
#include "match/unicode_syntax.hpp"

namespace stealscan {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

HexEscape hex_escape(std::string_view r, std::size_t i) {
  HexEscape h;
  std::size_t j = i + 2;
  if (j < r.size() && r[j] == '{') {
    long v = 0;
    std::size_t k = j + 1;
    for (; k < r.size() && r[k] != '}' && k - j <= 8; ++k) {
      const int d = hex_value(r[k]);
      if (d < 0) return h;
      v = v * 16 + d;
    }
    if (k >= r.size() || r[k] != '}' || k == j + 1) return h;
    h.value = v;
    h.length = k + 1 - i;
    return h;
  }
  if (j + 1 < r.size() && hex_value(r[j]) >= 0 && hex_value(r[j + 1]) >= 0) {
    h.value = hex_value(r[j]) * 16 + hex_value(r[j + 1]);
    h.length = 4;
  }
  return h;
}

std::string escape_literal(std::string_view literal) {
  std::string out;
  out.reserve(literal.size() * 2);
  for (const char ch : literal) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_word_byte(c)) out += ch;
    else append_hex_byte(out, c);
  }
  return out;
}

std::optional<std::string> literal_of_regex(std::string_view regex) {
  std::string out;
  out.reserve(regex.size());
  for (std::size_t i = 0; i < regex.size(); ++i) {
    const char c = regex[i];
    switch (c) {
      case '.': case '^': case '$': case '|': case '?': case '*': case '+':
      case '(': case ')': case '[': case ']': case '{': case '}':
        return std::nullopt;
      case '\\': {
        if (i + 1 == regex.size()) return std::nullopt;  // a trailing backslash: RE2 refuses it
        const auto n = static_cast<unsigned char>(regex[i + 1]);
        if (n >= 0x80 || n <= ' ' || is_word_byte(n)) return std::nullopt;  // \d, \x41, \Q...: a class or a construct
        out += static_cast<char>(n);
        ++i;
        break;
      }
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// (?on-off) or (?on-off: at r[i] == '(' (up to and including its ')' or ':'),
// with 'm' taken out of the flags turned off; nullopt if r[i] starts no such
// group (then it is copied as it is).
std::optional<std::pair<std::string, std::size_t>> without_m_off(std::string_view r, std::size_t i) {
  if (i + 2 >= r.size() || r[i + 1] != '?') return std::nullopt;
  std::size_t j = i + 2;
  while (j < r.size() && ((r[j] >= 'a' && r[j] <= 'z') || (r[j] >= 'A' && r[j] <= 'Z') || r[j] == '-')) ++j;
  const std::string_view flags = r.substr(i + 2, j - i - 2);
  const std::size_t dash = flags.find('-');
  if (j >= r.size() || (r[j] != ')' && r[j] != ':') || dash == std::string_view::npos || dash != flags.rfind('-'))
    return std::nullopt;
  std::string kept(flags.substr(0, dash));
  std::string off;
  for (const char f : flags.substr(dash + 1))
    if (f != 'm') off += f;
  if (!off.empty()) kept += "-" + off;
  std::string group;
  if (r[j] == ':') group = "(?" + kept + ":";
  else if (!kept.empty()) group = "(?" + kept + ")";  // else the group set nothing else: dropped
  return std::make_pair(std::move(group), j + 1);
}

}  // namespace

std::string self_contained(std::string_view r) {
  std::string out;
  out.reserve(r.size() + 2);
  const ClassScanner classes(r);
  for (std::size_t i = 0; i < r.size();) {
    const char c = r[i];
    if (c == '\\' && i + 1 < r.size()) {
      const char e = r[i + 1];
      if (e == 'Q') {  // quoted up to \E, or to the end: then the \E is added
        const std::size_t q = r.find("\\E", i + 2);
        const std::size_t end = q == std::string_view::npos ? r.size() : q + 2;
        out.append(r.substr(i, end - i));
        if (q == std::string_view::npos) out += "\\E";
        i = end;
        continue;
      }
      if (e == 'A' || e == 'z') {  // the text's start and end: the line's
        out += e == 'A' ? '^' : '$';
        i += 2;
        continue;
      }
      if (const char* same = same_meaning_escape(e, false)) out += same;  // \v \s \S: as RE2 reads them
      else out.append(r.substr(i, 2));  // any other escape: its second byte is never special here
      i += 2;
      continue;
    }
    if (c == '[') {
      const std::optional<BracketClass> cls = classes.at(i);
      if (!cls) {  // never closes: RE2 refuses the pattern alone as well
        out.append(r.substr(i));
        break;
      }
      // A bare '[' before ':' written \[; \v \s \S as RE2 reads them.
      append_class_text(out, r, classes, *cls, EscapeText::same_meaning);
      i = cls->close + 1;
      continue;
    }
    if (c == '(') {
      if (auto group = without_m_off(r, i)) {
        out += group->first;
        i = group->second;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return out;
}

std::string engine_regex(std::string_view pattern, PatternSyntax syntax, const MatchFlags& flags) {
  return with_match_flags(syntax == PatternSyntax::regex ? self_contained(pattern) : escape_literal(pattern), flags);
}

EngineForms engine_forms(std::string_view pattern, PatternSyntax syntax, const MatchFlags& flags) {
  EngineForms f;
  if (!flags.unicode) {
    f.re2 = engine_regex(pattern, syntax, flags);
    f.bytes = f.re2;
    f.grouped = match_group(flags) == 1;
    return f;
  }
  std::string regex;
  if (syntax == PatternSyntax::literal) {  // its bytes, a UTF-8 sequence kept whole (a code point)
    for (const char ch : pattern) {
      const auto c = static_cast<unsigned char>(ch);
      if (is_word_byte(c) || c >= 0x80) regex += ch;
      else append_hex_byte(regex, c);
    }
  }
  UnicodeForms u = unicode_forms(syntax == PatternSyntax::literal ? std::string_view(regex) : pattern,
                                 flags.ignore_case);
  f.re2 = self_contained(u.re2);
  f.bytes = self_contained(u.bytes);
  f.widened = u.widened;
  f.re2_only = u.re2_only;
  if (flags.line) {
    f.re2 = "^(?:" + f.re2 + ")$";
    f.bytes = "^(?:" + f.bytes + ")$";
    return f;
  }
  const bool before = flags.word || u.word_before;
  const bool after = flags.word || u.word_after;
  if (!before && !after) return f;
  f.grouped = true;
  f.widened = true;  // the wrappers' word class is Unicode's on RE2, bytes' on Vectorscan
  // -w's sets, or a \b's (the same, written apart: RegexMatcher's Edges).
  std::string re2 = before ? std::string(flags.word ? kWordBeforeUnicode : kBoundaryBeforeUnicode) : std::string();
  const bool bytes_before = flags.word || (before && !u.bytes_keep_before);
  const bool bytes_after = flags.word || (after && !u.bytes_keep_after);
  std::string bytes = bytes_before ? std::string(kWordBefore) : std::string();
  re2 += "(" + f.re2 + ")";
  bytes += "(?:" + f.bytes + ")";
  if (after) re2 += flags.word ? kWordAfterUnicode : kBoundaryAfterUnicode;
  if (bytes_after) bytes += "(?:[^\\w\\n]|$)";
  f.re2 = std::move(re2);
  f.bytes = std::move(bytes);
  return f;
}

int re2_texts(std::vector<EngineForms>& forms, std::vector<std::string>& out) {
  int group = 0;
  for (const EngineForms& f : forms)
    if (f.grouped) group = 1;
  for (EngineForms& f : forms) out.push_back(group == 1 && !f.grouped ? "(" + f.re2 + ")" : std::move(f.re2));
  return group;
}

std::string with_match_flags(const std::string& regex, const MatchFlags& flags) {
  if (flags.line) return "^(?:" + regex + ")$";
  if (flags.word) return std::string(kWordBefore) + "(" + regex + ")(?:[^\\w\\n]|$)";
  return regex;
}

bool may_match_newline(std::string_view r) {
  const ClassScanner classes(r);
  for (std::size_t i = 0; i < r.size(); ++i) {
    const auto c = static_cast<unsigned char>(r[i]);
    if (c == '\n') return true;  // patterns hold none; a regex built from one might
    if (c == '\\') {
      if (i + 1 >= r.size()) return true;  // malformed: the engine rejects it
      const char e = r[i + 1];
      if (e == 'Q') {  // literal bytes up to \E: none is '\n' (checked above for the pattern)
        const std::size_t q = r.find("\\E", i + 2);
        if (q == std::string_view::npos) return false;
        i = q + 1;
        continue;
      }
      // One byte (\xHH, octal, \t, an escaped punctuation byte...), as the
      // class reader reads it: exact.
      if (const std::optional<Escaped> b = byte_escape(r, i)) {
        if (b->value == '\n') return true;
        i += b->length - 1;
        continue;
      }
      // Classes and assertions without '\n'. Everything else (\s \S \D \W \p
      // \P \C, an escape the engine refuses...) may match one.
      if (std::strchr("dwbBAz", e) == nullptr) return true;
      ++i;
      continue;
    }
    if (c == '[') {
      // Read whole, ranges included: [\x01-\x7f] holds '\n'.
      const std::optional<BracketClass> cls = classes.at(i);
      if (!cls) return true;  // never closes: the engine rejects it
      const std::optional<ByteSet> members = class_members(r, classes, *cls, false);
      if (!members || (*members)['\n'] != cls->negated) return true;  // unknown, or '\n' is in it
      i = cls->close;
      continue;
    }
    if (c == '(' && i + 1 < r.size() && r[i + 1] == '?') {
      // Flags (?flags) or (?flags:...): any 's' (dot matches '\n') may match it.
      for (std::size_t j = i + 2; j < r.size(); ++j) {
        const char f = r[j];
        if (f == 's') return true;
        if (!((f >= 'a' && f <= 'z') || (f >= 'A' && f <= 'Z') || f == '-')) break;
      }
    }
  }
  return false;
}

bool newline_only_last(std::string_view r) {
  // The last group opened outside a class (escapes and classes skipped, as
  // may_match_newline() reads them), which must be the regex's end.
  const ClassScanner classes(r);
  std::optional<std::size_t> group;
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (r[i] == '\\') {
      ++i;
    } else if (r[i] == '[') {
      const std::optional<BracketClass> cls = classes.at(i);
      if (!cls) return false;
      i = cls->close;
    } else if (r.compare(i, 3, "(?:") == 0) {
      group = i;
    }
  }
  if (!group) return false;
  // Its one class: [...] or a two-byte escape class.
  std::size_t at = *group + 3;
  if (at < r.size() && r[at] == '[') {
    const std::optional<BracketClass> cls = classes.at(at);
    if (!cls) return false;
    at = cls->close + 1;
  } else if (at + 1 < r.size() && r[at] == '\\' && std::strchr("sSwWdD", r[at + 1]) != nullptr) {
    at += 2;
  } else {
    return false;
  }
  const std::string_view rest = r.substr(at);
  if (rest != "|$)" && rest != "|\\z)") return false;
  return !may_match_newline(r.substr(0, *group));
}

bool has_unicode_class(std::string_view r) {
  for (std::size_t i = 0; i + 1 < r.size(); ++i) {
    if (r[i] != '\\') continue;
    if (r[i + 1] == 'p' || r[i + 1] == 'P') return true;
    ++i;  // the escaped byte
  }
  return false;
}

std::optional<std::size_t> newline_literal_at(std::string_view r) {
  const ClassScanner classes(r);
  for (std::size_t i = 0; i < r.size(); ++i) {
    const char c = r[i];
    if (c == '\\') {
      if (const std::optional<Escaped> b = byte_escape(r, i); b && b->value == '\n') return i;  // \n \x0a \012 \12
      if (i + 1 < r.size() && r[i + 1] == 'Q') {
        const std::size_t q = r.find("\\E", i + 2);
        if (q == std::string_view::npos) return std::nullopt;
        i = q + 1;
        continue;
      }
      ++i;
      continue;
    }
    if (c != '[') continue;
    // A class whose only member is '\n' ([\n], [\x0a\n]).
    const std::optional<BracketClass> cls = classes.at(i);
    if (!cls) return std::nullopt;  // never closes: RE2 refuses the pattern first
    if (!cls->negated) {
      const std::optional<ByteSet> members = class_members(r, classes, *cls, false);
      if (members && members->count() == 1 && (*members)['\n']) return i;
    }
    i = cls->close;
  }
  return std::nullopt;
}

}  // namespace stealscan

// regex_class.cpp: ClassScanner and class_members() (regex_class.hpp).
#include "match/regex_class.hpp"

#include <initializer_list>
#include <utility>

#include "match/regex_syntax.hpp"

namespace stealscan {
namespace {

void add_range(ByteSet& s, unsigned lo, unsigned hi) {
  for (unsigned c = lo; c <= hi; ++c) s.set(c);
}

ByteSet byte_ranges(std::initializer_list<std::pair<unsigned, unsigned>> ranges) {
  ByteSet s;
  for (const auto& [lo, hi] : ranges) add_range(s, lo, hi);
  return s;
}

const ByteSet kDigit = byte_ranges({{'0', '9'}});
const ByteSet kUpper = byte_ranges({{'A', 'Z'}});
const ByteSet kLower = byte_ranges({{'a', 'z'}});
const ByteSet kWord = kDigit | kUpper | kLower | byte_ranges({{'_', '_'}});

// RE2's POSIX classes ([:name:] inside a class), ASCII only.
std::optional<ByteSet> posix_class(std::string_view name) {
  struct Named {
    std::string_view name;
    ByteSet set;
  };
  static const Named kNamed[] = {
      {"alnum", kDigit | kUpper | kLower},
      {"alpha", kUpper | kLower},
      {"ascii", byte_ranges({{0, 0x7f}})},
      {"blank", byte_ranges({{'\t', '\t'}, {' ', ' '}})},
      {"cntrl", byte_ranges({{0, 0x1f}, {0x7f, 0x7f}})},
      {"digit", kDigit},
      {"graph", byte_ranges({{'!', '~'}})},
      {"lower", kLower},
      {"print", byte_ranges({{' ', '~'}})},
      {"punct", byte_ranges({{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}})},
      {"space", byte_ranges({{'\t', '\r'}, {' ', ' '}})},
      {"upper", kUpper},
      {"word", kWord},
      {"xdigit", kDigit | byte_ranges({{'A', 'F'}, {'a', 'f'}})},
  };
  for (const Named& n : kNamed)
    if (n.name == name) return n.set;
  return std::nullopt;
}

// RE2's Perl classes \d \s \w and their complements \D \S \W.
std::optional<ByteSet> perl_class(char e) {
  static const ByteSet kSpace = byte_ranges({{'\t', '\n'}, {'\f', '\r'}, {' ', ' '}});
  switch (e) {
    case 'd': return kDigit;
    case 'D': return ~kDigit;
    case 's': return kSpace;
    case 'S': return ~kSpace;
    case 'w': return kWord;
    case 'W': return ~kWord;
    default: return std::nullopt;
  }
}

}  // namespace

std::size_t ClassScanner::name_close(std::size_t j) const noexcept {
  if (j + 1 >= r_.size() || r_[j] != '[' || r_[j + 1] != ':') return std::string_view::npos;
  // No ":]" at j + 2 or later: the search would run to the end for nothing.
  if (last_name_close_ == std::string_view::npos || last_name_close_ < j + 2) return std::string_view::npos;
  return r_.find(":]", j + 2);  // found: the caller moves past it, so the text is read once
}

std::size_t ClassScanner::member_length(std::size_t j) const noexcept {
  if (r_[j] == '\\') return j + 1 < r_.size() ? 2 : 1;
  if (const std::size_t close = name_close(j); close != std::string_view::npos) return close + 2 - j;
  return 1;
}

std::optional<BracketClass> ClassScanner::at(std::size_t open) const noexcept {
  BracketClass c{open, open + 1, 0, false};
  if (c.first < r_.size() && r_[c.first] == '^') {
    c.negated = true;
    ++c.first;
  }
  std::size_t j = c.first;
  if (j < r_.size() && r_[j] == ']') ++j;  // a member, not the end
  while (j < r_.size() && r_[j] != ']') j += member_length(j);
  if (j >= r_.size()) return std::nullopt;
  c.close = j;
  return c;
}

void append_class_text(std::string& out, std::string_view r, const ClassScanner& scanner, const BracketClass& c,
                       EscapeText escapes) {
  out.append(r.substr(c.open, c.first - c.open));  // '[' and its '^'
  for (std::size_t j = c.first; j < c.close;) {
    const std::size_t n = scanner.member_length(j);
    const char* same = escapes == EscapeText::same_meaning && n == 2 && r[j] == '\\'
                           ? same_meaning_escape(r[j + 1], true)
                           : nullptr;
    if (same != nullptr) out += same;
    else if (n == 1 && r[j] == '[' && j + 1 < c.close && r[j + 1] == ':') out += "\\[";
    else out.append(r.substr(j, n));
    j += n;
  }
  out += ']';
}

const char* same_meaning_escape(char e, bool in_class) noexcept {
  switch (e) {
    case 'v': return "\\x0b";
    // The space as \x20: a literal one would be dropped in PCRE's extended mode.
    case 's': return in_class ? "\\t\\n\\f\\r\\x20" : "[\\t\\n\\f\\r\\x20]";
    case 'S': return in_class ? "\\x00-\\x08\\x0b\\x0e-\\x1f\\x21-\\xff" : "[^\\t\\n\\f\\r\\x20]";
    default: return nullptr;
  }
}

std::optional<Escaped> byte_escape(std::string_view r, std::size_t i) {
  if (i + 1 >= r.size()) return std::nullopt;
  const char e = r[i + 1];
  if (e == 'x') {
    const HexEscape h = hex_escape(r, i);
    if (h.value < 0 || h.value > 0xff) return std::nullopt;
    return Escaped{static_cast<unsigned>(h.value), h.length};
  }
  if (is_octal(e) && (e == '0' || (i + 2 < r.size() && is_octal(r[i + 2])))) {
    unsigned v = 0;
    std::size_t k = i + 1;
    for (; k < r.size() && k < i + 4 && is_octal(r[k]); ++k) v = v * 8 + static_cast<unsigned>(r[k] - '0');
    if (v > 0xff) return std::nullopt;
    return Escaped{v, k - i};
  }
  switch (e) {
    case 'a': return Escaped{7, 2};
    case 'f': return Escaped{12, 2};
    case 'n': return Escaped{10, 2};
    case 'r': return Escaped{13, 2};
    case 't': return Escaped{9, 2};
    case 'v': return Escaped{11, 2};
    default: break;
  }
  const auto c = static_cast<unsigned char>(e);
  if (c < 0x80 && !is_word_byte(c)) return Escaped{c, 2};
  return std::nullopt;
}

ByteSet ascii_fold(ByteSet s) {
  for (unsigned c = 'a'; c <= 'z'; ++c) {
    const unsigned up = c - 'a' + 'A';
    if (s[c] || s[up]) {
      s.set(c);
      s.set(up);
    }
  }
  return s;
}

std::optional<ByteSet> class_members(std::string_view r, const ClassScanner& scanner, const BracketClass& c,
                                     bool fold) {
  ByteSet members;
  std::size_t j = c.first;
  const std::size_t last = c.close;
  while (j < last) {
    if (const std::size_t close = scanner.name_close(j); close != std::string_view::npos) {
      if (close + 2 > last) return std::nullopt;  // a name past the class's end: RE2 refuses it
      std::string_view name = r.substr(j + 2, close - j - 2);
      const bool neg = !name.empty() && name.front() == '^';
      if (neg) name.remove_prefix(1);
      const std::optional<ByteSet> s = posix_class(name);
      if (!s) return std::nullopt;
      // Under (?i) RE2 folds a negated name before it negates it.
      members |= neg ? ~(fold ? ascii_fold(*s) : *s) : *s;
      j = close + 2;
      continue;
    }
    if (r[j] == '\\' && j + 1 < last) {
      if (r[j + 1] == 'p' || r[j + 1] == 'P') return std::nullopt;
      if (const std::optional<ByteSet> s = perl_class(r[j + 1])) {
        members |= *s;
        j += 2;
        continue;
      }
    }
    // A member or a range lo-hi (a '-' before the closing ']' is a member).
    const auto one = [&](std::size_t at) -> std::optional<Escaped> {
      if (r[at] == '\\') return byte_escape(r, at);
      return Escaped{static_cast<unsigned char>(r[at]), 1};
    };
    const std::optional<Escaped> lo = one(j);
    if (!lo || j + lo->length > last) return std::nullopt;
    j += lo->length;
    unsigned hi = lo->value;
    if (j + 1 < last && r[j] == '-') {
      const std::optional<Escaped> h = one(j + 1);
      if (!h || j + 1 + h->length > last || h->value < lo->value) return std::nullopt;
      hi = h->value;
      j += 1 + h->length;
    }
    add_range(members, lo->value, hi);
  }
  if (fold) members = ascii_fold(members);
  return members;
}

}  // namespace stealscan

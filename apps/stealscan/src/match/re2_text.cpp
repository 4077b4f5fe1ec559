// re2_text.cpp: re2_text() (re2_text.hpp). The syntax followed is
// RE2's (re2/re2.h, "Syntax"), read over Latin-1: one byte, one character.
#include "match/re2_text.hpp"

#include <algorithm>
#include <bitset>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "match/regex_syntax.hpp"

namespace stealscan {
namespace {

using ByteSet = std::bitset<256>;
constexpr char kHex[] = "0123456789abcdef";

bool is_octal(char c) { return c >= '0' && c <= '7'; }

void add_range(ByteSet& s, unsigned lo, unsigned hi) {
  for (unsigned c = lo; c <= hi; ++c) s.set(c);
}

// The ASCII letters' other case added: what (?i) does to a class in the C locale.
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

void append_byte(std::string& out, unsigned v) {
  out += "\\x";
  out += kHex[v >> 4];
  out += kHex[v & 15];
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
// The Latin-1 letters that RE2 may fold: 0xC0-0xFE (upper case A-grave to
// thorn, then sharp s, lower case a-grave to thorn), less the multiplication
// and division signs. RE2 folds 0xC0-0xDE with 0xE0-0xFE.
const ByteSet kLatin1Letters = byte_ranges({{0xC0, 0xD6}, {0xD8, 0xF6}, {0xF8, 0xFE}});

bool is_latin1_letter(unsigned v) { return v < 256 && kLatin1Letters[v]; }

// A byte >= 0x80 outside a class: (?:\xHH{1}), and where folding is on and
// it is a Latin-1 letter, (?-i:\xHH{1}) (itself and only itself). The {1}:
// RE2 20220601 (Debian 12) factors the common leading literal of an
// alternation's branches (a|b of "\xe9a" and "\xe9b") into a literal that
// loses Latin-1 mode, so its bytes >= 0x80 are looked for as UTF-8 and the
// alternation never matches ("caf\xc3\xa91|caf\xc3\xa92", two UTF-8
// patterns café1 and café2, found nothing); a repeat is not a literal and is
// not factored.
void append_high(std::string& out, unsigned v, bool fold) {
  out += fold && is_latin1_letter(v) ? "(?-i:" : "(?:";
  append_byte(out, v);
  out += "{1})";
}

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

// An escape at r[i] == '\\' that stands for one byte: \xHH, \x{H..}, octal
// (\0, \012, \12; a lone \1-\7 is a back-reference RE2 refuses), \a \f \n \r \t
// \v, and an escaped ASCII punctuation byte. nullopt for anything else.
struct Escaped {
  unsigned value;
  std::size_t length;
};

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

// Where the class opened at r[i] == '[' ends (past its ']'), by RE2's rules:
// a ']' right after '[' or '[^' is a member; escapes and [:name:] are skipped.
// nullopt when it does not end (RE2 rejects it).
std::optional<std::size_t> class_end(std::string_view r, std::size_t i) {
  std::size_t j = i + 1;
  if (j < r.size() && r[j] == '^') ++j;
  if (j < r.size() && r[j] == ']') ++j;
  while (j < r.size() && r[j] != ']') {
    if (r[j] == '\\') {
      j += 2;
    } else if (r[j] == '[' && j + 1 < r.size() && r[j + 1] == ':') {
      const std::size_t close = r.find(":]", j + 2);
      j = close == std::string_view::npos ? j + 1 : close + 2;
    } else {
      ++j;
    }
  }
  if (j >= r.size()) return std::nullopt;
  return j + 1;
}

// The members of the class [i, end) (end past its ']'), folded as (?i) folds
// in the C locale, and whether it was negated; nullopt when the class is one
// this pass leaves to RE2 (a Unicode class, a name or escape RE2 refuses, a
// range backwards).
struct ClassSet {
  ByteSet members;  // before negation
  bool negated;
};

std::optional<ClassSet> class_members(std::string_view r, std::size_t i, std::size_t end, bool fold) {
  ClassSet c{{}, false};
  std::size_t j = i + 1;
  if (j < end && r[j] == '^') {
    c.negated = true;
    ++j;
  }
  const std::size_t last = end - 1;  // the closing ']'
  while (j < last) {
    // [:name:]; without a ":]" further on, RE2 takes the '[' as a member.
    const std::size_t close =
        r[j] == '[' && j + 1 < last && r[j + 1] == ':' ? r.find(":]", j + 2) : std::string_view::npos;
    if (close != std::string_view::npos) {
      if (close + 2 > last) return std::nullopt;  // not where class_end() saw the class end
      std::string_view name = r.substr(j + 2, close - j - 2);
      const bool neg = !name.empty() && name.front() == '^';
      if (neg) name.remove_prefix(1);
      const std::optional<ByteSet> s = posix_class(name);
      if (!s) return std::nullopt;
      c.members |= neg ? ~ascii_fold(*s) : *s;  // RE2 folds a negated name before negating it
      j = close + 2;
      continue;
    }
    if (r[j] == '\\' && j + 1 < last) {
      if (r[j + 1] == 'p' || r[j + 1] == 'P') return std::nullopt;
      if (const std::optional<ByteSet> s = perl_class(r[j + 1])) {
        c.members |= *s;
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
    add_range(c.members, lo->value, hi);
  }
  if (fold) c.members = ascii_fold(c.members);
  return c;
}

// The class's one member, if it has exactly one.
std::optional<unsigned> only_member(const ByteSet& s) {
  if (s.count() != 1) return std::nullopt;
  for (unsigned v = 0; v < 256; ++v)
    if (s[v]) return v;
  return std::nullopt;
}

void append_class(std::string& out, const ClassSet& c) {
  out += "(?-i:[";
  if (c.negated) out += '^';
  for (unsigned v = 0; v < 256;) {
    if (!c.members[v]) {
      ++v;
      continue;
    }
    unsigned w = v;
    while (w + 1 < 256 && c.members[w + 1]) ++w;
    append_byte(out, v);
    if (w > v) {
      out += '-';
      append_byte(out, w);
    }
    v = w + 1;
  }
  out += "])";
}

// Whether anything in `r` could stand for a byte >= 0x80: one itself, or an
// escape that may give one (\x.., octal). Most patterns have none.
bool may_name_high_byte(std::string_view r) {
  for (std::size_t i = 0; i < r.size(); ++i) {
    const auto c = static_cast<unsigned char>(r[i]);
    if (c >= 0x80) return true;
    if (c == '\\' && i + 1 < r.size() && (r[i + 1] == 'x' || is_octal(r[i + 1]))) return true;
  }
  return false;
}

}  // namespace

std::string re2_text(std::string_view r, bool ignore_case) {
  if (!may_name_high_byte(r)) return std::string(r);
  std::string out;
  out.reserve(r.size() + 32);
  bool fold = ignore_case;
  std::vector<bool> outer;  // per open group: the folding to restore at its ')'
  for (std::size_t i = 0; i < r.size();) {
    const auto c = static_cast<unsigned char>(r[i]);
    if (c == '\\' && i + 1 < r.size()) {
      const char e = r[i + 1];
      if (e == 'Q') {  // literal bytes up to \E
        const std::size_t q = r.find("\\E", i + 2);
        const std::size_t stop = q == std::string_view::npos ? r.size() : q;
        for (std::size_t k = i + 2; k < stop; ++k) {
          const auto b = static_cast<unsigned char>(r[k]);
          if (b >= 0x80) append_high(out, b, fold);
          else if (is_word_byte(b)) out += static_cast<char>(b);
          else append_byte(out, b);
        }
        i = q == std::string_view::npos ? r.size() : q + 2;
        continue;
      }
      if (e == 'p' || e == 'P') {  // \pL or \p{Name}: copied whole
        std::size_t len = 3;
        if (i + 2 < r.size() && r[i + 2] == '{') {
          const std::size_t close = r.find('}', i + 3);
          len = close == std::string_view::npos ? r.size() - i : close + 1 - i;
        }
        len = std::min(len, r.size() - i);
        out.append(r.substr(i, len));
        i += len;
        continue;
      }
      const std::optional<Escaped> b = byte_escape(r, i);
      const std::size_t len = b ? b->length : 2;
      if (b && b->value >= 0x80) append_high(out, b->value, fold);
      else out.append(r.substr(i, len));
      i += len;
      continue;
    }
    if (c == '[') {
      const std::optional<std::size_t> end = class_end(r, i);
      if (!end) {  // unterminated: RE2 says so
        out.append(r.substr(i));
        break;
      }
      const std::optional<ClassSet> set = class_members(r, i, *end, fold);
      if (const std::optional<unsigned> one = set && !set->negated ? only_member(set->members) : std::nullopt;
          one && *one >= 0x80)
        append_high(out, *one, fold);  // RE2 reads a one-byte class as that byte's literal
      else if (set && fold && (set->members & kLatin1Letters).any()) append_class(out, *set);
      else out.append(r.substr(i, *end - i));
      i = *end;
      continue;
    }
    if (c == '(') {
      outer.push_back(fold);
      if (i + 1 < r.size() && r[i + 1] == '?') {
        // (?flags) sets them for the rest of the enclosing group; (?flags:re) for re.
        std::size_t j = i + 2;
        bool negate = false;
        bool set_fold = fold;
        for (; j < r.size(); ++j) {
          const char f = r[j];
          if (f == '-') negate = true;
          else if (f == 'i') set_fold = !negate;
          else if (f != 'm' && f != 's' && f != 'U') break;
        }
        if (j < r.size() && (r[j] == ')' || r[j] == ':')) {
          if (r[j] == ')') outer.pop_back();  // not a group
          fold = set_fold;
          out.append(r.substr(i, j + 1 - i));
          i = j + 1;
          continue;
        }
        out += "(?";  // a named group, or something RE2 will refuse
        i += 2;
        continue;
      }
      out += '(';
      ++i;
      continue;
    }
    if (c == ')') {
      if (!outer.empty()) {
        fold = outer.back();
        outer.pop_back();
      }
      out += ')';
      ++i;
      continue;
    }
    if (c >= 0x80) append_high(out, c, fold);
    else out += static_cast<char>(c);
    ++i;
  }
  return out;
}

}  // namespace stealscan

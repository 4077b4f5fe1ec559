// unicode_syntax.cpp: unicode_forms() and its helpers (unicode_syntax.hpp).
#include "match/unicode_syntax.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "match/matcher.hpp"
#include "match/regex_class.hpp"
#include "match/regex_syntax.hpp"
#include "sources/utf8.hpp"

namespace stealscan {
namespace {

// Unicode \s (kSpaceClass) in bytes, exactly: the ASCII white space but '\n'
// (\v included, which RE2's byte \s leaves out), then U+0085, U+00A0,
// U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F and U+3000 encoded.
constexpr std::string_view kSpaceBytes =
    "(?:[\\t\\x0b\\f\\r\\x20]|\\xc2[\\x85\\xa0]|\\xe1\\x9a\\x80|\\xe2\\x80[\\x80-\\x8a\\xa8\\xa9\\xaf]|"
    "\\xe2\\x81\\x9f|\\xe3\\x80\\x80)";
// The other characters that fold with ASCII letters: the Kelvin sign (k) and
// long s (s), encoded.
constexpr std::string_view kKelvinBytes = "\\xe2\\x84\\xaa";
constexpr std::string_view kLongSBytes = "\\xc5\\xbf";

// What the pass knows of the last atom written, for a trailing \b: whether
// every character it matches is a word character, and whether a quantifier
// after it lets it match nothing. A group is an atom too, once closed: word
// only at its end if each of its branches ends with such an atom.
struct AtomState {
  bool word_only = false;
  bool may_be_absent = false;
  bool ascii = false;  // it matches ASCII characters only (its bytes form is exact)
};

// One open group (the pattern itself is the outermost): whether every branch
// so far starts, and ends, with a word-only atom that cannot be absent.
struct GroupFrame {
  bool starts_word = true;
  bool ends_word = true;
  bool starts_ascii = true;
  bool ends_ascii = true;
  bool at_branch_start = true;
};

// Code point `v` as its UTF-8 bytes, each \xHH (byte-mode syntax).
void append_utf8_bytes(std::string& out, unsigned long v) {
  unsigned char b[4];
  std::size_t n = 0;
  if (v < 0x80) {
    b[n++] = static_cast<unsigned char>(v);
  } else if (v < 0x800) {
    b[n++] = static_cast<unsigned char>(0xc0 | (v >> 6));
    b[n++] = static_cast<unsigned char>(0x80 | (v & 0x3f));
  } else if (v < 0x10000) {
    b[n++] = static_cast<unsigned char>(0xe0 | (v >> 12));
    b[n++] = static_cast<unsigned char>(0x80 | ((v >> 6) & 0x3f));
    b[n++] = static_cast<unsigned char>(0x80 | (v & 0x3f));
  } else {
    b[n++] = static_cast<unsigned char>(0xf0 | (v >> 18));
    b[n++] = static_cast<unsigned char>(0x80 | ((v >> 12) & 0x3f));
    b[n++] = static_cast<unsigned char>(0x80 | ((v >> 6) & 0x3f));
    b[n++] = static_cast<unsigned char>(0x80 | (v & 0x3f));
  }
  for (std::size_t k = 0; k < n; ++k) append_hex_byte(out, b[k]);
}

// `one` or an encoded code point, in byte-mode syntax.
void append_widened(std::string& out, std::string_view one) {
  out += "(?:";
  out += one;
  out += '|';
  out += kCodePoint;
  out += ')';
}

// Whether the pattern turns case folding on anywhere ((?i) or (?i:...)):
// the superset then folds every letter, which only widens it.
bool folds_somewhere(std::string_view r) {
  for (std::size_t i = 0; i + 2 < r.size(); ++i) {
    if (r[i] == '\\') {
      ++i;
      continue;
    }
    if (r[i] != '(' || r[i + 1] != '?') continue;
    for (std::size_t j = i + 2; j < r.size() && r[j] != ')' && r[j] != ':'; ++j) {
      if (r[j] == '-') break;
      if (r[j] == 'i') return true;
    }
  }
  return false;
}

// ASCII letters whose simple case folding reaches beyond ASCII.
bool folds_out_of_ascii(unsigned char c) { return c == 'k' || c == 'K' || c == 's' || c == 'S'; }

// A Perl class escape letter (\w \d \s and their complements).
bool is_perl_class(char e) {
  return e == 'w' || e == 'd' || e == 's' || e == 'W' || e == 'D' || e == 'S';
}

std::string_view unicode_members(char e) {
  switch (e) {
    case 'w': case 'W': return kWordClass;
    case 'd': case 'D': return kDigitClass;
    default: return kSpaceClass;
  }
}

// Appends the Unicode form of Perl class \e outside a class (RE2 side).
void append_unicode_perl(std::string& out, char e) {
  out += e == 'w' || e == 'd' || e == 's' ? "[" : "[^";
  out += unicode_members(e);
  out += ']';
}

// The byte forms of Perl class \e outside a class: `one` for an ASCII
// character (widen() adds an encoded code point), `unbounded` for a run of
// them (a byte class holding every byte >= 0x80 as well; empty: none).
struct ByteForms {
  std::string_view one, unbounded;
};
ByteForms perl_bytes(char e) {
  switch (e) {
    case 'w': return {"\\w", "[\\w\\x80-\\xff]"};
    case 'd': return {"\\d", "[\\d\\x80-\\xff]"};
    case 'W': return {"\\W", "\\W"};
    case 'D': return {"\\D", "\\D"};
    default: return {"[^\\t\\n\\x0b\\f\\r\\x20]", "[^\\t\\n\\x0b\\f\\r\\x20]"};  // S
  }
}

class Rewriter {
 public:
  Rewriter(std::string_view r, bool ignore_case)
      : r_(r), classes_(r), fold_(ignore_case || folds_somewhere(r)) {}

  UnicodeForms run();

 private:
  std::string_view r_;
  ClassScanner classes_;
  bool fold_;
  UnicodeForms f_;
  AtomState last_;
  std::vector<GroupFrame> frames_{GroupFrame{}};
  bool top_alternation_ = false;
  bool lead_candidate_ = false;  // the pattern starts with \b (taken off while it is read)
  bool last_starts_branch_ = false;  // the last atom is its branch's first

  void atom(bool word_only, bool ascii = false) { atom(word_only, word_only, ascii, ascii); }
  // An atom whose first and last characters are word characters or not, and
  // ASCII only or not.
  void atom(bool starts_word, bool ends_word, bool starts_ascii, bool ends_ascii) {
    last_ = AtomState{ends_word, false, ends_ascii};
    GroupFrame& g = frames_.back();
    last_starts_branch_ = g.at_branch_start;
    if (g.at_branch_start) {
      g.starts_word = g.starts_word && starts_word;
      g.starts_ascii = g.starts_ascii && starts_ascii;
      g.at_branch_start = false;
    }
  }
  void not_an_atom() { atom(false); }  // `^`, `$`, \A: no edge beside them
  void quantifier(bool may_be_absent) {
    if (!may_be_absent) return;
    last_.may_be_absent = true;
    if (last_starts_branch_) frames_.back().starts_word = false;
  }
  void branch_end() {
    GroupFrame& g = frames_.back();
    g.ends_word = g.ends_word && last_.word_only && !last_.may_be_absent;
    g.ends_ascii = g.ends_ascii && last_.ascii;
    if (g.at_branch_start) g.starts_word = false;  // an empty branch
    g.at_branch_start = true;
    last_ = AtomState{};
  }
  void group_begin() {
    frames_.push_back(GroupFrame{});
    last_ = AtomState{};
  }
  void group_end() {
    if (frames_.size() < 2) {  // an unbalanced ')': RE2 refuses the pattern
      not_an_atom();
      return;
    }
    branch_end();
    const GroupFrame g = frames_.back();
    frames_.pop_back();
    atom(g.starts_word, g.ends_word, g.starts_ascii, g.ends_ascii);
  }
  std::size_t group_open(std::size_t i);
  // Whether r_[i] starts *, + or {m,}: a run with no upper bound.
  bool unbounded_repeat_at(std::size_t i) const;
  // Writes an atom whose Unicode meaning is wider than its bytes': `one` or
  // an encoded code point; `unbounded` instead where a run with no upper bound
  // follows (at r_[next]) and it is given: a class, cheaper for Vectorscan
  // than the alternation, and like it exact on ASCII text.
  void widen(std::string_view one, std::string_view unbounded, std::size_t next);
  // Perl class \e (\s is exact in bytes; the others widen).
  void perl(char e, std::size_t next);
  std::size_t escape(std::size_t i);
  std::size_t bracket(std::size_t i);
};

// (?flags), (?flags: or (?P<name> at r_[i]: copied whole to both forms.
std::size_t Rewriter::group_open(std::size_t i) {
  std::size_t j = i + 2;
  const bool named = j < r_.size() && r_[j] == 'P';
  while (j < r_.size() && r_[j] != (named ? '>' : ')') && (named || r_[j] != ':')) ++j;
  const std::size_t end = std::min(j + 1, r_.size());
  f_.re2.append(r_.substr(i, end - i));
  f_.bytes.append(r_.substr(i, end - i));
  if (end == 0 || r_[end - 1] != ')') group_begin();  // (?i) alone sets flags: no atom
  return end;
}

bool Rewriter::unbounded_repeat_at(std::size_t i) const {
  if (i >= r_.size()) return false;
  if (r_[i] == '*' || r_[i] == '+') return true;
  if (r_[i] != '{') return false;
  std::size_t j = i + 1;
  while (j < r_.size() && std::isdigit(static_cast<unsigned char>(r_[j]))) ++j;
  return j > i + 1 && j + 1 < r_.size() && r_[j] == ',' && r_[j + 1] == '}';
}

void Rewriter::widen(std::string_view one, std::string_view unbounded, std::size_t next) {
  if (!unbounded.empty() && unbounded_repeat_at(next)) f_.bytes += unbounded;
  else append_widened(f_.bytes, one);
  f_.widened = true;
}

void Rewriter::perl(char e, std::size_t next) {
  append_unicode_perl(f_.re2, e);
  if (e == 's') {
    f_.bytes += kSpaceBytes;
  } else {
    const ByteForms b = perl_bytes(e);
    widen(b.one, b.unbounded, next);
  }
  atom(e == 'w' || e == 'd');
}

std::size_t Rewriter::escape(std::size_t i) {
  const char e = r_[i + 1];
  if (e == 'Q') {  // quoted up to \E: literal text
    const std::size_t q = r_.find("\\E", i + 2);
    const std::size_t end = q == std::string_view::npos ? r_.size() : q + 2;
    const std::string_view quoted = r_.substr(i + 2, (q == std::string_view::npos ? r_.size() : q) - i - 2);
    f_.re2.append(r_.substr(i, end - i));
    f_.bytes.append(r_.substr(i, end - i));
    if (fold_ && folds_beyond_ascii(quoted)) f_.re2_only = true;
    not_an_atom();
    return end;
  }
  if (e == 'p' || e == 'P') {  // \pL, \p{Name}: Unicode classes, RE2 alone
    std::size_t len = 3;
    if (i + 2 < r_.size() && r_[i + 2] == '{') {
      const std::size_t close = r_.find('}', i + 3);
      len = close == std::string_view::npos ? r_.size() - i : close + 1 - i;
    }
    len = std::min(len, r_.size() - i);
    f_.re2.append(r_.substr(i, len));
    f_.bytes.append(r_.substr(i, len));
    f_.re2_only = true;
    atom(false);
    return i + len;
  }
  if (is_perl_class(e)) {
    perl(e, i + 2);
    return i + 2;
  }
  if (e == 'b' && i + 2 == r_.size() && !top_alternation_ && frames_.size() == 1 && last_.word_only &&
      !last_.may_be_absent &&
      r_.find("\\Q") == std::string_view::npos && i > 0) {
    f_.word_after = true;  // R\b: -w's trailing wrapper (unicode_syntax.hpp)
    // Where R ends with an ASCII character, a byte \b is the superset: a
    // character after it that is not ASCII starts with a non-word byte.
    f_.bytes_keep_after = last_.ascii;
    if (last_.ascii) f_.bytes += "\\b";
    return i + 2;
  }
  if (e == 'x' || is_octal(e)) {
    long value = -1;
    std::size_t len = 2;
    if (e == 'x') {
      const HexEscape h = hex_escape(r_, i);
      value = h.value;
      len = h.length;
    } else if (const std::optional<Escaped> b = byte_escape(r_, i)) {
      value = b->value;
      len = b->length;
    }
    len = std::min(len, r_.size() - i);
    f_.re2.append(r_.substr(i, len));
    if (value >= 0x80) {  // a code point, not a byte
      if (value > 0x10ffff) {
        f_.re2_only = true;  // RE2 will refuse it
      } else if (fold_) {
        f_.bytes += kCodePoint;
        f_.widened = true;
      } else {
        f_.bytes += "(?:";
        append_utf8_bytes(f_.bytes, static_cast<unsigned long>(value));
        f_.bytes += ')';
      }
    } else {
      f_.bytes.append(r_.substr(i, len));
    }
    atom(value >= 0 && value < 0x80 && is_word_byte(static_cast<unsigned char>(value)), value >= 0 && value < 0x80);
    return i + len;
  }
  // Any other escape: the same in both forms (\b \B keep RE2's ASCII meaning;
  // \A \z \n \. ...).
  f_.re2.append(r_.substr(i, 2));
  f_.bytes.append(r_.substr(i, 2));
  if (e == 'b' || e == 'B' || e == 'A' || e == 'z') not_an_atom();
  else atom(false);
  return i + 2;
}

std::size_t Rewriter::bracket(std::size_t i) {
  const std::optional<BracketClass> cls = classes_.at(i);
  if (!cls) {  // never closes: RE2 refuses the pattern
    f_.re2.append(r_.substr(i));
    f_.bytes.append(r_.substr(i));
    return r_.size();
  }
  // The members: the Perl classes among them, anything non-ASCII.
  bool has_perl = false, high = false, unicode_class = false;
  std::size_t members = 0;
  char complement = 0;  // \W \D or \S, which only a class of that one member can hold
  for (std::size_t j = cls->first; j < cls->close;) {
    const std::size_t len = classes_.member_length(j);
    ++members;
    const auto c = static_cast<unsigned char>(r_[j]);
    if (c >= 0x80) high = true;
    if (c == '\\' && j + 1 < cls->close) {
      const char e = r_[j + 1];
      if (is_perl_class(e)) has_perl = true;
      if (e == 'W' || e == 'D' || e == 'S') complement = e;
      if (e == 'p' || e == 'P') unicode_class = true;
      if (e == 'x') {
        const HexEscape h = hex_escape(r_, j);
        if (h.value >= 0x80) high = true;
        if (h.value > 0xff) unicode_class = true;
      }
    }
    j += len;
  }
  const std::string_view text = r_.substr(i, cls->close + 1 - i);
  if (complement != 0 && members > 1)
    throw PatternError("pattern " + quote_pattern(r_) + ": \\" + std::string(1, complement) +
                       " beside other members of a class has no Unicode form here; use --no-unicode");
  bool word_only = false;
  bool kelvin_or_long_s = false;
  if (complement != 0) {  // [\W] is \W, [^\W] is \w
    perl(cls->negated ? static_cast<char>(complement - 'A' + 'a') : complement, cls->close + 1);
    return cls->close + 1;
  }
  // RE2 side: \w \d \s written as their Unicode members.
  if (has_perl) {
    f_.re2 += cls->negated ? "[^" : "[";
    for (std::size_t j = cls->first; j < cls->close;) {
      const std::size_t len = classes_.member_length(j);
      if (r_[j] == '\\' && len == 2 && is_perl_class(r_[j + 1])) f_.re2 += unicode_members(r_[j + 1]);
      else f_.re2.append(r_.substr(j, len));
      j += len;
    }
    f_.re2 += ']';
  } else {
    f_.re2.append(text);
  }
  // Byte side.
  if (unicode_class) {
    f_.bytes.append(text);
    f_.re2_only = true;
  } else {
    const std::optional<ByteSet> set = class_members(r_, classes_, *cls, fold_);
    const bool kelvin = fold_ && set && ((*set)['k'] || (*set)['K']);
    const bool long_s = fold_ && set && ((*set)['s'] || (*set)['S']);
    kelvin_or_long_s = kelvin || long_s;
    if (cls->negated || has_perl || high) {
      std::string one;
      one += cls->negated ? "[^" : "[";
      for (std::size_t j = cls->first; j < cls->close;) {
        const std::size_t len = classes_.member_length(j);
        if (r_[j] == '\\' && len == 2 && r_[j + 1] == 's') one += "\\t\\x0b\\f\\r\\x20";
        else one.append(r_.substr(j, len));
        j += len;
      }
      one += ']';
      // A negated class of ASCII members holds every byte >= 0x80 already.
      std::string unbounded = cls->negated ? (high ? std::string() : one) : "(?:" + one + "|[\\x80-\\xff])";
      widen(one, unbounded, cls->close + 1);
    } else if (kelvin || long_s) {  // exact: the class, or the letters that fold with its k or s
      f_.bytes += "(?:";
      f_.bytes.append(text);
      if (kelvin) (f_.bytes += '|') += kKelvinBytes;
      if (long_s) (f_.bytes += '|') += kLongSBytes;
      f_.bytes += ')';
    } else {
      f_.bytes.append(text);
    }
    if (set && !cls->negated && !high) {
      ByteSet word;
      for (unsigned c = 0; c < 128; ++c) word[c] = is_word_byte(static_cast<unsigned char>(c));
      word_only = set->any() && (*set & ~word).none();
    }
  }
  atom(word_only, word_only && !has_perl && !kelvin_or_long_s);
  return cls->close + 1;
}

UnicodeForms Rewriter::run() {
  f_.re2.reserve(r_.size() + 16);
  f_.bytes.reserve(r_.size() + 16);
  // A top-level '|' makes a leading or trailing \b one branch's: no edges.
  {
    int depth = 0;
    for (std::size_t i = 0; i < r_.size(); ++i) {
      const char c = r_[i];
      if (c == '\\') {
        ++i;
      } else if (c == '[') {
        if (const auto cls = classes_.at(i)) i = cls->close;
      } else if (c == '(') {
        ++depth;
      } else if (c == ')') {
        --depth;
      } else if (c == '|' && depth == 0) {
        top_alternation_ = true;
      }
    }
  }
  std::size_t i = 0;
  if (r_.size() > 2 && r_.substr(0, 2) == "\\b" && !top_alternation_ && r_.find("\\Q") == std::string_view::npos) {
    lead_candidate_ = true;
    i = 2;
  }
  while (i < r_.size()) {
    const auto c = static_cast<unsigned char>(r_[i]);
    if (c == '\\' && i + 1 < r_.size()) {
      i = escape(i);
      continue;
    }
    if (c == '[') {
      i = bracket(i);
      continue;
    }
    if (c == '.') {
      f_.re2 += '.';
      widen(".", ".", i + 1);  // a byte `.` holds every byte >= 0x80
      atom(false);
      ++i;
      continue;
    }
    if (c == '*' || c == '?' || c == '+' || c == '{') {
      bool absent = c == '*' || c == '?';
      if (c == '{') absent = i + 1 < r_.size() && r_[i + 1] == '0';
      quantifier(absent);
      f_.re2 += static_cast<char>(c);
      f_.bytes += static_cast<char>(c);
      ++i;
      if (c == '{') {  // copied up to its '}' (digits and a comma)
        while (i < r_.size() && r_[i] != '}' && (std::isdigit(static_cast<unsigned char>(r_[i])) || r_[i] == ',')) {
          f_.re2 += r_[i];
          f_.bytes += r_[i];
          ++i;
        }
      }
      continue;
    }
    if (c >= 0x80) {  // a code point's bytes (or a stray byte): the same bytes, widened under folding
      const std::size_t len = std::max<std::size_t>(utf8_sequence(r_, i), 1);  // a stray byte alone
      f_.re2.append(r_.substr(i, len));
      if (fold_) {
        f_.bytes += kCodePoint;
        f_.widened = true;
      } else {
        f_.bytes.append(r_.substr(i, len));
      }
      atom(false);
      i += len;
      continue;
    }
    if (c == '(' && i + 1 < r_.size() && r_[i + 1] == '?') {
      i = group_open(i);
      continue;
    }
    f_.re2 += static_cast<char>(c);
    if (fold_ && folds_out_of_ascii(c)) {  // exact: the letter or its other fold
      f_.bytes += "(?:";
      f_.bytes += static_cast<char>(c);
      f_.bytes += '|';
      f_.bytes += c == 'k' || c == 'K' ? kKelvinBytes : kLongSBytes;
      f_.bytes += ')';
    } else {
      f_.bytes += static_cast<char>(c);
    }
    if (c == '(') group_begin();
    else if (c == ')') group_end();
    else if (c == '|') branch_end();
    else if (c == '^' || c == '$') not_an_atom();
    else atom(is_word_byte(c), !(fold_ && folds_out_of_ascii(c)));
    ++i;
  }
  if (lead_candidate_) {
    if (frames_.size() == 1 && frames_.front().starts_word && !frames_.front().at_branch_start) {
      f_.word_before = true;
      f_.bytes_keep_before = frames_.front().starts_ascii;  // as bytes_keep_after
      if (f_.bytes_keep_before) f_.bytes.insert(0, "\\b");
    } else {  // put the \b back: RE2's ASCII one
      f_.re2.insert(0, "\\b");
      f_.bytes.insert(0, "\\b");
    }
  }
  return std::move(f_);
}

}  // namespace

UnicodeForms unicode_forms(std::string_view regex, bool ignore_case) { return Rewriter(regex, ignore_case).run(); }

bool folds_beyond_ascii(std::string_view literal) {
  for (const char ch : literal) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80 || folds_out_of_ascii(c)) return true;
  }
  return false;
}

bool word_char_at(std::string_view line, std::size_t pos, bool before) {
  // The code point's bytes, if valid UTF-8.
  std::string_view cp;
  if (before) {
    if (pos == 0) return false;
    for (std::size_t len = 1; len <= 4 && len <= pos && cp.empty(); ++len)
      if (utf8_sequence(line, pos - len) == len) cp = line.substr(pos - len, len);
  } else {
    if (pos >= line.size()) return false;
    if (const std::size_t len = utf8_sequence(line, pos); len != 0) cp = line.substr(pos, len);
  }
  if (cp.empty()) return false;  // an invalid byte
  if (cp.size() == 1) return is_word_byte(static_cast<unsigned char>(cp[0]));
  static const RE2 word("[" + std::string(kWordClass) + "]");  // UTF-8: RE2's default
  return RE2::FullMatch(cp, word);
}

bool has_high_byte(const char* p, std::size_t n) {
  std::size_t i = 0;
  // 64 bytes a test: the OR of eight words (a loop the compiler vectorises),
  // so that a 100 MB ASCII line is read at memory speed.
  for (; i + 64 <= n; i += 64) {
    std::uint64_t w[8];
    std::memcpy(w, p + i, 64);
    std::uint64_t any = 0;
    for (const std::uint64_t x : w) any |= x;
    if ((any & 0x8080808080808080ull) != 0) return true;
  }
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    if ((w & 0x8080808080808080ull) != 0) return true;
  }
  for (; i < n; ++i)
    if ((static_cast<unsigned char>(p[i]) & 0x80) != 0) return true;
  return false;
}

}  // namespace stealscan

// re2_text.cpp: re2_text() (re2_text.hpp). The syntax followed is
// RE2's (re2/re2.h, "Syntax"), read over Latin-1: one byte, one character.
#include "match/re2_text.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "match/regex_class.hpp"
#include "match/regex_syntax.hpp"

namespace stealscan {
namespace {

// The Latin-1 letters that RE2 may fold: 0xC0-0xFE (upper case A-grave to
// thorn, then sharp s, lower case a-grave to thorn), less the multiplication
// and division signs. RE2 folds 0xC0-0xDE with 0xE0-0xFE.
const ByteSet kLatin1Letters = [] {
  ByteSet s;
  for (unsigned c = 0xC0; c <= 0xFE; ++c) s.set(c);
  s.reset(0xD7);  // multiplication sign
  s.reset(0xF7);  // division sign
  return s;
}();

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
  append_hex_byte(out, v);
  out += "{1})";
}

// The class's one member, if it has exactly one.
std::optional<unsigned> only_member(const ByteSet& s) {
  if (s.count() != 1) return std::nullopt;
  for (unsigned v = 0; v < 256; ++v)
    if (s[v]) return v;
  return std::nullopt;
}

// A class written out byte by byte, folding off: `members` before negation.
void append_class(std::string& out, const ByteSet& members, bool negated) {
  out += "(?-i:[";
  if (negated) out += '^';
  for (unsigned v = 0; v < 256;) {
    if (!members[v]) {
      ++v;
      continue;
    }
    unsigned w = v;
    while (w + 1 < 256 && members[w + 1]) ++w;
    append_hex_byte(out, v);
    if (w > v) {
      out += '-';
      append_hex_byte(out, w);
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
  if (!may_name_high_byte(r) && r.find("[:") == std::string_view::npos) return std::string(r);
  std::string out;
  out.reserve(r.size() + 32);
  bool fold = ignore_case;
  std::vector<bool> outer;  // per open group: the folding to restore at its ')'
  const ClassScanner classes(r);
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
          else append_hex_byte(out, b);
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
      const std::optional<BracketClass> cls = classes.at(i);
      if (!cls) {  // unterminated: RE2 says so
        out.append(r.substr(i));
        break;
      }
      const std::optional<ByteSet> members = class_members(r, classes, *cls, fold);
      if (const std::optional<unsigned> one = members && !cls->negated ? only_member(*members) : std::nullopt;
          one && *one >= 0x80)
        append_high(out, *one, fold);  // RE2 reads a one-byte class as that byte's literal
      else if (members && fold && (*members & kLatin1Letters).any()) append_class(out, *members, cls->negated);
      else append_class_text(out, r, classes, *cls);  // as it is, a bare '[' before ':' written \[
      i = cls->close + 1;
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

std::string re2_text_utf8(std::string_view r) {
  if (r.find("[:") == std::string_view::npos) return std::string(r);
  std::string out;
  out.reserve(r.size() + 8);
  const ClassScanner classes(r);
  for (std::size_t i = 0; i < r.size();) {
    if (r[i] == '\\' && i + 1 < r.size()) {
      if (r[i + 1] == 'Q') {  // quoted: no class inside
        const std::size_t q = r.find("\\E", i + 2);
        const std::size_t end = q == std::string_view::npos ? r.size() : q + 2;
        out.append(r.substr(i, end - i));
        i = end;
        continue;
      }
      out.append(r.substr(i, 2));
      i += 2;
      continue;
    }
    if (r[i] == '[') {
      const std::optional<BracketClass> cls = classes.at(i);
      if (!cls) {
        out.append(r.substr(i));
        break;
      }
      append_class_text(out, r, classes, *cls);
      i = cls->close + 1;
      continue;
    }
    out += r[i++];
  }
  return out;
}

}  // namespace stealscan

// decode_splice.cpp: decode_pass() and SplicedText (decode_splice.hpp).
#include "secrets/detect/decode_splice.hpp"

#include <algorithm>
#include <cstring>

#include "secrets/detect/base64.hpp"
#include "secrets/detect/base64_blobs.hpp"

namespace stealscan::secrets {
namespace {

constexpr std::size_t kMinHex = 32;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool printable(unsigned char c) { return c >= 0x09 && c <= 0x7e; }

using Segment = DecodeScratch::Segment;

// Four hex digits at `at`.
bool hex4_at(std::string_view t, std::size_t at) {
  return at + 4 <= t.size() && hex_value(t[at]) >= 0 && hex_value(t[at + 1]) >= 0 && hex_value(t[at + 2]) >= 0 &&
         hex_value(t[at + 3]) >= 0;
}

// `%XX` at `at`.
bool percent_at(std::string_view t, std::size_t at) {
  return at + 2 < t.size() && t[at] == '%' && hex_value(t[at + 1]) >= 0 && hex_value(t[at + 2]) >= 0;
}

// Whether the first bytes a hex or base64 run decodes to (1 of hex, 3 of
// base64: the run has at least kMinBlob characters) are printable; decoded()
// fails on a run where they are not.
bool starts_printable(std::string_view run, bool hex) {
  if (hex) return printable(static_cast<unsigned char>(hex_value(run[0]) * 16 + hex_value(run[1])));
  std::uint32_t quad = 0;
  for (std::size_t k = 0; k < 4; ++k) quad = (quad << 6) | base64_detail::kValue[static_cast<unsigned char>(run[k])];
  return printable(static_cast<unsigned char>(quad >> 16)) && printable(static_cast<unsigned char>(quad >> 8)) &&
         printable(static_cast<unsigned char>(quad));
}

// Candidates in order of their start; for one start, percent before hex before
// base64. One pass over the text (text_classes.hpp) finds them all: the
// base64 runs from one mask, and from the other the few bytes that may start
// an escape, each looked at in turn.
void candidates(std::string_view t, std::vector<Segment>& out) {
  out.clear();
  const char* const base = t.data();
  // Unicode: runs of \uXXXX escapes (one backslash or two), and of U+XXXX code
  // points each followed by a space or the text's end.
  const auto escape_at = [&](std::size_t at) -> std::size_t {  // its length, 0 if none
    std::size_t q = at;
    if (q < t.size() && t[q] == '\\') ++q;
    if (q < t.size() && t[q] == '\\') ++q;
    if (q == at || q + 1 > t.size() || (t[q] != 'u' && t[q] != 'U') || !hex4_at(t, q + 1)) return 0;
    return q + 5 - at;
  };
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  const auto code_point_at = [&](std::size_t at) -> std::size_t {  // with the space after it
    if (at + 6 > t.size() || t[at] != 'U' || t[at + 1] != '+' || !hex4_at(t, at + 2)) return 0;
    if (at + 6 == t.size()) return 6;
    return is_space(t[at + 6]) ? 7 : 0;
  };
  // Where each kind's search goes on: a run found is not searched again inside.
  std::size_t percent_from = 0, escape_from = 0, code_point_from = 0;
  const auto on_escape = [&](std::size_t p) {
    if (t[p] == '%') {
      // Percent: per line, from its first %XX to the end of its last.
      if (p < percent_from || !percent_at(t, p)) return;
      const void* nl = std::memchr(base + p, '\n', t.size() - p);
      const std::size_t end = nl == nullptr ? t.size() : static_cast<std::size_t>(static_cast<const char*>(nl) - base);
      std::size_t last = p + 3;
      for (std::size_t q = p + 3; q < end;) {
        const void* qc = std::memchr(base + q, '%', end - q);
        if (qc == nullptr) break;
        q = static_cast<std::size_t>(static_cast<const char*>(qc) - base);
        if (q + 2 < end && percent_at(t, q)) {
          last = q + 3;
          q += 3;
        } else {
          ++q;
        }
      }
      out.push_back(Segment{p, last, kPercent});
      percent_from = end;
      return;
    }
    const bool code_point = t[p] == 'U';
    if (p < (code_point ? code_point_from : escape_from)) return;
    std::size_t end = p;
    while (const std::size_t n = code_point ? code_point_at(end) : escape_at(end)) end += n;
    if (end == p) return;
    out.push_back(Segment{p, end, kUnicode});
    (code_point ? code_point_from : escape_from) = end;
  };
  // Hex and base64: the runs of base64 characters.
  const auto on_run = [&](std::size_t begin, std::size_t end) {
    std::size_t run_end = end;
    while (run_end > begin && t[run_end - 1] == '=') --run_end;
    const std::string_view run = t.substr(begin, run_end - begin);
    const bool hex = run_end == end && run.size() >= kMinHex &&
                     std::all_of(run.begin(), run.end(), [](char c) { return hex_value(c) >= 0; });
    // Most runs are identifiers and paths, whose first bytes decode to bytes
    // that are not printable: such a run cannot decode (decoded()) and is no
    // candidate, unless a U+ code point lies inside it (a run taken, even one
    // that does not decode, hides the candidates that start inside it).
    if (!starts_printable(run, hex) && run.find("U+") == std::string_view::npos) return;
    out.push_back(Segment{begin, end, hex ? kHex : kBase64});
  };
  Base64Runs runs;
  for_each_classified_block(t, [&](std::size_t block, std::size_t width, const ClassMasks& m) {
    runs.feed(t, block, width, m.base64, on_run);
    for (std::uint64_t e = m.escapes; e != 0; e &= e - 1) on_escape(block + static_cast<std::size_t>(__builtin_ctzll(e)));
  });
  runs.finish(t, on_run);
  std::sort(out.begin(), out.end(), [](const Segment& a, const Segment& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.kind < b.kind;
  });
}

// The decoded value of a segment, or "" if it does not decode to printable text.
// A code point as UTF-8 (a surrogate or one out of range as U+FFFD, as Go writes it).
void append_utf8(std::string& out, std::uint32_t cp) {
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = 0xFFFD;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool decoded(std::string_view s, Encoding kind, std::string& out) {
  out.clear();
  if (kind == kUnicode) {  // each 4 hex digits after a 'u' (of "\\u") or a '+' (of "U+")
    for (std::size_t i = 0; i < s.size();) {
      const char c = s[i];
      if ((c == 'u' || c == 'U' || c == '+') && hex4_at(s, i + 1)) {
        std::uint32_t cp = 0;
        for (std::size_t k = 1; k <= 4; ++k) cp = cp * 16 + static_cast<std::uint32_t>(hex_value(s[i + k]));
        append_utf8(out, cp);
        i += 5;
      } else {
        ++i;
      }
    }
    return !out.empty();
  }
  if (kind == kPercent) {
    for (std::size_t i = 0; i < s.size();) {
      if (percent_at(s, i)) {
        const auto c = static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
        if (!printable(static_cast<unsigned char>(c))) return false;
        out.push_back(c);
        i += 3;
      } else {
        out.push_back(s[i++]);
      }
    }
    return true;
  }
  const auto has_any = [&](const char* set) { return s.find_first_of(set) != std::string_view::npos; };
  if (kind == kHex) {
    if (s.size() % 2 != 0 || !has_any("0123456789")) return false;
    for (std::size_t i = 0; i < s.size(); i += 2) {
      const auto c = static_cast<char>(hex_value(s[i]) * 16 + hex_value(s[i + 1]));
      if (!printable(static_cast<unsigned char>(c))) return false;
      out.push_back(c);
    }
    return true;
  }
  if (!has_any("0123456789+/-_")) return false;
  // decode_base64(), stopping at the first byte that is not printable: most
  // runs tried (identifiers, hashes) fail within a few bytes.
  while (!s.empty() && s.back() == '=') s.remove_suffix(1);
  if (s.size() % 4 == 1) return false;
  std::uint32_t acc = 0;
  int bits = 0;
  for (const char c : s) {
    const std::uint8_t v = base64_detail::kValue[static_cast<unsigned char>(c)];
    if (v == 0xff) return false;  // '=' inside
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const auto b = static_cast<unsigned char>((acc >> bits) & 0xff);
      if (!printable(b)) return false;
      out.push_back(static_cast<char>(b));
    }
  }
  return true;
}

}  // namespace

std::vector<std::string> encoding_tags(std::uint8_t encodings) {
  std::vector<std::string> tags;
  if ((encodings & kPercent) != 0) tags.emplace_back("decoded:percent");
  if ((encodings & kUnicode) != 0) tags.emplace_back("decoded:unicode");
  if ((encodings & kHex) != 0) tags.emplace_back("decoded:hex");
  if ((encodings & kBase64) != 0) tags.emplace_back("decoded:base64");
  return tags;
}

std::vector<SplicedText::Piece> file_pieces(std::size_t size) {
  return {SplicedText::Piece{0, size, 0, size, false, 0, 0}};
}

namespace {

// The encodings of the decoded pieces (of pass `pass`; 0: of any pass) that
// [begin, end] overlaps or touches. The pieces are in order and cover the
// text, so their ends are sorted too: a binary search for the first that
// reaches `begin`, then a walk over those that start by `end` (at most one
// past each edge). Logarithmic in the pieces, not linear: a pass calls it for
// every segment it decodes and every match in decoded text, and a file of
// many encoded lines has as many pieces.
std::uint8_t encodings_touching(const std::vector<SplicedText::Piece>& pieces, std::size_t begin, std::size_t end,
                                unsigned pass) {
  std::uint8_t e = 0;
  auto it = std::lower_bound(pieces.begin(), pieces.end(), begin,
                             [](const SplicedText::Piece& p, std::size_t at) { return p.end < at; });
  for (; it != pieces.end() && it->begin <= end; ++it)
    if (it->decoded && (pass == 0 || it->pass == pass)) e |= it->encodings;
  return e;
}

// The piece holding offset `at` (the last one for the text's end).
const SplicedText::Piece& piece_at(const std::vector<SplicedText::Piece>& pieces, std::size_t at) {
  auto it = std::upper_bound(pieces.begin(), pieces.end(), at,
                             [](std::size_t v, const SplicedText::Piece& p) { return v < p.end; });
  if (it == pieces.end()) --it;
  return *it;
}

// Where [begin, end) of the text `pieces` describe lies in the file.
std::size_t begin_in_file(const std::vector<SplicedText::Piece>& pieces, std::size_t begin) {
  const SplicedText::Piece& p = piece_at(pieces, begin);
  return p.decoded ? p.from : p.from + std::min(begin - p.begin, p.to - p.from);
}

std::size_t end_in_file(const std::vector<SplicedText::Piece>& pieces, std::size_t end) {
  const SplicedText::Piece& p = piece_at(pieces, end > 0 ? end - 1 : 0);
  return p.decoded ? p.to : p.from + std::min(end - p.begin, p.to - p.from);
}

}  // namespace

std::size_t SplicedText::file_begin(std::size_t begin) const { return begin_in_file(pieces, begin); }
std::size_t SplicedText::file_end(std::size_t end) const { return end_in_file(pieces, end); }

std::uint8_t SplicedText::decoded_by(unsigned pass, std::size_t begin, std::size_t end) const {
  return encodings_touching(pieces, begin, end, pass);
}

bool decode_pass(std::string_view t, const std::vector<SplicedText::Piece>& in_pieces, unsigned pass,
                 SplicedText& out, DecodeScratch& scratch) {
  out.text.clear();
  out.pieces.clear();
  bool any = false;
  std::size_t copied = 0;  // in `t`: what is already in `out`
  // Copies t[copied, to) with its pieces, clipped and shifted.
  const auto copy_to = [&](std::size_t to) {
    if (to <= copied) return;
    auto it = std::upper_bound(in_pieces.begin(), in_pieces.end(), copied,
                               [](std::size_t v, const SplicedText::Piece& p) { return v < p.end; });
    for (; it != in_pieces.end() && it->begin < to; ++it) {
      const std::size_t b = std::max(it->begin, copied), e = std::min(it->end, to);
      if (b >= e) continue;
      SplicedText::Piece p = *it;
      if (!p.decoded) {  // a plain stretch maps byte for byte: clip its file span too
        p.from = it->from + (b - it->begin);
        p.to = p.from + (e - b);
      }
      p.begin = out.text.size() + (b - copied);
      p.end = p.begin + (e - b);
      out.pieces.push_back(p);
    }
    out.text.append(t.substr(copied, to - copied));
    copied = to;
  };
  // The leftmost segments, none inside another; then, as gitleaks, one that
  // touches a neighbour of a kind listed before its own is dropped (a base64
  // run cut by a percent escape is decoded whole once the escape is).
  candidates(t, scratch.candidates);
  if (scratch.candidates.empty()) return false;
  std::vector<Segment>& taken = scratch.taken;
  taken.clear();
  std::size_t consumed = 0;
  for (const Segment& s : scratch.candidates) {
    if (!taken.empty() && s.begin < consumed) continue;  // inside one taken: the leftmost swallowed it
    taken.push_back(s);
    consumed = s.end;
  }
  const auto touch = [](const Segment& a, const Segment& b) { return b.begin <= a.end && a.begin <= b.end; };
  for (std::size_t i = 0; i < taken.size(); ++i) {
    const Segment& s = taken[i];
    if ((i > 0 && touch(s, taken[i - 1]) && taken[i - 1].kind < s.kind) ||
        (i + 1 < taken.size() && touch(s, taken[i + 1]) && taken[i + 1].kind < s.kind))
      continue;
    std::string& value = scratch.value;
    if (!decoded(t.substr(s.begin, s.end - s.begin), s.kind, value) || value.empty()) continue;
    copy_to(s.begin);
    // The encodings of what this segment was made of, from earlier passes.
    const std::uint8_t encodings = s.kind | encodings_touching(in_pieces, s.begin, s.end, 0);
    const std::size_t at = out.text.size();
    out.text.append(value);
    out.pieces.push_back(SplicedText::Piece{at, out.text.size(), begin_in_file(in_pieces, s.begin),
                                            end_in_file(in_pieces, s.end), true, pass, encodings});
    copied = s.end;
    any = true;
  }
  if (!any) return false;
  copy_to(t.size());
  return true;
}

}  // namespace stealscan::secrets

// decode_splice.hpp: one decoding pass over a text, as gitleaks' codec does
// it (../README.md, "Decoding"): each encoded segment is replaced in place by
// what it decodes to, so that the rules run again over the whole text and a
// match may span decoded text and what surrounds it (`secret=` before a
// base64 value); and the map from the new text back to the file's bytes,
// which places a finding and names the encodings it went through.
//
// Segments, found left to right, the leftmost winning, at one start the
// first kind listed; one that touches a neighbour of a kind listed before its
// own waits for a later pass (a base64 value cut by a `%4A` is decoded whole
// once the escape is):
// - percent: from a `%XX` to the last `%XX` of its line; every `%XX` in it
//   decoded, the rest kept; all of them must decode to printable ASCII;
// - unicode: back-to-back escapes `\uXXXX` (or `\\uXXXX`, either case of u),
//   or code points `U+XXXX` each followed by a space or the end, as UTF-8;
// - hex: a run of 32 or more hex digits, even, holding a digit (a base64 run
//   that is all hex);
// - base64: a run of 16 or more characters of either base64 alphabet (and up
//   to two '='), holding a digit or one of + / - _ (not a mere identifier).
// A segment counts only if it decodes, and (but unicode) to printable ASCII
// (tab to '~').
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stealscan::secrets {

// The encodings a piece of decoded text went through, as bits.
// Their order is gitleaks' precedence: where two segments touch, the one of
// the kind listed first is decoded first.
enum Encoding : std::uint8_t { kPercent = 1, kUnicode = 2, kHex = 4, kBase64 = 8 };

// "decoded:percent", "decoded:unicode", "decoded:hex", "decoded:base64" for
// the bits set, in that order.
std::vector<std::string> encoding_tags(std::uint8_t encodings);

// A text and where each of its stretches comes from in the file's bytes.
struct SplicedText {
  // A stretch [begin, end) of `text`: copied from the file's [from, to) byte
  // for byte (decoded false), or decoded from what lies at [from, to) there.
  struct Piece {
    std::size_t begin, end;
    std::size_t from, to;
    bool decoded;
    unsigned pass;           // for decoded text: the pass that decoded it (1: the first)
    std::uint8_t encodings;  // for decoded text: every encoding it went through
  };
  std::string text;
  std::vector<Piece> pieces;  // in order, covering `text`

  // Where a match [begin, end) of `text` lies in the file: a bound inside
  // decoded text moves to that text's encoded span's edge.
  [[nodiscard]] std::size_t file_begin(std::size_t begin) const;
  [[nodiscard]] std::size_t file_end(std::size_t end) const;
  // The pieces decoded by `pass` that [begin, end) overlaps or touches (as
  // gitleaks counts overlap): their encodings ORed; 0 if none.
  [[nodiscard]] std::uint8_t decoded_by(unsigned pass, std::size_t begin, std::size_t end) const;
};

// A worker's buffers for decode_pass(), kept from file to file (every file
// goes through a first pass: no allocation where nothing decodes).
struct DecodeScratch {
  struct Segment {
    std::size_t begin, end;
    Encoding kind;
  };
  std::vector<Segment> candidates;
  std::vector<Segment> taken;
  std::string value;
};

// The next pass over `text`, whose `pieces` say where it comes from (for the
// file itself: one piece, copied), into `out`: false (out unspecified) when
// nothing in `text` decodes. `pass` numbers it (1: the first over the file).
bool decode_pass(std::string_view text, const std::vector<SplicedText::Piece>& pieces, unsigned pass,
                 SplicedText& out, DecodeScratch& scratch);

// The pieces of a file scanned as it is: one, copied.
std::vector<SplicedText::Piece> file_pieces(std::size_t size);

}  // namespace stealscan::secrets

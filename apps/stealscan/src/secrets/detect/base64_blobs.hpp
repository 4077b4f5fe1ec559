// base64_blobs.hpp: the base64 blobs of a text, and whether a decoded blob is
// text worth scanning (../README.md, "Decoding"). A blob is a run of at least
// kMinBlob characters of either base64 alphabet with up to two '=' after it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "secrets/detect/base64.hpp"

namespace stealscan::secrets {

// 24 characters encode 18 bytes: shorter blobs cannot hold a token with its
// context, and would send every long identifier to the decoder.
inline constexpr std::size_t kMinBlob = 24;

// Calls fn(begin, end) for each blob of `text`, in order. Linear, and on
// text whose runs are short (source code, prose) it reads a few bytes in each
// kMinBlob: it asks whether the window of kMinBlob bytes where the next blob
// would start is all base64, reading it from its end, and the last byte that
// is not one moves the window past it whole (a blob cannot hold that byte).
// Bytes already known to be base64 from the window before are not read again.
template <class Fn>
void for_each_base64_blob(std::string_view text, Fn&& fn) {
  const std::size_t n = text.size();
  std::size_t i = 0;      // the next blob starts at i or later; text[i - 1], if any, is not base64
  std::size_t known = 0;  // text[i, known) is base64 (nothing known when known <= i)
  while (i + kMinBlob <= n) {
    const std::size_t floor = std::max(i, known);
    std::size_t k = i + kMinBlob;
    while (k > floor && is_base64_char(text[k - 1])) --k;
    if (k > floor) {  // text[k - 1] is not base64, text[k, i + kMinBlob) is
      known = i + kMinBlob;
      i = k;
      continue;
    }
    // text[i, i + kMinBlob) is base64, and text[i - 1] is not: a blob.
    std::size_t end = i + kMinBlob;
    while (end < n && is_base64_char(text[end])) ++end;
    std::size_t padded = end;
    while (padded < n && padded - end < 2 && text[padded] == '=') ++padded;
    fn(i, padded);
    // text[padded] is not base64, or is past the end, unless the padding ran
    // into the next blob ("...==abc"): that one starts there.
    i = padded < n && is_base64_char(text[padded]) ? padded : padded + 1;
  }
}

// Whether decoded bytes look like text: at least 95% printable ASCII, tab,
// CR or LF (tokens and config text are; random binary is not).
inline bool decoded_is_text(std::string_view bytes) {
  if (bytes.empty()) return false;
  std::size_t printable = 0;
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n' || c == '\r') ++printable;
  }
  return printable * 100 >= bytes.size() * 95;
}

}  // namespace stealscan::secrets

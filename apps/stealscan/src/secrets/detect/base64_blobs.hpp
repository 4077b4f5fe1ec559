// base64_blobs.hpp: the base64 blobs of a text, and whether a decoded blob is
// text worth scanning (../README.md, "Decoding"). A blob is a run of at least
// kMinBlob characters of either base64 alphabet with up to two '=' after it.
#pragma once

#include <cstddef>
#include <string_view>

#include "secrets/detect/base64.hpp"

namespace stealscan::secrets {

// 24 characters encode 18 bytes: shorter blobs cannot hold a token with its
// context, and would send every long identifier to the decoder.
inline constexpr std::size_t kMinBlob = 24;

// Calls fn(begin, end) for each blob of `text`, in order. Linear, and it reads
// about one byte in kMinBlob of text without long runs: it looks at the last
// byte of each window of kMinBlob bytes and skips the whole window when that
// byte cannot be part of a blob.
template <class Fn>
void for_each_base64_blob(std::string_view text, Fn&& fn) {
  const std::size_t n = text.size();
  std::size_t i = 0;  // text[i - 1], if any, is not part of a blob
  while (i + kMinBlob <= n) {
    const std::size_t probe = i + kMinBlob - 1;
    if (!is_base64_char(text[probe])) {
      i = probe + 1;
      continue;
    }
    std::size_t begin = probe;
    while (begin > i && is_base64_char(text[begin - 1])) --begin;
    std::size_t end = probe + 1;
    while (end < n && is_base64_char(text[end])) ++end;
    if (end - begin >= kMinBlob) {
      std::size_t padded = end;
      while (padded < n && padded - end < 2 && text[padded] == '=') ++padded;
      fn(begin, padded);
      end = padded;
    }
    // text[end] is not a base64 character, or is past the end, unless the
    // padding ran into the next blob ("...==abc"): it starts there.
    i = end < n && is_base64_char(text[end]) ? end : end + 1;
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

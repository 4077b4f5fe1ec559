// utf16.hpp: UTF-16 text files found and turned into UTF-8, so that `stealscan
// secrets` reads them (a file of UTF-16 is full of NUL bytes, and other
// scanners skip it as binary). ../secrets/README.md ("Decoding").
#pragma once

#include <string>
#include <string_view>

namespace stealscan {

enum class Utf16 { none, little_endian, big_endian };

// The UTF-16 of a file starting with `head`: a byte order mark (FF FE, FE FF),
// or, without one, text whose first 4 KiB are at least 90% characters below
// U+0100 with the zero byte on one side of every pair (ASCII written as
// UTF-16). Anything else is none.
Utf16 detect_utf16(std::string_view head);

// `bytes` (a byte order mark at the start is dropped) as UTF-8 into `out`
// (cleared first). An unpaired surrogate becomes U+FFFD; an odd last byte is
// dropped. Newlines stay newlines, so line numbers are the file's.
void utf16_to_utf8(std::string_view bytes, Utf16 order, std::string& out);

}  // namespace stealscan

// keyword_shape.hpp: what must follow a rule's keyword in every match of its
// regex, so that the keyword scan can drop a hit that no match could hold
// (KeywordFilter; ../README.md, "Matching").
//
// Why: the shortest keywords are the prefixes of token formats (Twilio's
// "SK" and ElevenLabs' "sk_" before 32 or 48 hex digits, Airtable's "pat"
// before 14 letters and digits), and as caseless bytes they are everywhere
// in code: `sk_buff` and OpenSSL's `sk_X509_*` put "sk_" on 5% of the lines
// of /usr/include. Each hit costs a callback and a line's bounds; a rule
// whose every match holds "sk_" and then 48 hex digits cannot match on a
// line where "sk_" is followed by a letter, so the hit is dropped at once.
//
// What it reads, conservatively (anything else: no shape, every hit kept):
// the keyword once in the regex, as literal bytes outside a class, not in a
// group that has an alternative or may be skipped (?, *, {0,..}), and right
// after it a bracket class repeated at least 4 times ({n}, {n,}, {n,m}, n >= 4).
#pragma once

#include <optional>
#include <string_view>

#include "match/regex_class.hpp"

namespace stealscan::secrets {

struct KeywordShape {
  ByteSet next;        // the bytes that may follow the keyword (folded if the regex has (?i)...)
  unsigned count = 0;  // how many of them must, at least (capped: a check, not a match)
};

// The shape that follows `keyword` (lower case, as rules store keywords) in
// every match of `regex`; nullopt when the regex does not show one plainly.
std::optional<KeywordShape> keyword_shape(std::string_view regex, std::string_view keyword);

// Whether the bytes of `text` from `at` fit `shape` (fewer bytes left than it
// needs: no).
inline bool fits(const KeywordShape& shape, std::string_view text, std::size_t at) {
  if (text.size() < at || text.size() - at < shape.count) return false;
  for (std::size_t i = 0; i < shape.count; ++i)
    if (!shape.next[static_cast<unsigned char>(text[at + i])]) return false;
  return true;
}

}  // namespace stealscan::secrets

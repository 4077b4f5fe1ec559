// What `stealscan secrets` decodes before it matches: base64 (the decoder, the
// blob finder, the text check) and UTF-16 files (detection and conversion).
// End-to-end cases are in e2e_secrets_report_test.cpp.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "secrets/detect/base64.hpp"
#include "secrets/detect/base64_blobs.hpp"
#include "sources/utf16.hpp"

namespace stealscan::secrets {
namespace {

std::string decoded(std::string_view in) {
  std::string out;
  return decode_base64(in, out) ? out : "<invalid>";
}

TEST(Base64, decodes_both_alphabets_with_or_without_padding) {
  EXPECT_EQ(decoded("aGVsbG8gd29ybGQ="), "hello world");
  EXPECT_EQ(decoded("aGVsbG8gd29ybGQ"), "hello world");
  EXPECT_EQ(decoded("+/+/"), "\xfb\xff\xbf");
  EXPECT_EQ(decoded("-_-_"), "\xfb\xff\xbf");
  EXPECT_EQ(decoded(""), "");
}

TEST(Base64, refuses_bytes_outside_the_alphabets_and_impossible_lengths) {
  EXPECT_EQ(decoded("aGVs bG8="), "<invalid>");
  EXPECT_EQ(decoded("aGVsb"), "<invalid>");  // 5 characters: one left over
  EXPECT_EQ(decoded("aG=Vs"), "<invalid>");  // '=' inside
}

std::vector<std::string> blobs(std::string_view text) {
  std::vector<std::string> out;
  for_each_base64_blob(text, [&](std::size_t b, std::size_t e) { out.emplace_back(text.substr(b, e - b)); });
  return out;
}

TEST(Base64Blobs, finds_runs_of_at_least_the_minimum_with_their_padding) {
  const std::string a(kMinBlob, 'A'), b(kMinBlob - 1, 'B'), c(40, 'c');
  EXPECT_EQ(blobs(a), std::vector<std::string>{a});
  EXPECT_TRUE(blobs(b).empty());
  EXPECT_EQ(blobs("x: " + a + "== " + b + "\n" + c), (std::vector<std::string>{a + "==", c}));
  // A run that starts just after the window that was skipped, and one at each end.
  EXPECT_EQ(blobs(std::string(kMinBlob, ' ') + a), std::vector<std::string>{a});
  EXPECT_EQ(blobs(a + " " + a), (std::vector<std::string>{a, a}));
  // Padding that runs into the next blob: the next one keeps its first byte.
  EXPECT_EQ(blobs(a + "==" + c), (std::vector<std::string>{a + "==", c}));
}

TEST(Base64Blobs, every_run_is_found_wherever_it_lies) {
  // Each offset and length around the window size, against a plain scan.
  for (std::size_t off = 0; off < 3 * 64; ++off)  // across the finder's 64-byte blocks
    for (std::size_t len = kMinBlob - 2; len < kMinBlob + 3; ++len) {
      const std::string text = std::string(off, '.') + std::string(len, 'Q') + std::string(5, '.');
      const std::vector<std::string> want =
          len >= kMinBlob ? std::vector<std::string>{std::string(len, 'Q')} : std::vector<std::string>{};
      EXPECT_EQ(blobs(text), want) << "offset " << off << " length " << len;
    }
}

// The blobs by the definition, read plainly: each maximal run of base64
// characters at least kMinBlob long, with up to two '=' after it.
std::vector<std::string> reference_blobs(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    if (!is_base64_char(text[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && is_base64_char(text[end])) ++end;
    std::size_t padded = end;
    while (padded < text.size() && padded - end < 2 && text[padded] == '=') ++padded;
    if (end - i >= kMinBlob) out.emplace_back(text.substr(i, padded - i));
    i = end;
  }
  return out;
}

TEST(Base64Blobs, random_texts_give_the_blobs_a_plain_scan_gives) {
  // Runs of every length around the minimum, and longer than the finder's
  // 64-byte blocks, separated by one or more bytes that are not base64 ('='
  // among them), as identifiers and tokens in code.
  std::mt19937 rng(2026);
  const std::string gaps = " \n.=:;\"(";
  std::size_t found = 0;
  for (int t = 0; t < 3000; ++t) {
    std::string text;
    const int pieces = static_cast<int>(rng() % 12);
    for (int p = 0; p < pieces; ++p) {
      const std::size_t kind = rng() % 10;
      const std::size_t run = kind == 0 ? 50 + rng() % 150 : kind < 4 ? kMinBlob - 2 + rng() % 5 : rng() % 30;
      text.append(run, "Qz09+/_-"[rng() % 8]);
      text.append(1 + rng() % 3, gaps[rng() % gaps.size()]);
    }
    const std::vector<std::string> want = reference_blobs(text);
    ASSERT_EQ(blobs(text), want) << "text: " << text;
    found += want.size();
  }
  EXPECT_GT(found, 1000U);  // the texts do hold blobs
}

TEST(Base64Blobs, decoded_text_is_told_from_binary) {
  EXPECT_TRUE(decoded_is_text("export TOKEN=abc\n"));
  EXPECT_FALSE(decoded_is_text(std::string("\x01\x89\xff\x10 abc", 8)));
  EXPECT_FALSE(decoded_is_text(""));
}

std::string utf16le(std::string_view ascii, bool bom) {
  std::string out = bom ? "\xff\xfe" : "";
  for (const char c : ascii) {
    out.push_back(c);
    out.push_back('\0');
  }
  return out;
}

TEST(Utf16, detected_by_byte_order_mark_or_by_the_zero_bytes_of_ascii) {
  const std::string text = "password = hunter2\r\nline two\r\n";
  EXPECT_EQ(detect_utf16(utf16le(text, true)), Utf16::little_endian);
  EXPECT_EQ(detect_utf16(utf16le(text, false)), Utf16::little_endian);
  std::string be = "\xfe\xff";
  for (const char c : text) {
    be.push_back('\0');
    be.push_back(c);
  }
  EXPECT_EQ(detect_utf16(be), Utf16::big_endian);
  EXPECT_EQ(detect_utf16(be.substr(2)), Utf16::big_endian);
  EXPECT_EQ(detect_utf16(text), Utf16::none);
  EXPECT_EQ(detect_utf16(std::string("\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0", 16)), Utf16::none);
  EXPECT_EQ(detect_utf16(std::string("a\0", 2)), Utf16::none);  // too short to guess
}

TEST(Utf16, converts_to_utf8_with_surrogate_pairs_and_replaces_what_is_unpaired) {
  std::string out;
  utf16_to_utf8(utf16le("key: abc\n", true), Utf16::little_endian, out);
  EXPECT_EQ(out, "key: abc\n");
  // U+00E9, U+20AC, U+1F600 (a pair), an unpaired high surrogate, an odd last byte.
  const std::string le("\xe9\x00\xac\x20\x3d\xd8\x00\xde\x3d\xd8x\x00z", 13);
  utf16_to_utf8(le, Utf16::little_endian, out);
  EXPECT_EQ(out, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbdx");
}

}  // namespace
}  // namespace stealscan::secrets

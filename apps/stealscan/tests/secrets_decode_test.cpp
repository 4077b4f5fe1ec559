// What `stealscan secrets` decodes before it matches: base64 (the decoder, the
// blob finder, the text check) and UTF-16 files (detection and conversion).
// End-to-end cases are in e2e_secrets_report_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "secrets/detect/base64.hpp"
#include "secrets/detect/base64_blobs.hpp"
#include "secrets/detect/decode_splice.hpp"
#include "secrets/detect/detector.hpp"
#include "secrets/detect/text_classes.hpp"
#include "secrets/rules/config_loader.hpp"
#include "sources/utf16.hpp"
#include "support/detector_run.hpp"

namespace stealscan::secrets {
// Named after the file: test binaries compile several files as one unit.
namespace secrets_decode_test {
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

// ---- Byte classes (text_classes.hpp) -------------------------------------

// Every SIMD kernel this CPU runs gives classify_plain()'s masks, the byte
// after the block included: random blocks drawn mostly from the bytes at the
// classes' edges, and each of the 256 values at the first, a middle and the
// last position with each of them after it.
TEST(TextClasses, every_kernel_gives_the_plain_masks) {
  std::vector<std::pair<const char*, ClassifyBlockFn>> kernels;
#if defined(__x86_64__)
  kernels.emplace_back("sse2", &detail::classify_block_sse2);
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) kernels.emplace_back("avx2", &detail::classify_block_avx2);
#endif
  kernels.emplace_back("chosen", classify_block_for_this_cpu());
  const std::string edges = "%\\uU+/-_=.,:@[`{AZaz09fFgG/\x7f\x80\xff";
  std::mt19937 rng(7);
  std::string block(65, ' ');
  const auto check = [&](const char* what) {
    const ClassMasks want = classify_plain(block.data(), 64, static_cast<unsigned char>(block[64]));
    for (const auto& [name, kernel] : kernels) {
      const ClassMasks got = kernel(block.data());
      ASSERT_EQ(got.base64, want.base64) << name << " " << what;
      ASSERT_EQ(got.escapes, want.escapes) << name << " " << what;
    }
  };
  for (int t = 0; t < 20000; ++t) {
    for (char& c : block) c = rng() % 4 == 0 ? static_cast<char>(rng()) : edges[rng() % edges.size()];
    check("random");
  }
  for (const std::size_t at : {std::size_t{0}, std::size_t{31}, std::size_t{32}, std::size_t{63}})
    for (int c = 0; c < 256; ++c)
      for (const char after : std::string("%\\uU+0fg \x80")) {
        block.assign(65, '.');
        block[at] = static_cast<char>(c);
        block[at + 1] = after;
        check("one byte");
      }
  // The plain masks themselves, on a text read by eye.
  const std::string text = "%41 %g \\u00 \\n U+ U- Ab9+/-_= \xc3";
  const ClassMasks m = classify_plain(text.data(), text.size(), -1);
  std::string escapes, b64;
  for (std::size_t k = 0; k < text.size(); ++k) {
    escapes += (m.escapes >> k & 1) != 0 ? '^' : ' ';
    b64 += (m.base64 >> k & 1) != 0 ? '^' : ' ';
  }
  EXPECT_EQ(escapes, "^      ^       ^               ");
  EXPECT_EQ(b64, " ^^  ^  ^^^  ^ ^^ ^^ ^^^^^^^   ");
}

// ---- Decoding passes (decode_splice.hpp) --------------------------------

std::string b64(std::string_view s) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 3 <= s.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(s[i]) << 16) | (static_cast<unsigned char>(s[i + 1]) << 8) |
                       static_cast<unsigned char>(s[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out.push_back(kAlphabet[(v >> k) & 63]);
  }
  if (i < s.size()) {
    unsigned v = static_cast<unsigned char>(s[i]) << 16;
    if (i + 1 < s.size()) v |= static_cast<unsigned char>(s[i + 1]) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out += i + 1 < s.size() ? std::string(1, kAlphabet[(v >> 6) & 63]) + "=" : "==";
  }
  return out;
}

std::string hex_of(std::string_view s) {
  std::string out;
  for (const char c : s) {
    static const char* kDigits = "0123456789abcdef";
    out.push_back(kDigits[static_cast<unsigned char>(c) >> 4]);
    out.push_back(kDigits[static_cast<unsigned char>(c) & 15]);
  }
  return out;
}

// One pass over `text`, as the file.
SplicedText pass1(std::string_view text) {
  SplicedText out;
  DecodeScratch scratch;
  EXPECT_TRUE(decode_pass(text, file_pieces(text.size()), 1, out, scratch)) << text;
  return out;
}

TEST(DecodeSplice, each_kind_is_decoded_in_place_and_mapped_back_to_its_encoded_span) {
  const std::string enc = b64("password=hunter2hunter2");  // 32 characters
  const std::string text = "x: " + enc + " # end";
  const SplicedText s = pass1(text);
  EXPECT_EQ(s.text, "x: password=hunter2hunter2 # end");
  // A match inside the decoded text lies at the whole encoded span; one in
  // the plain text around it where it is.
  EXPECT_EQ(s.file_begin(3 + 9), 3u);
  EXPECT_EQ(s.file_end(3 + 23), 3 + enc.size());
  EXPECT_EQ(s.file_begin(1), 1u);
  EXPECT_EQ(s.file_end(s.text.size()), text.size());
  EXPECT_EQ(s.decoded_by(1, 3, 10), kBase64);
  EXPECT_EQ(s.decoded_by(1, 0, 2), 0);  // plain text only

  EXPECT_EQ(pass1("k=" + hex_of("decoded-secret-value")).text, "k=decoded-secret-value");
  EXPECT_EQ(pass1("secret%3dvalue%21 tail").text, "secret=value! tail");  // first to last %XX of the line
  EXPECT_EQ(pass1("a%41b\nc%43d").text, "aAb\ncCd");                     // per line
}

TEST(DecodeSplice, what_would_not_decode_to_printable_text_is_left_alone) {
  SplicedText out;
  DecodeScratch scratch;
  for (const std::string& text :
       {std::string("an_identifier_without_digits_here"),          // no digit nor + / - _... but '_': tried, not text
        std::string("deadbeefdeadbeefdeadbeefdeadbeef00"),          // hex, not printable
        std::string("%00%01"),                                       // percent to control bytes
        std::string("short_b64_12"),                                 // under 16
        std::string("plain words only")})
    EXPECT_FALSE(decode_pass(text, file_pieces(text.size()), 1, out, scratch)) << text << " -> " << out.text;
}

TEST(DecodeSplice, a_second_pass_maps_through_the_first_and_carries_its_encodings) {
  // percent hides an '=' before a hex value: pass 1 decodes the percent,
  // pass 2 the hex; the hex piece goes through both encodings.
  const std::string text = "secret%3d" + hex_of("decoded-secret-value") + "\n";
  const SplicedText one = pass1(text);
  EXPECT_EQ(one.text, "secret=" + hex_of("decoded-secret-value") + "\n");
  SplicedText two;
  DecodeScratch scratch;
  ASSERT_TRUE(decode_pass(one.text, one.pieces, 2, two, scratch));
  EXPECT_EQ(two.text, "secret=decoded-secret-value\n");
  // "secret=decoded..." touches the hex value decoded by pass 2, which sits
  // right after the percent-decoded '=' (touching counts, as for gitleaks).
  EXPECT_EQ(two.decoded_by(2, 0, 27), kHex | kPercent);
  EXPECT_EQ(two.file_begin(0), 0u);
  EXPECT_EQ(two.file_end(27), text.size() - 1);
  // base64 in base64: the inner one is decoded by pass 2, mapped to the outer span.
  const std::string outer = "v: " + b64("k=" + b64("ghp_x0x1x2x3x4x5x6x7") + ";");
  const SplicedText o1 = pass1(outer);
  SplicedText o2;
  ASSERT_TRUE(decode_pass(o1.text, o1.pieces, 2, o2, scratch));
  EXPECT_EQ(o2.text, "v: k=ghp_x0x1x2x3x4x5x6x7;");
  EXPECT_EQ(o2.file_begin(5), 3u);
  EXPECT_EQ(o2.file_end(25), outer.size());
  EXPECT_EQ(o2.decoded_by(2, 5, 25), kBase64);
}

// The Detector over decoding passes: a match may span decoded text and the
// plain text around it, is placed at the encoded span in the file, tagged
// with its encodings and the pass; what an earlier pass found is not found again.
TEST(DecodeSplice, the_detector_finds_matches_across_decoded_and_plain_text) {
  const RuleSet rules = resolve_config(parse_config(R"toml(
[[rules]]
id = "assign"
regex = '''secret=([a-z-]{12,})'''
)toml",
                                                    "t.toml"),
                                       RuleSet{});
  const Detector d(rules);
  const auto scan = [&](const std::string& text) {
    Detector::Scratch s(d);
    std::vector<Finding> out;
    d.scan("f.txt", text, s, out);
    std::vector<std::string> brief;
    for (const Finding& f : out) {
      std::string b = std::to_string(f.start_line) + ":" + std::to_string(f.start_column) + "-" +
                      std::to_string(f.end_column) + "=" + f.secret;
      for (const std::string& tag : f.tags()) b.append(" ").append(tag);
      brief.push_back(b);
    }
    return brief;
  };
  // "secret=" plain, the value in base64: found only once spliced.
  const std::string v = b64("decoded-secret-value");
  EXPECT_EQ(scan("a\n x secret=" + v + "\n"),
            std::vector<std::string>{"2:4-" + std::to_string(10 + v.size()) +
                                     "=decoded-secret-value decoded:base64 decode-depth:1"});
  // Two passes: base64 of "secret=" + base64 of the value.
  const std::string twice = b64("secret=" + v);
  EXPECT_EQ(scan(twice + "\n"), std::vector<std::string>{"1:1-" + std::to_string(twice.size()) +
                                                         "=decoded-secret-value decoded:base64 decode-depth:2"});
  // unicode escapes.
  std::string escaped;
  for (const char c : std::string("decoded-secret-value")) escaped += "\\u00" + hex_of(std::string(1, c));
  EXPECT_EQ(scan("secret=" + escaped + "\n"),
            std::vector<std::string>{"1:1-" + std::to_string(7 + escaped.size()) +
                                     "=decoded-secret-value decoded:unicode decode-depth:1"});
  // percent then hex.
  EXPECT_EQ(scan("secret%3d" + hex_of("decoded-secret-valuev") + "\n"),
            std::vector<std::string>{"1:1-51=decoded-secret-valuev decoded:percent decoded:hex decode-depth:2"});
  // Found plainly: not again in a pass that decoded something else on the line.
  EXPECT_EQ(scan("secret=plain-value-here " + b64("nothing here at all 123") + "\n"),
            std::vector<std::string>{"1:1-23=plain-value-here"});
}

// A file of many lines, each a value encoded twice (percent escapes inside
// base64), between plain lines and once-encoded ones: every pass has as many
// pieces as lines, and each finding still carries exactly the encodings its
// own span went through, at its own line.
TEST(DecodeSplice, each_of_many_encoded_lines_keeps_its_own_encodings) {
  const Detector d(rules_from(R"toml(
[[rules]]
id = "assign"
regex = '''secret=([a-z0-9-]{12,})'''
)toml"));
  std::string text;
  std::vector<std::string> want;
  for (int i = 0; i < 3000; ++i) {
    const std::string value = "value-" + std::to_string(100000 + i);
    if (i % 3 == 0) {
      text.append("k = ").append(b64("secret%3d" + value)).append("\n");  // %3d is '='
      want.push_back(std::to_string(i + 1) + " " + value + " decoded:percent decoded:base64 decode-depth:2");
    } else if (i % 3 == 1) {
      text.append("k = ").append(b64("secret=" + value)).append("\n");
      want.push_back(std::to_string(i + 1) + " " + value + " decoded:base64 decode-depth:1");
    } else {
      text.append("plain line ").append(std::to_string(i)).append("\n");
    }
  }
  std::vector<Finding> found = findings_in(d, text);
  std::sort(found.begin(), found.end(), report_order);  // the passes' findings come pass by pass
  std::vector<std::string> got;
  for (const Finding& f : found) {
    std::string b = std::to_string(f.start_line) + " " + f.secret;
    for (const std::string& tag : f.tags()) b.append(" ").append(tag);
    got.push_back(b);
  }
  EXPECT_EQ(got, want);
}

TEST(DecodeSplice, a_base64_value_cut_by_a_percent_escape_waits_for_the_escape_to_be_decoded) {
  // A base64 character written as a percent escape, 20 characters in (the
  // run before it is long enough to be tried alone): the runs touching the
  // escape are left whole for the next pass, which decodes the value whole.
  const std::string whole = b64("secret=decoded-value-99");  // c2VjcmV0PWRlY29kZWQtdmFsdWUtOTk=
  const std::size_t cut = 20;
  const std::string text = whole.substr(0, cut) + "%" + hex_of(whole.substr(cut, 1)) + whole.substr(cut + 1);
  const SplicedText one = pass1(text);
  EXPECT_EQ(one.text, whole);
  SplicedText two;
  DecodeScratch scratch;
  ASSERT_TRUE(decode_pass(one.text, one.pieces, 2, two, scratch));
  EXPECT_EQ(two.text, "secret=decoded-value-99");
  EXPECT_EQ(two.decoded_by(2, 0, two.text.size()), kPercent | kBase64);
}

TEST(DecodeSplice, unicode_escapes_and_code_points_are_decoded_to_utf8) {
  EXPECT_EQ(pass1("t = \\u0074\\u006f\\u006B\\u0065\\u006e;").text, "t = token;");
  EXPECT_EQ(pass1("t = \\\\u0074\\\\u006f!").text, "t = to!");  // doubled backslashes
  EXPECT_EQ(pass1("U+0074 U+006F U+006B").text, "tok");              // the spaces between are the notation's
  EXPECT_EQ(pass1("caf\\u00e9").text, "caf\xc3\xa9");              // UTF-8
  EXPECT_EQ(pass1("x \\ud800").text, "x \xef\xbf\xbd");             // a lone surrogate: U+FFFD
  SplicedText out;
  DecodeScratch scratch;
  for (const std::string& text : {std::string("\\u12"), std::string("U+00"), std::string("U+0074x")})
    EXPECT_FALSE(decode_pass(text, file_pieces(text.size()), 1, out, scratch)) << text << " -> " << out.text;
  const SplicedText s = pass1("k: \\u0061\\u0062");
  EXPECT_EQ(s.decoded_by(1, 3, 5), kUnicode);
  EXPECT_EQ(s.decoded_by(1, 0, 3), kUnicode);  // touching its start counts, as gitleaks counts overlap
  EXPECT_EQ(s.decoded_by(1, 5, 5), kUnicode);  // ... and its end
  EXPECT_EQ(s.decoded_by(1, 0, 2), 0);
  EXPECT_EQ(s.decoded_by(2, 3, 5), 0);  // another pass's
  EXPECT_EQ(s.file_end(5), 15u);
}

TEST(DecodeSplice, a_code_point_inside_a_run_that_does_not_decode_stays_hidden) {
  // The run "abcdefghijklmnopU+0041" is base64 characters, and does not
  // decode ("abcd" gives 0xb7); the code point inside it is not a candidate
  // of its own, as when every run was one.
  SplicedText out;
  DecodeScratch scratch;
  const std::string hidden = "x abcdefghijklmnopU+0041 y";
  EXPECT_FALSE(decode_pass(hidden, file_pieces(hidden.size()), 1, out, scratch)) << out.text;
  EXPECT_EQ(pass1("x U+0041 y").text, "x Ay");
}

TEST(DecodeSplice, tags_name_each_encoding) {
  EXPECT_EQ(encoding_tags(kBase64), std::vector<std::string>{"decoded:base64"});
  EXPECT_EQ(encoding_tags(kPercent | kHex), (std::vector<std::string>{"decoded:percent", "decoded:hex"}));
  EXPECT_EQ(encoding_tags(kUnicode | kBase64), (std::vector<std::string>{"decoded:unicode", "decoded:base64"}));
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
}  // namespace secrets_decode_test
}  // namespace stealscan::secrets

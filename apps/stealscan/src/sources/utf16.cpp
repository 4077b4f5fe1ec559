// utf16.cpp: detect_utf16() and utf16_to_utf8() (utf16.hpp).
#include "sources/utf16.hpp"

#include <algorithm>
#include <cstdint>

namespace stealscan {
namespace {

constexpr std::size_t kProbe = 4096;
constexpr std::size_t kMinPairs = 4;  // shorter files without a mark are not guessed

std::uint32_t unit(std::string_view b, std::size_t i, Utf16 order) {
  const auto lo = static_cast<unsigned char>(b[i]);
  const auto hi = static_cast<unsigned char>(b[i + 1]);
  return order == Utf16::little_endian ? (std::uint32_t{hi} << 8 | lo) : (std::uint32_t{lo} << 8 | hi);
}

void put_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

}  // namespace

Utf16 detect_utf16(std::string_view head) {
  if (head.size() >= 2) {
    const auto a = static_cast<unsigned char>(head[0]);
    const auto b = static_cast<unsigned char>(head[1]);
    if (a == 0xff && b == 0xfe) return Utf16::little_endian;
    if (a == 0xfe && b == 0xff) return Utf16::big_endian;
  }
  const std::size_t pairs = std::min(head.size(), kProbe) / 2;
  if (pairs < kMinPairs) return Utf16::none;
  // Text files are the common case: with neither of the first two bytes zero,
  // the first character is not Latin-1 in UTF-16 (and the file is not counted).
  if (head[0] != '\0' && head[1] != '\0') return Utf16::none;
  std::size_t le = 0, be = 0;  // pairs that look like a Latin-1 character in that order
  for (std::size_t i = 0; i < pairs; ++i) {
    const char x = head[2 * i], y = head[2 * i + 1];
    if (x != '\0' && y == '\0') ++le;
    if (x == '\0' && y != '\0') ++be;
  }
  if (le * 10 >= pairs * 9) return Utf16::little_endian;
  if (be * 10 >= pairs * 9) return Utf16::big_endian;
  return Utf16::none;
}

void utf16_to_utf8(std::string_view bytes, Utf16 order, std::string& out) {
  out.clear();
  if (order == Utf16::none) return;
  std::size_t i = 0;
  if (bytes.size() >= 2 && unit(bytes, 0, order) == 0xfeff) i = 2;
  out.reserve(bytes.size() / 2 + 16);
  for (; i + 1 < bytes.size(); i += 2) {
    const std::uint32_t u = unit(bytes, i, order);
    if (u >= 0xd800 && u <= 0xdbff && i + 3 < bytes.size()) {
      const std::uint32_t v = unit(bytes, i + 2, order);
      if (v >= 0xdc00 && v <= 0xdfff) {
        put_utf8(out, 0x10000 + ((u - 0xd800) << 10) + (v - 0xdc00));
        i += 2;
        continue;
      }
    }
    put_utf8(out, u >= 0xd800 && u <= 0xdfff ? 0xfffd : u);
  }
}

}  // namespace stealscan

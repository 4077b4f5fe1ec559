// archive_magic.cpp: sniff_archive() (archive_magic.hpp).
#include "sources/archive/archive_magic.hpp"

#include <cstdint>

namespace stealscan {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) noexcept { return s.substr(0, prefix.size()) == prefix; }

// A tar header's checksum (offset 148, 8 bytes: octal digits, ended by NUL or
// space) is the sum of the header's 512 bytes as unsigned, its own field
// counted as 8 spaces. Checking it keeps a text file with "ustar" at 257 from
// being taken for a tar.
bool tar_checksum_ok(std::string_view h) noexcept {
  if (h.size() < 512) return false;
  std::uint32_t want = 0;
  std::size_t i = 148;
  while (i < 156 && h[i] == ' ') ++i;
  bool digits = false;
  for (; i < 156 && h[i] >= '0' && h[i] <= '7'; ++i) {
    want = want * 8 + static_cast<std::uint32_t>(h[i] - '0');
    digits = true;
  }
  if (!digits) return false;
  std::uint32_t sum = 0;
  for (std::size_t k = 0; k < 512; ++k)
    sum += (k >= 148 && k < 156) ? std::uint32_t{' '} : static_cast<unsigned char>(h[k]);
  return sum == want;
}

}  // namespace

ArchiveMagic sniff_archive(std::string_view head) noexcept {
  using namespace std::string_view_literals;
  if (starts_with(head, "\x1f\x8b\x08"sv)) return ArchiveMagic::gzip;
  if (starts_with(head, "\xfd" "7zXZ\0"sv)) return ArchiveMagic::xz;
  if (starts_with(head, "\x28\xb5\x2f\xfd"sv)) return ArchiveMagic::zstd;
  if (starts_with(head, "PK\x03\x04"sv) || starts_with(head, "PK\x05\x06"sv)) return ArchiveMagic::zip;
  if (starts_with(head, "7z\xbc\xaf\x27\x1c"sv)) return ArchiveMagic::sevenzip;
  // "BZh1" is printable: the block magic (pi's digits) or the end-of-stream
  // magic (sqrt(pi)'s) after it tells a bzip2 stream from a text that begins so.
  if (head.size() >= 10 && starts_with(head, "BZh"sv) && head[3] >= '1' && head[3] <= '9' &&
      (head.substr(4, 6) == "\x31\x41\x59\x26\x53\x59"sv || head.substr(4, 6) == "\x17\x72\x45\x38\x50\x90"sv))
    return ArchiveMagic::bzip2;
  if (head.size() >= 512 && head.substr(257, 5) == "ustar"sv && tar_checksum_ok(head)) return ArchiveMagic::tar;
  return ArchiveMagic::none;
}

}  // namespace stealscan

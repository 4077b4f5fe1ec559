// archive_magic.hpp: sniff_archive(), the cheap check that decides whether a
// file's bytes are an archive or a compressed stream worth handing to
// libarchive. It looks only at the first bytes (and, for tar, the 512-byte
// header's checksum), never at the name, and costs a few comparisons: every
// file of `stealscan secrets` passes through it.
#pragma once

#include <string_view>

namespace stealscan {

enum class ArchiveMagic { none, gzip, bzip2, xz, zstd, zip, sevenzip, tar };

// What `head` (a file's first bytes; the whole file is fine) starts with.
// gzip 1F 8B 08; bzip2 "BZh" + '1'..'9' + a block or end-of-stream magic;
// xz FD "7zXZ" 00; zstd 28 B5 2F FD; zip "PK\3\4" (a local header) or
// "PK\5\6" (an empty archive); 7z "7z" BC AF 27 1C; tar "ustar" at 257 with a valid header
// checksum (POSIX and GNU tar; a pre-POSIX tar has no magic and is not seen).
[[nodiscard]] ArchiveMagic sniff_archive(std::string_view head) noexcept;

}  // namespace stealscan

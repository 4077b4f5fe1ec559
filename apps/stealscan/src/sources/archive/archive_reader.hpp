// archive_reader.hpp: ArchiveReader, one archive in memory read through
// libarchive, entry by entry: the only unit that includes <archive.h>. It
// enables exactly the formats that sniff_archive() recognises (tar, zip, and
// "raw": a single compressed stream, one member) and the filters gzip, bzip2,
// xz and zstd, so a file is never read as an unexpected format. Not copyable;
// one thread at a time (libarchive's objects are per reader).
//
// libarchive's reader cannot be reopened once closed, so one is made per
// archive; only files that pass the magic check pay for it. Entry data is
// read into the caller's buffer (ArchiveScanner keeps one per nesting level).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct archive;

namespace stealscan {

class ArchiveReader {
 public:
  // Opens `bytes` (not copied: they must outlive the reader). A failure to
  // open shows as next() == failed.
  explicit ArchiveReader(std::string_view bytes);
  ~ArchiveReader();
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;

  enum class Next { entry, end, failed };
  // The next entry's header; after `failed` the reader is done (error()).
  [[nodiscard]] Next next();

  // The current entry (after next() == entry).
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] bool regular() const noexcept { return regular_; }
  [[nodiscard]] std::optional<std::uint64_t> declared_size() const noexcept { return size_; }
  // A single compressed stream (x.gz): its one entry has no name of its own.
  [[nodiscard]] bool single_stream() const noexcept;

  enum class Data { more, end, entry_failed, archive_failed };
  struct Chunk {
    Data status;
    std::size_t bytes;  // bytes written to dst (only with `more`)
  };
  // Up to `n` bytes of the current entry's data into dst. `entry_failed`: this
  // entry cannot be read (e.g. encrypted) but next() may go on;
  // `archive_failed`: nothing more can be read.
  [[nodiscard]] Chunk read(char* dst, std::size_t n);

  // libarchive's message for the last failure.
  [[nodiscard]] std::string error() const;

 private:
  struct archive* a_;
  bool open_ = false;
  std::string name_;
  bool regular_ = false;
  std::optional<std::uint64_t> size_;
};

}  // namespace stealscan

// archive_reader.cpp: ArchiveReader (archive_reader.hpp) on libarchive's read API.
#include "sources/archive/archive_reader.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <new>

namespace stealscan {

ArchiveReader::ArchiveReader(std::string_view bytes) : a_(archive_read_new()) {
  if (a_ == nullptr) throw std::bad_alloc();
  // Each call fails only for a filter or format this libarchive was built
  // without; the open below then fails on such an input with its message.
  (void)archive_read_support_filter_gzip(a_);
  (void)archive_read_support_filter_bzip2(a_);
  (void)archive_read_support_filter_xz(a_);
  (void)archive_read_support_filter_zstd(a_);
  (void)archive_read_support_format_tar(a_);
  (void)archive_read_support_format_zip(a_);
  (void)archive_read_support_format_7zip(a_);
  // Raw bids last: it is chosen only when no archive format recognises the
  // (decompressed) bytes, i.e. for a single compressed stream. Raw refuses an
  // empty stream; "empty" takes it (an empty .gz, as some man pages are): no
  // members, no warning.
  (void)archive_read_support_format_raw(a_);
  (void)archive_read_support_format_empty(a_);
  open_ = archive_read_open_memory(a_, bytes.data(), bytes.size()) == ARCHIVE_OK;
}

ArchiveReader::~ArchiveReader() { archive_read_free(a_); }

ArchiveReader::Next ArchiveReader::next() {
  if (!open_) return Next::failed;
  struct archive_entry* e = nullptr;
  const int r = archive_read_next_header(a_, &e);
  if (r == ARCHIVE_EOF) return Next::end;
  // WARN: the header was read (e.g. a name not convertible); RETRY and worse:
  // not trusted, and the archive is given up rather than retried without end.
  if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
    open_ = false;
    return Next::failed;
  }
  const char* path = archive_entry_pathname(e);
  name_ = path != nullptr ? path : "";
  regular_ = archive_entry_filetype(e) == AE_IFREG && archive_entry_hardlink(e) == nullptr;
  size_.reset();
  if (archive_entry_size_is_set(e) != 0 && archive_entry_size(e) >= 0)
    size_ = static_cast<std::uint64_t>(archive_entry_size(e));
  return Next::entry;
}

bool ArchiveReader::single_stream() const noexcept { return archive_format(a_) == ARCHIVE_FORMAT_RAW; }

ArchiveReader::Chunk ArchiveReader::read(char* dst, std::size_t n) {
  const la_ssize_t r = archive_read_data(a_, dst, n);
  if (r > 0) return {Data::more, static_cast<std::size_t>(r)};
  if (r == 0) return {Data::end, 0};
  if (r == ARCHIVE_FATAL) {
    open_ = false;
    return {Data::archive_failed, 0};
  }
  return {Data::entry_failed, 0};
}

std::string ArchiveReader::error() const {
  const char* s = archive_error_string(a_);
  return s != nullptr ? s : "unreadable archive";
}

}  // namespace stealscan

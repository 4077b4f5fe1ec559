// archive_writer.hpp: make_archive(), archives built in memory for the tests
// through libarchive's write API, so that no zip, zstd or xz tool need be
// installed: tar (pax), zip (deflate) or raw (one compressed stream), each
// with or without a gzip, bzip2, xz or zstd filter.
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace stealscan::test {

struct Member {
  std::string name;
  std::string data;
};

enum class Format { tar, zip, sevenzip, raw };
enum class Filter { none, gzip, bzip2, xz, zstd };

// `zip_password`: a zip's members encrypted with it (traditional PKWARE encryption).
inline std::string make_archive(Format format, Filter filter, const std::vector<Member>& members,
                                const char* zip_password = nullptr) {
  struct archive* a = archive_write_new();
  std::string out;
  const auto check = [&](int r, const char* what) {
    if (r != ARCHIVE_OK) {
      const std::string msg = std::string(what) + ": " + (archive_error_string(a) ? archive_error_string(a) : "?");
      archive_write_free(a);
      throw std::runtime_error(msg);
    }
  };
  check(format == Format::tar   ? archive_write_set_format_pax_restricted(a)
        : format == Format::zip      ? archive_write_set_format_zip(a)
        : format == Format::sevenzip ? archive_write_set_format_7zip(a)
                                     : archive_write_set_format_raw(a),
        "format");
  switch (filter) {
    case Filter::none: break;
    case Filter::gzip: check(archive_write_add_filter_gzip(a), "gzip"); break;
    case Filter::bzip2: check(archive_write_add_filter_bzip2(a), "bzip2"); break;
    case Filter::xz: check(archive_write_add_filter_xz(a), "xz"); break;
    case Filter::zstd: check(archive_write_add_filter_zstd(a), "zstd"); break;
  }
  if (zip_password != nullptr) {
    check(archive_write_set_options(a, "zip:encryption=zipcrypt"), "encryption");
    check(archive_write_set_passphrase(a, zip_password), "passphrase");
  }
  check(archive_write_set_bytes_in_last_block(a, 1), "block");  // no padding after the data
  const auto write = [](struct archive*, void* self, const void* buf, std::size_t n) -> la_ssize_t {
    static_cast<std::string*>(self)->append(static_cast<const char*>(buf), n);
    return static_cast<la_ssize_t>(n);
  };
  check(archive_write_open(a, &out, nullptr, write, nullptr), "open");
  for (const Member& m : members) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, m.name.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(m.data.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    const int r = archive_write_header(a, e);
    archive_entry_free(e);
    check(r, "header");
    if (archive_write_data(a, m.data.data(), m.data.size()) != static_cast<la_ssize_t>(m.data.size()))
      check(ARCHIVE_FATAL, "data");
  }
  check(archive_write_close(a), "close");
  archive_write_free(a);
  return out;
}

}  // namespace stealscan::test

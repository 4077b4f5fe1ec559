// archive_scanner.cpp: ArchiveScanner (archive_scanner.hpp).
#include "sources/archive/archive_scanner.hpp"

#include <algorithm>
#include <array>

#include "scan/whole_file_task.hpp"
#include "sources/archive/archive_magic.hpp"
#include "sources/archive/archive_reader.hpp"

namespace stealscan {
namespace {

constexpr std::size_t kFirstRead = 64 * 1024;                // a member's buffer grows from here, doubling
constexpr std::size_t kDiscardRead = 64 * 1024;              // the rest of a skipped member, a piece at a time
constexpr std::size_t kKeptBuffer = std::size_t{4} << 20;    // kept per level between files (as the runner)
constexpr std::uint64_t kNoLimit = std::uint64_t{1} << 62;    // limits are clamped to this: limit + 1 cannot wrap

// "64M", "1K" or "1000": the value as the size options accept it.
std::string size_text(std::uint64_t n) {
  static constexpr std::array<std::pair<unsigned, char>, 3> kUnits{{{30, 'G'}, {20, 'M'}, {10, 'K'}}};
  for (const auto& [shift, unit] : kUnits)
    if (n != 0 && n % (std::uint64_t{1} << shift) == 0) return std::to_string(n >> shift) + unit;
  return std::to_string(n);
}

}  // namespace

ArchiveScanner::ArchiveScanner(const ArchiveSettings& settings, Diagnostics& diag, Tally& tally)
    : settings_(settings), diag_(diag), tally_(tally), levels_(settings.max_depth) {
  // The reads below ask for limit + 1 bytes; a limit of 2^62 is "none" already.
  settings_.max_entry = std::min(settings_.max_entry, kNoLimit);
  settings_.max_total = std::min(settings_.max_total, kNoLimit);
}

bool ArchiveScanner::scan_if_archive(std::string_view shown, std::string_view bytes, FileWork& work) {
  if (settings_.max_depth == 0 || sniff_archive(bytes) == ArchiveMagic::none) return false;
  total_ = 0;
  top_ = shown;
  (void)scan_archive(std::string(shown), bytes, 1, work);
  for (std::string& b : levels_)
    if (b.capacity() > kKeptBuffer) std::string().swap(b);
  if (decoded_.capacity() > kKeptBuffer) std::string().swap(decoded_);
  return true;
}

ArchiveScanner::Stop ArchiveScanner::scan_archive(const std::string& shown, std::string_view bytes, unsigned depth,
                                                  FileWork& work) {
  Tally::add(tally_.archives, 1);
  ArchiveReader reader(bytes);
  std::string& buffer = levels_[depth - 1];
  for (;;) {
    switch (reader.next()) {
      case ArchiveReader::Next::end:
        return Stop::no;
      case ArchiveReader::Next::failed:
        warn(shown, "corrupt or unsupported archive, the rest of it is skipped: " + reader.error());
        return Stop::no;
      case ArchiveReader::Next::entry:
        break;
    }
    if (!reader.regular()) continue;  // directories, links, devices: no data
    const std::string member =
        // A single compressed stream's content is the file itself, shown by
        // the compressed file's name ("main.go.gz"), as gitleaks shows it.
        reader.single_stream() ? shown : shown + "!" + reader.name();
    EntryRead r = read_entry(reader, buffer);
    if (r == EntryRead::too_large) {
      Tally::add(tally_.too_large, 1);
      warn(member, "member skipped: larger than " + size_text(settings_.max_entry) +
                       " decompressed (--archive-max-entry-size)");
      r = discard_rest(reader, buffer);
      if (r == EntryRead::whole) continue;
    }
    switch (r) {
      case EntryRead::whole:
        if (scan_member(member, buffer, depth, work) == Stop::budget) return Stop::budget;
        break;
      case EntryRead::too_large:  // not returned by discard_rest
        break;
      case EntryRead::over_budget:
        warn(member, "more than " + size_text(settings_.max_total) + " decompressed from " + std::string(top_) +
                         " (--archive-max-size): the rest of it is skipped");
        return Stop::budget;
      case EntryRead::entry_failed:
        warn(member, "unreadable member, skipped: " + reader.error());
        break;
      case EntryRead::archive_failed:
        warn(member, "corrupt archive, this member and the rest of the archive are skipped: " + reader.error());
        return Stop::no;
    }
  }
}

ArchiveScanner::Stop ArchiveScanner::scan_member(const std::string& shown, std::string_view bytes, unsigned depth,
                                                 FileWork& work) {
  if (sniff_archive(bytes) != ArchiveMagic::none) {
    if (depth < settings_.max_depth) return scan_archive(shown, bytes, depth + 1, work);
    warn(shown, "nested archive not opened: deeper than --archive-depth " + std::to_string(settings_.max_depth));
    return Stop::no;
  }
  if (hand_over_bytes(shown, bytes, settings_.binary_as_text, decoded_, tally_, work))  // as a file on disk
    Tally::add(tally_.archive_members, 1);
  return Stop::no;
}

// Reads the current member into `buffer`, stopping after max_entry + 1 bytes
// (too_large) or once the file's total passes max_total (over_budget): the
// buffer never holds more than max_entry + 1 bytes.
ArchiveScanner::EntryRead ArchiveScanner::read_entry(ArchiveReader& reader, std::string& buffer) {
  buffer.clear();
  const std::uint64_t limit = settings_.max_entry;
  if (const auto declared = reader.declared_size()) {
    if (*declared > limit) return EntryRead::too_large;
    // + 1: the read that sees the end. A header may lie: never reserve past
    // what the file's total still allows.
    buffer.reserve(static_cast<std::size_t>(std::min(*declared, settings_.max_total - total_)) + 1);
  }
  for (;;) {
    // buffer.size() <= limit and total_ <= max_total here, so want >= 1.
    const std::uint64_t want = std::min<std::uint64_t>(std::max(buffer.size(), kFirstRead), limit + 1 - buffer.size());
    const std::size_t had = buffer.size();
    buffer.resize(had + static_cast<std::size_t>(want));
    EntryRead failure = EntryRead::whole;
    const std::uint64_t got = read_some(reader, buffer.data() + had, want, failure);
    buffer.resize(had + static_cast<std::size_t>(got));
    if (failure != EntryRead::whole || got == 0) return failure;  // whole: the member's end
    if (total_ > settings_.max_total) return EntryRead::over_budget;
    if (buffer.size() > limit) return EntryRead::too_large;
  }
}

// Decompresses the rest of a skipped member, a piece at a time, counting it
// against max_total: a member too large to keep still costs the work of
// reading past it, and that work is bounded too.
ArchiveScanner::EntryRead ArchiveScanner::discard_rest(ArchiveReader& reader, std::string& buffer) {
  buffer.resize(kDiscardRead);
  for (;;) {
    EntryRead failure = EntryRead::whole;
    const std::uint64_t got = read_some(reader, buffer.data(), kDiscardRead, failure);
    if (failure != EntryRead::whole || got == 0) return failure;
    if (total_ > settings_.max_total) return EntryRead::over_budget;
  }
}

// One read of at most `want` bytes, and never past max_total + 1 in all;
// counts what it got. Returns 0 at the member's end or on a failure (set in
// `failure`, which stays `whole` otherwise).
std::uint64_t ArchiveScanner::read_some(ArchiveReader& reader, char* dst, std::uint64_t want, EntryRead& failure) {
  want = std::min(want, settings_.max_total + 1 - total_);
  const ArchiveReader::Chunk c = reader.read(dst, static_cast<std::size_t>(want));
  switch (c.status) {
    case ArchiveReader::Data::more:
      break;
    case ArchiveReader::Data::end:
      return 0;
    case ArchiveReader::Data::entry_failed:
      failure = EntryRead::entry_failed;
      return 0;
    case ArchiveReader::Data::archive_failed:
      failure = EntryRead::archive_failed;
      return 0;
  }
  total_ += c.bytes;
  Tally::add(tally_.archive_bytes, c.bytes);
  return c.bytes;
}

void ArchiveScanner::warn(std::string_view shown, std::string_view what) {
  Tally::add(tally_.archive_warnings, 1);
  diag_.error(shown, what);
}

}  // namespace stealscan

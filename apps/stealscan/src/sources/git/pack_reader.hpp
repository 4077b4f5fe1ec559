// pack_reader.hpp: PackReader, one worker's reader of whole objects straight
// from the packs of a PackSet (pread, pack_file.hpp): the entry headers parsed here, the data
// inflated by its Inflater (inflater.hpp), deltas applied here (delta.hpp), and
// the objects it rebuilds kept in an ObjectCache, so that blobs read in pack
// order inflate each object of a delta chain once (README.md, "Reading objects").
// What it does not handle it leaves to libgit2 (read()'s `fallback`); what is
// damaged it says (`damaged`), and nobody reads it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sources/git/inflater.hpp"
#include "sources/git/object_cache.hpp"
#include "sources/git/pack_file.hpp"

namespace stealscan::git {

class PackReader {
 public:
  enum class Status : std::uint8_t {
    ok,         // `bytes` and `type` are the object
    too_large,  // larger than max_size: known from a header, nothing of it inflated
    fallback,   // not read here: a REF_DELTA base in no pack of the set, a
                // base larger than max_size, a chain's deltas over 64 MiB in
                // all; libgit2 reads it
    damaged,    // the pack does not hold a well-formed object there (`why`
                // says what): an entry header or zlib stream that is not one,
                // a delta that does not fit its base, a chain in a loop, an
                // entry past the end of a pack cut short
  };
  struct Result {
    Status status = Status::fallback;
    git_object_t type = GIT_OBJECT_INVALID;
    std::string_view bytes;  // valid until the next read()
    std::string why;         // for `damaged`: "pack-X.pack, entry at N: ..."
  };

  explicit PackReader(const PackSet& packs);

  Result read(PackLocation at, std::uint64_t max_size);

  // The place of the base of the delta at `at`, from `bytes`, the pack's
  // bytes from `at` on (at least the entry's header, or all of the entry):
  // nullopt for a whole object, and for an entry that cannot be parsed or
  // whose base is in no pack of the set (read() says why, or leaves it to
  // libgit2). For ordering reads (pack_order.hpp).
  [[nodiscard]] std::optional<PackLocation> delta_base(PackLocation at, std::string_view bytes) const;

  // The longest entry header: a type and size (ten bytes for 64 bits), then
  // an OFS_DELTA's distance (ten) or a REF_DELTA's id (20).
  static constexpr std::size_t kLongestHeader = 10 + 20;

 private:
  // A parsed entry header.
  struct Entry {
    PackLocation at;
    unsigned type = 0;       // git_object_t: 1 to 4, or 6 and 7 for deltas
    std::uint64_t size = 0;  // of the inflated data (a delta's, for a delta)
    std::size_t data = 0;    // where its zlib stream starts in raw_
    std::uint64_t len = 0;   // the whole entry's bytes in the pack
    PackLocation base{};     // a delta's base
  };
  // Reads the start of the entry at `at` into raw_ and parses its header.
  // Status ok, or damaged / fallback with the reason in `r`.
  PackReader::Status parse(PackLocation at, Entry& e, Result& r);
  // parse()'s header parsing, from `d`: the entry's bytes from its start
  // (e.at and e.len set).
  PackReader::Status parse_header(std::string_view d, Entry& e, Result& r) const;
  // The entry's data inflated into `out` (the whole entry read into raw_
  // first if its first read did not take it all). False, with `r` damaged
  // and saying why, if it cannot be read or does not inflate to its size.
  bool inflate(const Entry& e, Bytes& out, Result& r);

  const PackSet& packs_;
  Inflater inflater_;
  ObjectCache cache_;
  std::vector<Entry> chain_;         // the deltas between the object and a base, top first
  std::vector<Bytes> deltas_;  // their inflated data, by chain position
  Bytes raw_;                  // an entry as read from its pack
  Bytes base_;                 // a base not in the cache, or a result not kept there
  Bytes work_;                 // where a delta is applied
};

}  // namespace stealscan::git

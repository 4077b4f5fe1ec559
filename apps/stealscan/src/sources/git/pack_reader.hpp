// pack_reader.hpp: PackReader, one worker's reader of whole objects straight
// from the mapped packs of a PackSet: the entry headers parsed here, the data
// inflated by its Inflater (inflater.hpp), deltas applied here (delta.hpp), and
// the objects it rebuilds kept in an ObjectCache, so that blobs read in pack
// order inflate each object of a delta chain once (README.md, "Reading objects").
// What it does not handle it leaves to libgit2 (read()'s `fallback`).
#pragma once

#include <cstdint>
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
    fallback,   // not read here: a damaged entry, a base in another pack, a
                // base larger than max_size, ...; libgit2 reads it (and says
                // what is wrong, if something is)
  };
  struct Result {
    Status status = Status::fallback;
    git_object_t type = GIT_OBJECT_INVALID;
    std::string_view bytes;  // valid until the next read()
  };

  explicit PackReader(const PackSet& packs);

  Result read(PackLocation at, std::uint64_t max_size);

 private:
  // A parsed entry header.
  struct Entry {
    PackLocation at;
    unsigned type = 0;       // git_object_t: 1 to 4, or 6 and 7 for deltas
    std::uint64_t size = 0;  // of the inflated data (a delta's, for a delta)
    std::size_t data = 0;    // where its zlib stream starts in the pack
    PackLocation base{};     // a delta's base
  };
  bool parse(PackLocation at, Entry& e) const;

  const PackSet& packs_;
  Inflater inflater_;
  ObjectCache cache_;
  std::vector<Entry> chain_;         // the deltas between the object and a base, top first
  std::vector<Bytes> deltas_;  // their inflated data, by chain position
  Bytes base_;                 // a base not in the cache, or a result not kept there
  Bytes work_;                 // where a delta is applied
};

}  // namespace stealscan::git

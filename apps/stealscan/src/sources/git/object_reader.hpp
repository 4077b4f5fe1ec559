// object_reader.hpp: ObjectReader, one worker's reader of whole objects by id:
// its PackReader (pack_reader.hpp) for an object in a pack of the PackSet,
// libgit2's object database for the rest (loose objects, alternates, packs we
// do not read, and what the pack reader leaves to it). A damaged entry of a
// pack we read is an error, not handed on. README.md, "Reading objects".
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "sources/git/git_handle.hpp"
#include "sources/git/pack_file.hpp"
#include "sources/git/pack_reader.hpp"

namespace stealscan::git {

class ObjectReader {
 public:
  struct Object {
    bool too_large = false;  // over max_size: only a header was read
    git_object_t type = GIT_OBJECT_INVALID;
    std::string_view bytes;  // valid until the next read()
  };

  // `odb`: this worker's (libgit2 handles are not shared between threads).
  ObjectReader(const PackSet& packs, git_odb* odb) : packs_(packs), odb_(odb), pack_(packs) {}

  // The object `id`, whole; `at`: its place in the packs if the caller knows
  // it (else looked up). Over `max_size`: too_large, not inflated. GitError
  // with the pack reader's or libgit2's reason alone if it cannot be read.
  Object read(const git_oid& id, std::optional<PackLocation> at, std::uint64_t max_size);
  // A commit or tree, at most kMaxMetadata: the bound a damaged entry header
  // claiming an absurd size meets before any allocation.
  static constexpr std::uint64_t kMaxMetadata = std::uint64_t{1} << 30;
  Object read(const git_oid& id) { return read(id, packs_.locate(id), kMaxMetadata); }

 private:
  const PackSet& packs_;
  git_odb* odb_;
  PackReader pack_;
  OdbObject last_;  // the last object libgit2 read, alive until the next read
};

}  // namespace stealscan::git

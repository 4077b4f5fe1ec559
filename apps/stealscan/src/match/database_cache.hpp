// database_cache.hpp: compiled Vectorscan databases kept on disk between runs,
// so that a scanner run from a pre-commit hook does not compile the same rule
// set every time (apps/stealscan/docs/secrets.md, "Start-up").
//
// An entry is one file named by a hash of its key, holding the whole key, the
// serialized database (hs_serialize_database) and a checksum of it. A read
// takes the entry only if its key equals the one asked for byte for byte (a
// hash collision, a truncated or foreign file is a miss), the checksum holds,
// and Vectorscan accepts the bytes (it refuses a database built for another
// version or CPU). Writes go to a
// temporary file renamed into place, so concurrent runs never read half an
// entry. The cache is an optimisation only: every failure to read or write it
// falls back to compiling, silently.
#pragma once

#include <functional>
#include <string>
#include <string_view>

struct hs_database;

namespace stealscan {

class DatabaseCache {
 public:
  // No cache: every load compiles.
  DatabaseCache() = default;
  explicit DatabaseCache(std::string dir) : dir_(std::move(dir)) {}

  // $STEALSCAN_CACHE_DIR, else $XDG_CACHE_HOME/stealscan, else
  // $HOME/.cache/stealscan; no cache when none is set.
  static DatabaseCache from_environment();

  [[nodiscard]] const std::string& dir() const noexcept { return dir_; }

  // The database for `key` (bytes naming everything the compilation depends
  // on: patterns, flags, mode; the Vectorscan version is added here): the
  // cached one, else compile()'s result, then stored. compile() may throw; it
  // is then not stored and the exception propagates.
  hs_database* load_or_compile(std::string_view kind, std::string_view key,
                               const std::function<hs_database*()>& compile) const;

 private:
  hs_database* load(const std::string& path, std::string_view key) const;
  void store(const std::string& path, std::string_view key, const hs_database* db) const;

  std::string dir_;
};

}  // namespace stealscan

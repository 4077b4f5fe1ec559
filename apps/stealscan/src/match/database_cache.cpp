// database_cache.cpp: DatabaseCache (database_cache.hpp).
#include "match/database_cache.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hs/hs.h>

#include "sources/read_all.hpp"

namespace stealscan {
namespace {

constexpr std::string_view kMagic = "stealscan hs-cache 2\n";
constexpr std::uint64_t kEntryLimit = std::uint64_t{1} << 30;

// FNV-1a, 64 bits: names the file (the key itself is compared on load) and
// checks the database's bytes (Vectorscan does not check them all: a flipped
// byte may deserialize, and a corrupt database must never reach hs_scan).
std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

void put_u64(std::string& b, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool get_u64(std::string_view& b, std::uint64_t& v) {
  if (b.size() < 8) return false;
  v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t{static_cast<unsigned char>(b[static_cast<std::size_t>(i)])} << (8 * i);
  b.remove_prefix(8);
  return true;
}

// mkdir -p with mode 0700 for what it creates.
bool make_dirs(const std::string& dir) {
  for (std::size_t at = 1; at <= dir.size(); ++at) {
    if (at < dir.size() && dir[at] != '/') continue;
    const std::string part = dir.substr(0, at);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  return true;
}

}  // namespace

DatabaseCache DatabaseCache::from_environment() {
  if (const char* d = std::getenv("STEALSCAN_CACHE_DIR"); d != nullptr && *d != '\0') return DatabaseCache(d);
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x == '/')
    return DatabaseCache(std::string(x) + "/stealscan");
  if (const char* h = std::getenv("HOME"); h != nullptr && *h == '/') return DatabaseCache(std::string(h) + "/.cache/stealscan");
  return DatabaseCache();
}

hs_database* DatabaseCache::load_or_compile(std::string_view kind, std::string_view key,
                                            const std::function<hs_database*()>& compile) const {
  if (dir_.empty()) return compile();
  std::string full(key);
  full.append("\nvectorscan ").append(hs_version());
  char name[17];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(fnv1a(full)));
  const std::string path = dir_ + "/" + std::string(kind) + "-" + name + ".hsdb";
  if (hs_database* db = load(path, full)) return db;
  hs_database* db = compile();
  if (db != nullptr) store(path, full, db);
  return db;
}

hs_database* DatabaseCache::load(const std::string& path, std::string_view key) const {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  std::string bytes;
  bool whole = false;
  try {
    whole = read_all(fd, bytes, kEntryLimit);
  } catch (const std::exception&) {
    whole = false;
  }
  ::close(fd);
  std::string_view b(bytes);
  std::uint64_t key_size = 0, db_size = 0;
  if (!whole || b.substr(0, kMagic.size()) != kMagic) return nullptr;
  b.remove_prefix(kMagic.size());
  if (!get_u64(b, key_size) || key_size > b.size() || b.substr(0, key_size) != key) return nullptr;
  b.remove_prefix(key_size);
  std::uint64_t sum = 0;
  if (!get_u64(b, db_size) || !get_u64(b, sum) || db_size != b.size() || fnv1a(b) != sum) return nullptr;
  hs_database* db = nullptr;
  if (hs_deserialize_database(b.data(), b.size(), &db) != HS_SUCCESS) return nullptr;
  return db;
}

void DatabaseCache::store(const std::string& path, std::string_view key, const hs_database* db) const {
  char* bytes = nullptr;
  std::size_t size = 0;
  if (hs_serialize_database(db, &bytes, &size) != HS_SUCCESS) return;
  std::string entry(kMagic);
  put_u64(entry, key.size());
  entry.append(key);
  put_u64(entry, size);
  put_u64(entry, fnv1a(std::string_view(bytes, size)));
  entry.append(bytes, size);
  std::free(bytes);  // hs's default allocator is malloc
  if (!make_dirs(dir_)) return;
  std::string tmp = path + ".XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) return;
  const bool ok = write_all(fd, entry);
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) ::unlink(tmp.c_str());
}

}  // namespace stealscan

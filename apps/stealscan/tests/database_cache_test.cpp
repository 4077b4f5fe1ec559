// DatabaseCache: a compiled Vectorscan database is stored, read back instead
// of compiled, and any entry that is not exactly what was asked for (another
// key under the same name, a truncated or corrupt file) is compiled afresh; a
// cache that cannot be written costs nothing but the compile.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <hs/hs.h>

#include "match/database_cache.hpp"
#include "support/temp_tree.hpp"

namespace stealscan {
// Named after the file: test binaries compile several files as one unit.
namespace database_cache_test {
namespace {

namespace fs = std::filesystem;

// Compiles one literal and counts the compiles.
struct Compiler {
  int calls = 0;
  std::string literal = "needle";
  hs_database* operator()() {
    ++calls;
    const char* expr = literal.c_str();
    const unsigned flags = 0, id = 7;
    const std::size_t len = literal.size();
    hs_database_t* db = nullptr;
    hs_compile_error_t* err = nullptr;
    if (hs_compile_lit_multi(&expr, &flags, &id, &len, 1, HS_MODE_BLOCK, nullptr, &db, &err) != HS_SUCCESS) {
      hs_free_compile_error(err);
      return nullptr;
    }
    return db;
  }
};

// Whether `db` finds the literal in `text`.
bool finds(hs_database* db, const std::string& text) {
  hs_scratch_t* scratch = nullptr;
  EXPECT_EQ(hs_alloc_scratch(db, &scratch), HS_SUCCESS);
  bool hit = false;
  hs_scan(db, text.data(), static_cast<unsigned>(text.size()), 0, scratch,
          [](unsigned id, unsigned long long, unsigned long long, unsigned, void* ctx) {
            *static_cast<bool*>(ctx) = id == 7;
            return 0;
          },
          &hit);
  hs_free_scratch(scratch);
  return hit;
}

fs::path only_entry(const std::string& dir) {
  fs::path found;
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    found = e.path();
    ++n;
  }
  EXPECT_EQ(n, 1);
  return found;
}

TEST(DatabaseCache, second_load_reads_the_stored_database_instead_of_compiling) {
  test::TempTree t;
  const DatabaseCache cache(t.path("cache/nested"));
  Compiler c;
  const auto compile = [&c] { return c(); };
  hs_database* a = cache.load_or_compile("test", "key one", compile);
  hs_database* b = cache.load_or_compile("test", "key one", compile);
  EXPECT_EQ(c.calls, 1);
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(finds(b, "a needle here"));
  EXPECT_FALSE(finds(b, "nothing"));
  hs_free_database(a);
  hs_free_database(b);
  // Owner-only: the directory it created.
  EXPECT_EQ(fs::status(t.path("cache/nested")).permissions() & fs::perms::all, fs::perms::owner_all);
}

TEST(DatabaseCache, another_key_is_compiled_even_under_the_same_file_name) {
  test::TempTree t;
  const DatabaseCache cache(t.path("cache"));
  Compiler c;
  hs_free_database(cache.load_or_compile("test", "key one", [&c] { return c(); }));
  // Put key one's entry where key two's would be: its key inside does not match.
  Compiler probe;
  hs_free_database(cache.load_or_compile("test", "key two", [&probe] { return probe(); }));
  fs::path one, two;
  for (const auto& e : fs::directory_iterator(t.path("cache"))) (one.empty() ? one : two) = e.path();
  ASSERT_FALSE(two.empty());
  fs::copy_file(one, two, fs::copy_options::overwrite_existing);
  fs::copy_file(two, one, fs::copy_options::overwrite_existing);  // both now hold the same entry
  Compiler again;
  hs_free_database(cache.load_or_compile("test", "key one", [&again] { return again(); }));
  hs_free_database(cache.load_or_compile("test", "key two", [&again] { return again(); }));
  EXPECT_EQ(again.calls, 1);  // the entry matches one key of the two, whichever it was
}

TEST(DatabaseCache, truncated_or_corrupt_entry_is_compiled_afresh) {
  test::TempTree t;
  const DatabaseCache cache(t.path("cache"));
  Compiler c;
  hs_free_database(cache.load_or_compile("test", "k", [&c] { return c(); }));
  const fs::path entry = only_entry(t.path("cache"));
  const auto size = fs::file_size(entry);
  for (const std::uintmax_t keep : {std::uintmax_t{0}, std::uintmax_t{10}, size / 2, size - 1}) {
    fs::resize_file(entry, keep);
    Compiler fresh;
    hs_database* db = cache.load_or_compile("test", "k", [&fresh] { return fresh(); });
    EXPECT_EQ(fresh.calls, 1) << "kept " << keep << " bytes";
    EXPECT_TRUE(finds(db, "needle"));
    hs_free_database(db);
  }
  // Bytes flipped inside the serialized database.
  std::string bytes;
  {
    std::ifstream in(entry, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (std::size_t i = bytes.size() - 64; i < bytes.size(); ++i) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
  Compiler fresh;
  hs_database* db = cache.load_or_compile("test", "k", [&fresh] { return fresh(); });
  EXPECT_EQ(fresh.calls, 1);
  EXPECT_TRUE(finds(db, "needle"));
  hs_free_database(db);
}

TEST(DatabaseCache, unwritable_place_or_no_cache_only_compiles) {
  test::TempTree t;
  t.write("file", "x");
  const DatabaseCache under_a_file(t.path("file/cache"));
  Compiler c;
  hs_database* db = under_a_file.load_or_compile("test", "k", [&c] { return c(); });
  EXPECT_TRUE(finds(db, "needle"));
  hs_free_database(db);
  db = DatabaseCache().load_or_compile("test", "k", [&c] { return c(); });
  hs_free_database(db);
  EXPECT_EQ(c.calls, 2);
}

}  // namespace
}  // namespace database_cache_test
}  // namespace stealscan

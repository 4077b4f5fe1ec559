// Units of the history scan's own object reading (src/sources/git/README.md,
// "Reading objects"): the .idx parser, delta application, the commit and tree
// parsers, and the pack reader against libgit2 on a packed repository, whole
// and damaged: a damaged pack or index is refused or left to libgit2, never
// read out of bounds.
#include <gtest/gtest.h>
#include <libdeflate.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "sources/git/delta.hpp"
#include "sources/git/git_handle.hpp"
#include "sources/git/object_parse.hpp"
#include "sources/git/pack_file.hpp"
#include "sources/git/pack_index.hpp"
#include "sources/git/pack_reader.hpp"
#include "support/git_repo.hpp"
#include "support/pack_index_writer.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace git_pack_test {
namespace {

using git::PackIndex;

// The parts joined (appended: g++ 12 -O3 warns falsely, -Wrestrict, on
// "literal" + std::string chains).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (const std::string_view p : parts) s.append(p);
  return s;
}

git_oid id_of(unsigned char first, unsigned char last) {
  git_oid id{};
  id.id[0] = first;
  id.id[GIT_OID_RAWSZ - 1] = last;
  return id;
}

TEST(GitPackIndex, finds_small_and_large_offsets) {
  const std::vector<git_oid> ids{id_of(1, 1), id_of(1, 2), id_of(200, 0)};
  const auto idx = PackIndex::parse(make_idx(ids, {12, std::uint64_t{5} << 32, 99}));
  ASSERT_TRUE(idx.has_value());
  EXPECT_EQ(idx->size(), 3U);
  EXPECT_EQ(idx->offset(ids[0]), std::optional<std::uint64_t>(12));
  EXPECT_EQ(idx->offset(ids[1]), std::optional<std::uint64_t>(std::uint64_t{5} << 32));
  EXPECT_EQ(idx->offset(ids[2]), std::optional<std::uint64_t>(99));
  EXPECT_FALSE(idx->offset(id_of(1, 3)).has_value());
  EXPECT_FALSE(idx->offset(id_of(0, 0)).has_value());
  EXPECT_FALSE(idx->offset(id_of(255, 255)).has_value());
}

// Buckets (ids of one first byte) large enough for the guessed window, with
// their ids spread evenly, packed at one end, and in two clumps: every id is
// found at its offset, and ids between and beside them are not.
TEST(GitPackIndex, finds_every_id_of_a_large_bucket_however_its_ids_lie) {
  std::mt19937_64 rng(37);
  const auto random_id = [&](unsigned char first, unsigned low, unsigned high) {  // byte 1 in [low, high]
    git_oid id{};
    for (unsigned char& b : id.id) b = static_cast<unsigned char>(rng());
    id.id[0] = first;
    id.id[1] = static_cast<unsigned char>(low + rng() % (high - low + 1));
    return id;
  };
  for (const auto& [low, high, other_low, other_high] :
       {std::array<unsigned, 4>{0, 255, 0, 255}, {0, 0, 0, 0}, {255, 255, 255, 255}, {3, 5, 250, 252}}) {
    std::vector<git_oid> ids;
    for (int k = 0; k < 3000; ++k) ids.push_back(random_id(0x42, k % 2 == 0 ? low : other_low, k % 2 == 0 ? high : other_high));
    for (int k = 0; k < 50; ++k) ids.push_back(random_id(static_cast<unsigned char>(rng() % 256), 0, 255));
    std::sort(ids.begin(), ids.end(), [](const git_oid& a, const git_oid& b) { return git_oid_cmp(&a, &b) < 0; });
    ids.erase(std::unique(ids.begin(), ids.end(), [](const git_oid& a, const git_oid& b) { return git_oid_equal(&a, &b) != 0; }),
              ids.end());
    std::vector<std::uint64_t> offsets;
    for (std::size_t i = 0; i < ids.size(); ++i) offsets.push_back(12 + 7 * i);
    const auto idx = PackIndex::parse(make_idx(ids, offsets));
    ASSERT_TRUE(idx.has_value());
    for (std::size_t i = 0; i < ids.size(); ++i) {
      ASSERT_EQ(idx->offset(ids[i]), std::optional<std::uint64_t>(offsets[i])) << "id " << i << " of bytes " << low;
      git_oid near = ids[i];
      near.id[GIT_OID_RAWSZ - 1] ^= 1;  // its neighbour in order, absent but by a chance of 1 in 2^150
      ASSERT_FALSE(idx->offset(near).has_value()) << "id " << i;
    }
    EXPECT_FALSE(idx->offset(random_id(0x42, 0, 255)).has_value());
  }
}

TEST(GitPackIndex, a_damaged_index_is_refused) {
  const std::vector<git_oid> ids{id_of(1, 1), id_of(2, 2)};
  const std::string good = make_idx(ids, {12, 40});
  ASSERT_TRUE(PackIndex::parse(good).has_value());
  EXPECT_FALSE(PackIndex::parse("").has_value());
  EXPECT_FALSE(PackIndex::parse(good.substr(0, good.size() - 1)).has_value());  // truncated
  EXPECT_FALSE(PackIndex::parse(good + "x").has_value());                       // not a whole 64-bit entry
  std::string magic = good;
  magic[1] = 'x';
  EXPECT_FALSE(PackIndex::parse(magic).has_value());
  std::string version = good;
  version[7] = 1;
  EXPECT_FALSE(PackIndex::parse(version).has_value());
  std::string fanout = good;
  fanout[8 + 4 * 10 + 3] = 9;  // a count above the next ones
  EXPECT_FALSE(PackIndex::parse(fanout).has_value());
  // A 64-bit offset entry pointing past its table: that object has no offset.
  std::string large = good;
  const std::size_t offsets = 8 + 1024 + 2 * (GIT_OID_RAWSZ + 4);
  large[offsets] = static_cast<char>(0x80);
  const auto idx = PackIndex::parse(large);
  ASSERT_TRUE(idx.has_value());
  EXPECT_FALSE(idx->offset(ids[0]).has_value());
  EXPECT_EQ(idx->offset(ids[1]), std::optional<std::uint64_t>(40));
}

std::string varint(std::uint64_t v) {
  std::string s;
  do {
    const auto b = static_cast<unsigned char>(v & 0x7f);
    v >>= 7;
    s += static_cast<char>(v != 0 ? (b | 0x80) : b);
  } while (v != 0);
  return s;
}

// A delta of `base_size` -> `result_size` with the given instructions.
std::string delta(std::uint64_t base_size, std::uint64_t result_size, const std::string& ops) {
  return varint(base_size) + varint(result_size) + ops;
}

bool apply(std::string_view base, const std::string& d, std::string& out) {
  const auto h = git::read_delta_header(d);
  git::Bytes bytes;
  if (!h.has_value() || !git::apply_delta(base, d, *h, bytes)) return false;
  out.assign(bytes.view());
  return true;
}

TEST(GitDelta, copies_and_inserts) {
  const std::string base = "hello, world";
  // copy 5 bytes at 0, insert "!!", copy 5 bytes at 7
  const std::string ops = std::string("\x90\x05", 2) + "\x02!!" + std::string("\x91\x07\x05", 3);
  std::string out;
  ASSERT_TRUE(apply(base, delta(base.size(), 12, ops), out));
  EXPECT_EQ(out, "hello!!world");
  // A copy of size 0 means 0x10000 bytes.
  const std::string big(0x10000, 'b');
  ASSERT_TRUE(apply(big, delta(big.size(), big.size(), "\x80"), out));
  EXPECT_EQ(out, big);
}

TEST(GitDelta, a_delta_that_does_not_fit_is_refused) {
  const std::string base = "hello, world";
  std::string out;
  EXPECT_FALSE(apply(base, delta(base.size() + 1, 5, std::string("\x90\x05", 2)), out));  // base size
  EXPECT_FALSE(apply(base, delta(base.size(), 5, std::string("\x91\x0a\x05", 3)), out));  // past the base
  EXPECT_FALSE(apply(base, delta(base.size(), 4, std::string("\x90\x05", 2)), out));      // past the result
  EXPECT_FALSE(apply(base, delta(base.size(), 6, std::string("\x90\x05", 2)), out));      // short of it
  EXPECT_FALSE(apply(base, delta(base.size(), 3, std::string("\x05") + "ab"), out));                       // insert past the end
  EXPECT_FALSE(apply(base, delta(base.size(), 0, std::string(1, '\0')), out));           // reserved
  EXPECT_FALSE(apply(base, delta(base.size(), 5, std::string("\x9f\x01", 2)), out));      // copy ends inside
  EXPECT_FALSE(git::read_delta_header("\x80").has_value());
  EXPECT_FALSE(git::read_delta_header(std::string(11, '\xff')).has_value());  // over 64 bits
}

// A repository with a few versions of some files, packed (libgit2 writes
// deltas), its loose objects left in place. The TestRepo lives as long: its
// end shuts libgit2 down once, and the library must stay up for the reads.
struct PackedRepo {
  TempTree t;
  TestRepo repo{t.path("repo")};
  PackedRepo() {
    TestRepo::Files files;
    std::vector<git_oid> parent;
    for (int i = 0; i < 30; ++i) {
      std::string body;
      for (int l = 0; l < 200; ++l) body += cat({"line ", std::to_string(l), l == i ? " changed\n" : "\n"});
      files[cat({"f", std::to_string(i % 3), ".txt"})] = body;
      parent = {repo.commit(files, parent, "c", "main")};
    }
    files["empty.txt"] = "";
    parent = {repo.commit(files, parent, "c", "main")};
    repo.pack();
  }
  std::string objects() const { return t.path("repo/.git/objects"); }
  std::string pack_file(const std::string& ext) const {
    for (const auto& e : std::filesystem::directory_iterator(objects() + "/pack"))
      if (e.path().extension() == ext) return e.path().string();
    return "";
  }
};

// Every object id of the repository (loose or packed) with libgit2's bytes.
std::vector<std::pair<git_oid, std::string>> all_objects(const std::string& repo_dir) {
  git::Repository repo = git::open_repository(repo_dir);
  git_odb* odb = nullptr;
  EXPECT_EQ(git_repository_odb(&odb, repo.get()), 0);
  const git::Odb owned(odb);
  std::vector<git_oid> ids;
  const auto each = [](const git_oid* id, void* payload) {
    static_cast<std::vector<git_oid>*>(payload)->push_back(*id);
    return 0;
  };
  git_odb_foreach(odb, each, &ids);
  std::vector<std::pair<git_oid, std::string>> out;
  for (const git_oid& id : ids) {
    git_odb_object* o = nullptr;
    if (git_odb_read(&o, odb, &id) < 0) continue;
    const git::OdbObject owned_object(o);
    out.emplace_back(id, std::string(static_cast<const char*>(git_odb_object_data(o)), git_odb_object_size(o)));
  }
  return out;
}

TEST(GitPackReader, reads_every_object_as_libgit2_does) {
  PackedRepo r;
  const git::PackSet packs = git::PackSet::open(r.objects());
  ASSERT_EQ(packs.size(), 1U);
  git::PackReader reader(packs);
  std::size_t read = 0;
  for (const auto& [id, bytes] : all_objects(r.t.path("repo"))) {
    const auto at = packs.locate(id);
    ASSERT_TRUE(at.has_value()) << git::hex(id);
    const git::PackReader::Result got = reader.read(*at, UINT64_MAX);
    ASSERT_EQ(got.status, git::PackReader::Status::ok) << git::hex(id);
    EXPECT_EQ(got.bytes, bytes) << git::hex(id);
    const git::PackReader::Result small = reader.read(*at, 100);  // over max_size: refused, not read
    EXPECT_EQ(small.status, bytes.size() > 100 ? git::PackReader::Status::too_large : git::PackReader::Status::ok);
    ++read;
  }
  EXPECT_GT(read, 60U);  // blobs, trees, commits
}

TEST(GitPackReader, a_damaged_pack_is_refused_or_left_to_libgit2) {
  PackedRepo r;
  const auto objects = all_objects(r.t.path("repo"));
  const std::string pack = r.pack_file(".pack");
  std::string bytes;
  {
    std::ifstream in(pack, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 1000U);
  std::filesystem::permissions(pack, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  const auto read_all_objects = [&] {
    const git::PackSet packs = git::PackSet::open(r.objects());
    git::PackReader reader(packs);
    std::size_t ok = 0;
    for (const auto& [id, want] : objects) {
      const auto at = packs.locate(id);
      if (!at) continue;
      const git::PackReader::Result got = reader.read(*at, UINT64_MAX);
      if (got.status != git::PackReader::Status::ok) continue;  // damaged (said), or left to libgit2
      EXPECT_EQ(got.bytes, want) << git::hex(id);
      ++ok;
    }
    return ok;
  };
  // One byte damaged at a time, all over the object data: each read matches
  // libgit2's undamaged one or is refused; none reads out of bounds or hangs.
  // Nearly every damage is seen (a deflate stream's last byte has padding
  // bits that no reader looks at: damage there changes nothing read).
  std::size_t tries = 0;
  std::size_t unseen = 0;
  for (std::size_t at = 12; at + 20 < bytes.size(); at += bytes.size() / 97) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x5a);
    std::ofstream(pack, std::ios::binary | std::ios::trunc) << damaged;
    ++tries;
    if (read_all_objects() == objects.size()) ++unseen;
  }
  EXPECT_LT(unseen * 10, tries);
  // Cut in half: the objects past the cut are refused.
  std::ofstream(pack, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  const std::size_t half = read_all_objects();
  EXPECT_GT(half, 0U);
  EXPECT_LT(half, objects.size());
  // Not a pack at all, or no index: the pack is left out.
  std::ofstream(pack, std::ios::binary | std::ios::trunc) << "not a pack";
  EXPECT_EQ(git::PackSet::open(r.objects()).size(), 0U);
  std::filesystem::remove(r.pack_file(".idx"));
  EXPECT_EQ(git::PackSet::open(r.objects()).size(), 0U);
}

// `git gc` rewriting a pack while a scan reads it: the file shrinks under an
// open PackSet. A mapped pack would kill the process with SIGBUS at the first
// read past the new end; every such read is an error naming the pack instead.
TEST(GitPackReader, a_pack_cut_short_while_open_gives_errors_not_a_signal) {
  PackedRepo r;
  const auto objects = all_objects(r.t.path("repo"));
  const git::PackSet packs = git::PackSet::open(r.objects());
  ASSERT_EQ(packs.size(), 1U);
  const std::string pack = r.pack_file(".pack");
  std::filesystem::permissions(pack, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  std::filesystem::resize_file(pack, 64);
  git::PackReader reader(packs);
  std::size_t cut = 0;
  for (const auto& [id, want] : objects) {
    const auto at = packs.locate(id);
    ASSERT_TRUE(at.has_value());
    const git::PackReader::Result got = reader.read(*at, UINT64_MAX);
    if (got.status == git::PackReader::Status::ok) {  // wholly before the cut
      EXPECT_EQ(got.bytes, want);
      continue;
    }
    EXPECT_EQ(got.status, git::PackReader::Status::damaged) << git::hex(id);
    EXPECT_NE(got.why.find("the pack was cut short"), std::string::npos) << got.why;
    EXPECT_NE(got.why.find(pack), std::string::npos) << got.why;
    ++cut;
  }
  EXPECT_GT(cut + 2, objects.size());
}

std::string hex_id(char c) { return std::string(GIT_OID_HEXSZ, c); }

TEST(GitObjectParse, a_commit_gives_its_tree_and_parents_in_order) {
  git_oid tree;
  std::vector<git_oid> parents;
  const std::string raw = cat({"tree ", hex_id('a'), "\nparent ", hex_id('b'), "\nparent ", hex_id('c'),
                               "\nauthor A <a@b> 1 +0000\n\nparent ", hex_id('d'), "\n"});
  ASSERT_TRUE(git::parse_commit(raw, tree, parents));
  EXPECT_EQ(git::hex(tree), hex_id('a'));
  ASSERT_EQ(parents.size(), 2U);  // the message's "parent" line is not one
  EXPECT_EQ(git::hex(parents[0]), hex_id('b'));
  EXPECT_EQ(git::hex(parents[1]), hex_id('c'));
  ASSERT_TRUE(git::parse_commit(cat({"tree ", hex_id('a'), "\n"}), tree, parents));
  EXPECT_TRUE(parents.empty());
  for (const std::string& bad : {std::string(), cat({"tree ", hex_id('a')}), cat({"tree ", hex_id('g'), "\n"}),
                                 cat({"parent ", hex_id('a'), "\n"}), cat({"tree ", hex_id('a'), "\nparent xyz\n"})})
    EXPECT_FALSE(git::parse_commit(bad, tree, parents)) << bad;
}

std::string entry(const std::string& mode, const std::string& name, unsigned char id) {
  return cat({mode, " ", name, std::string_view("\0", 1), std::string(GIT_OID_RAWSZ, static_cast<char>(id))});
}

TEST(GitObjectParse, a_commit_gives_its_committer_time_and_a_tag_its_target) {
  const std::string head = cat({"tree ", hex_id('a'), "\nauthor A <a@b> 111 +0100\n"});
  EXPECT_EQ(git::commit_time(cat({head, "committer C <c> d> 1700000000 -0500\n\ncommitter X <x> 5\n"})), 1700000000);
  EXPECT_EQ(git::commit_time(cat({head, "\ncommitter X <x> 5\n"})), 0);  // only in the message
  EXPECT_EQ(git::commit_time(cat({head, "committer C <c> never\n"})), 0);
  EXPECT_EQ(git::commit_time(head), 0);

  git_oid target;
  git_object_t type{};
  ASSERT_TRUE(git::parse_tag(cat({"object ", hex_id('b'), "\ntype commit\ntag v1\n"}), target, type));
  EXPECT_EQ(git::hex(target), hex_id('b'));
  EXPECT_EQ(type, GIT_OBJECT_COMMIT);
  ASSERT_TRUE(git::parse_tag(cat({"object ", hex_id('c'), "\ntype tree\n"}), target, type));
  EXPECT_EQ(type, GIT_OBJECT_TREE);
  for (const std::string& bad : {cat({"object ", hex_id('b'), "\ntype sock\n"}), cat({"object ", hex_id('b'), "\n"}),
                                 cat({"object ", hex_id('b'), "\ntype commit"}), std::string("type commit\n")})
    EXPECT_FALSE(git::parse_tag(bad, target, type)) << bad;
}

TEST(GitObjectParse, a_tree_gives_its_entries_with_modes_as_libgit2_reports_them) {
  std::vector<git::TreeEntry> e;
  const std::string raw = entry("100644", "a.txt", 1) + entry("100755", "run", 2) + entry("40000", "dir", 3) +
                          entry("120000", "link", 4) + entry("160000", "sub", 5) + entry("100664", "odd", 6);
  ASSERT_TRUE(git::parse_tree(raw, e));
  ASSERT_EQ(e.size(), 6U);
  EXPECT_EQ(e[0].name, "a.txt");
  EXPECT_EQ(e[0].mode, GIT_FILEMODE_BLOB);
  EXPECT_EQ(e[0].id.id[0], 1);
  EXPECT_EQ(e[1].mode, GIT_FILEMODE_BLOB_EXECUTABLE);
  EXPECT_EQ(e[2].mode, GIT_FILEMODE_TREE);
  EXPECT_EQ(e[3].mode, GIT_FILEMODE_LINK);
  EXPECT_EQ(e[4].mode, GIT_FILEMODE_COMMIT);
  EXPECT_EQ(e[5].mode, GIT_FILEMODE_BLOB);  // group-writable: a regular file
  ASSERT_TRUE(git::parse_tree("", e));
  EXPECT_TRUE(e.empty());
  const std::string good = entry("100644", "a", 1);
  for (const std::string& bad : {good.substr(0, good.size() - 1), entry("100648", "a", 1), entry("", "a", 1),
                                 entry("100644", "", 1), entry("1006440", "a", 1), std::string("100644 a")})
    EXPECT_FALSE(git::parse_tree(bad, e)) << bad;
}

// `data` as a zlib stream.
std::string zlib(const std::string& data) {
  libdeflate_compressor* c = libdeflate_alloc_compressor(6);
  std::string out(libdeflate_zlib_compress_bound(c, data.size()), '\0');
  out.resize(libdeflate_zlib_compress(c, data.data(), data.size(), out.data(), out.size()));
  libdeflate_free_compressor(c);
  return out;
}

// A pack of one REF_DELTA entry whose base is itself, `delta_size` bytes of
// delta (zeros: a few bytes compressed), with its index.
void write_looping_pack(const std::string& objects, std::size_t delta_size) {
  const git_oid self = id_of(7, 7);
  std::string pack("PACK", 4);
  be32(pack, 2);
  be32(pack, 1);
  std::uint64_t size = delta_size;
  pack += static_cast<char>(0x80 | (7 << 4) | (size & 15));  // REF_DELTA, size continued
  size >>= 4;
  while (size >= 0x80) {
    pack += static_cast<char>(0x80 | (size & 0x7f));
    size >>= 7;
  }
  pack += static_cast<char>(size);
  pack.append(reinterpret_cast<const char*>(self.id), GIT_OID_RAWSZ);
  pack += zlib(std::string(delta_size, '\0'));
  pack += std::string(20, '\0');  // the checksum, not read
  std::filesystem::create_directories(objects + "/pack");
  std::ofstream(objects + "/pack/pack-loop.pack", std::ios::binary) << pack;
  std::ofstream(objects + "/pack/pack-loop.idx", std::ios::binary) << make_idx({self}, {12});
}

TEST(GitPackReader, a_delta_chain_in_a_loop_ends_in_bounded_time_and_memory) {
  for (const std::size_t delta_size : {std::size_t{2}, std::size_t{1} << 20}) {
    TempTree t;
    write_looping_pack(t.path("objects"), delta_size);
    const git::PackSet packs = git::PackSet::open(t.path("objects"));
    ASSERT_EQ(packs.size(), 1U);
    const auto at = packs.locate(id_of(7, 7));
    ASSERT_TRUE(at.has_value());
    git::PackReader reader(packs);
    // A small delta stops at the chain's length bound (damage: no real
    // chain is that long), a large one at its bytes' bound (64 of 1 MiB, not
    // 10,000; a real chain may weigh that much, so libgit2 is asked).
    const git::PackReader::Result r = reader.read(*at, UINT64_MAX);
    if (delta_size < 1024) {
      EXPECT_EQ(r.status, git::PackReader::Status::damaged);
      EXPECT_NE(r.why.find("pack-loop.pack, entry at 12: a delta chain over 10,000 long"), std::string::npos) << r.why;
    } else {
      EXPECT_EQ(r.status, git::PackReader::Status::fallback);
    }
  }
}

}  // namespace
}  // namespace git_pack_test
}  // namespace stealscan::test

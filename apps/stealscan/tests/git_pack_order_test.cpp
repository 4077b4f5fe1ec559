// The order the history scan reads blobs in (src/sources/git/pack_order.hpp):
// depth first over the packs' delta forest, so that each delta's base was
// read just before. Checked against the delta bases read here from the pack
// file's bytes (gitformat-pack(5)), apart from the reader's own parser: every
// object and the objects built on it, directly or not, form one run that it
// starts; every packed blob comes once, at its place; a loose blob comes last.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "sources/git/blob_index.hpp"
#include "sources/git/git_handle.hpp"
#include "sources/git/pack_file.hpp"
#include "sources/git/pack_order.hpp"
#include "support/git_repo.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace git_pack_order_test {
namespace {

// The base of the entry at `offset` of `pack` (the file's bytes): its offset
// for an OFS_DELTA, its id's place through `packs` for a REF_DELTA, nullopt
// for a whole object.
std::optional<std::uint64_t> base_of(const std::string& pack, std::uint64_t offset, const git::PackSet& packs) {
  std::size_t at = offset;
  auto byte = [&] { return static_cast<unsigned char>(pack.at(at++)); };
  unsigned char c = byte();
  const unsigned type = (c >> 4) & 7U;
  while ((c & 0x80U) != 0) c = byte();  // the size
  if (type == 6) {  // OFS_DELTA: the distance back, each continuation adding one
    c = byte();
    std::uint64_t back = c & 0x7fU;
    while ((c & 0x80U) != 0) {
      c = byte();
      back = ((back + 1) << 7) | (c & 0x7fU);
    }
    return offset - back;
  }
  if (type == 7) {  // REF_DELTA: the base's id
    git_oid id;
    std::copy_n(pack.begin() + static_cast<std::ptrdiff_t>(at), GIT_OID_RAWSZ, id.id);
    return packs.locate(id).value().offset;
  }
  return std::nullopt;
}

// Files edited over many commits on two branches, packed (libgit2 writes
// deltas between versions), then one commit more whose new blob stays loose.
struct HistoryRepo {
  TempTree t;
  TestRepo repo{t.path("repo")};
  git_oid loose_blob{};
  HistoryRepo() {
    std::mt19937 rng(41);
    TestRepo::Files files;
    const auto edit = [&](TestRepo::Files& f) {
      std::string& body = f["f" + std::to_string(rng() % 4) + ".txt"];
      if (body.empty())
        for (int l = 0; l < 300; ++l) body += "line " + std::to_string(l) + " of a file that changes a little\n";
      body.insert(rng() % body.size(), "edit " + std::to_string(rng()) + "\n");
    };
    std::vector<git_oid> main;
    for (int i = 0; i < 80; ++i) {
      edit(files);
      main = {repo.commit(files, main, "c", "main")};
    }
    // A side branch from the middle: versions that fork from older ones.
    TestRepo::Files side = files;
    std::vector<git_oid> at = main;
    for (int i = 0; i < 40; ++i) {
      edit(side);
      at = {repo.commit(side, at, "s", "side")};
    }
    repo.pack();
    const std::string loose = "written after the pack\n";
    files["loose.txt"] = loose;
    repo.commit(files, main, "after", "main");
    EXPECT_EQ(git_odb_hash(&loose_blob, loose.data(), loose.size(), GIT_OBJECT_BLOB), 0);
  }
  std::string objects() const { return t.path("repo/.git/objects"); }
};

// Every blob of the repository, in a shuffled "history order".
std::vector<git::BlobEntry> all_blobs(const std::string& repo_dir) {
  git::Repository repo = git::open_repository(repo_dir);
  git_odb* odb = nullptr;
  EXPECT_EQ(git_repository_odb(&odb, repo.get()), 0);
  const git::Odb owned(odb);
  std::vector<git_oid> ids;
  git_odb_foreach(
      odb, [](const git_oid* id, void* p) { static_cast<std::vector<git_oid>*>(p)->push_back(*id); return 0; }, &ids);
  std::vector<git::BlobEntry> blobs;
  for (const git_oid& id : ids) {
    std::size_t size = 0;
    git_object_t type = GIT_OBJECT_INVALID;
    if (git_odb_read_header(&size, &type, odb, &id) == 0 && type == GIT_OBJECT_BLOB)
      blobs.push_back(git::BlobEntry{id, 0, ""});
  }
  std::sort(blobs.begin(), blobs.end(), [](const auto& a, const auto& b) { return git_oid_cmp(&a.blob, &b.blob) < 0; });
  blobs.erase(std::unique(blobs.begin(), blobs.end(),
                          [](const auto& a, const auto& b) { return git_oid_equal(&a.blob, &b.blob) != 0; }),
              blobs.end());
  std::shuffle(blobs.begin(), blobs.end(), std::mt19937(43));
  for (std::size_t i = 0; i < blobs.size(); ++i) blobs[i].commit = static_cast<std::uint32_t>(i);
  return blobs;
}

TEST(GitPackOrder, each_object_and_all_built_on_it_are_read_in_one_run_that_it_starts) {
  HistoryRepo h;
  const git::PackSet packs = git::PackSet::open(h.objects());
  ASSERT_EQ(packs.size(), 1U);
  std::string pack;
  for (const auto& e : std::filesystem::directory_iterator(h.objects() + "/pack"))
    if (e.path().extension() == ".pack") {
      std::ifstream in(e.path(), std::ios::binary);
      pack.assign(std::istreambuf_iterator<char>(in), {});
    }
  std::vector<git::BlobEntry> blobs = all_blobs(h.t.path("repo"));
  const std::vector<git::BlobEntry> before = blobs;
  const std::vector<std::optional<git::PackLocation>> places = git::order_by_pack(packs, blobs);
  ASSERT_EQ(places.size(), blobs.size());
  ASSERT_EQ(blobs.size(), before.size());

  // Each blob once; each packed one at its place; the loose one last.
  std::vector<std::uint32_t> seen;
  for (const git::BlobEntry& b : blobs) seen.push_back(b.commit);
  std::sort(seen.begin(), seen.end());
  for (std::uint32_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], i);
  for (std::size_t i = 0; i + 1 < blobs.size(); ++i) {
    ASSERT_TRUE(places[i].has_value()) << i;
    EXPECT_EQ(places[i]->offset, packs.locate(blobs[i].blob).value().offset);
  }
  EXPECT_TRUE(git_oid_equal(&blobs.back().blob, &h.loose_blob));
  EXPECT_FALSE(places.back().has_value());

  // The forest, from the pack's bytes: each packed blob's chain of bases.
  std::map<std::uint64_t, std::size_t> position;  // offset -> place in the order
  for (std::size_t i = 0; i + 1 < blobs.size(); ++i) position[places[i]->offset] = i;
  std::map<std::uint64_t, std::uint64_t> base;  // delta -> base
  std::map<std::uint64_t, int> deltas_on;       // base -> its deltas
  std::size_t deepest = 0;
  for (const auto& [offset, i] : position) {
    std::size_t depth = 0;
    for (std::optional<std::uint64_t> at = offset, b; (b = base_of(pack, *at, packs)); at = b, ++depth) {
      base[*at] = *b;
      ASSERT_LT(depth, 100U);
    }
    deepest = std::max(deepest, depth);
  }
  for (const auto& [delta, b] : base) ++deltas_on[b];
  // A history worth ordering: chains several deep, and bases with several deltas.
  EXPECT_GE(deepest, 5U);
  EXPECT_GE(std::count_if(deltas_on.begin(), deltas_on.end(), [](const auto& d) { return d.second >= 2; }), 3);

  // Depth first: the blobs built on each blob x (x's deltas, theirs, ...)
  // and x itself fill the places from x's on, with nothing else between.
  for (const auto& [x, at_x] : position) {
    std::vector<std::size_t> run;
    for (const auto& [y, at_y] : position) {
      std::uint64_t z = y;
      while (z != x && base.count(z) != 0) z = base[z];
      if (z == x) run.push_back(at_y);
    }
    std::sort(run.begin(), run.end());
    ASSERT_EQ(run.front(), at_x) << "blob at " << x << " comes after one built on it";
    EXPECT_EQ(run.back() - run.front() + 1, run.size()) << "what is built on the blob at " << x << " is not one run";
  }
}

}  // namespace
}  // namespace git_pack_order_test
}  // namespace stealscan::test

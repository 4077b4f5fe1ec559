// fuzz_git_objects.cpp: the raw objects and index files that `stealscan
// secrets --git` parses itself (sources/git/object_parse.hpp, pack_index.hpp),
// on any bytes: as a commit (its parents and its committer time), as a tag,
// as a tree, and as a pack's .idx file.
//
// Checks: nothing is read outside the input (ASan); a time is never negative;
// a parsed tag names an object type; a parsed tree's entry
// names lie inside the input and hold no NUL; an index that parses answers
// the lookup of any id (those in it, and others) without reading past its
// tables. (Whether a corrupt index finds its own ids is not a property: parse()
// checks the layout, not that the ids are sorted.)
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "sources/git/object_parse.hpp"
#include "sources/git/pack_index.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stealscan::git;
  const std::string_view in(reinterpret_cast<const char*>(data), size);

  git_oid tree;
  std::vector<git_oid> parents;
  (void)parse_commit(in, tree, parents);
  FUZZ_CHECK(commit_time(in) >= 0);
  git_object_t type{};
  if (parse_tag(in, tree, type)) FUZZ_CHECK(type >= GIT_OBJECT_COMMIT && type <= GIT_OBJECT_TAG);

  std::vector<TreeEntry> entries;
  if (parse_tree(in, entries)) {
    for (const TreeEntry& e : entries) {
      FUZZ_CHECK(e.name.data() >= in.data() && e.name.data() + e.name.size() <= in.data() + in.size());
      FUZZ_CHECK(e.name.find('\0') == std::string_view::npos);
    }
  }

  if (const std::optional<PackIndex> idx = PackIndex::parse(std::string(in))) {
    // A version-2 index: 8 bytes of header, 256 fan-out words, then the ids.
    constexpr std::size_t kIds = 8 + 256 * 4;
    for (std::uint32_t i = 0; i < idx->size() && i < 64; ++i) {
      git_oid id;
      std::memcpy(id.id, in.data() + kIds + std::size_t{i} * sizeof id.id, sizeof id.id);
      (void)idx->offset(id);
    }
    git_oid other;
    std::memset(other.id, 0xa5, sizeof other.id);
    (void)idx->offset(other);
  }
  return 0;
}

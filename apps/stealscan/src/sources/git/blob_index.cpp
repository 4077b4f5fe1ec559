// blob_index.cpp: introduced_blobs() and unique_blobs() (blob_index.hpp).
#include "sources/git/blob_index.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

namespace stealscan::git {
namespace {

using PathBlob = std::pair<std::string, git_oid>;

bool path_blob_less(const PathBlob& a, const PathBlob& b) {
  if (const int c = a.first.compare(b.first); c != 0) return c < 0;
  return oid_less(a.second, b.second);
}

bool is_file(git_filemode_t mode) { return mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE; }

// Appends the (prefix + name, blob) pairs of the files under `tree` whose blob
// is not the blob of that path under `old` (null: the empty tree). A subtree
// with the same id on both sides is skipped whole: the walk reads only the
// trees that changed. Hand-written rather than git_diff_tree_to_tree: the
// library's diff reads the repository's config and builds iterators and
// deltas per call, which measured at most of the history walk's time.
void changed(git_repository* repo, const git_tree* old, const git_tree* tree, const std::string& prefix,
             const std::string& what, std::vector<PathBlob>& out) {
  const std::size_t n = git_tree_entrycount(tree);
  for (std::size_t i = 0; i < n; ++i) {
    const git_tree_entry* e = git_tree_entry_byindex(tree, i);
    const char* name = git_tree_entry_name(e);
    const git_tree_entry* o = old != nullptr ? git_tree_entry_byname(old, name) : nullptr;
    const bool same_id = o != nullptr && git_oid_equal(git_tree_entry_id(o), git_tree_entry_id(e)) != 0;
    const git_filemode_t mode = git_tree_entry_filemode(e);
    if (mode == GIT_FILEMODE_TREE) {
      if (same_id && git_tree_entry_filemode(o) == GIT_FILEMODE_TREE) continue;
      git_tree* sub = nullptr;
      check(git_tree_lookup(&sub, repo, git_tree_entry_id(e)), what + ": cannot read tree " + prefix + name);
      const Tree owned(sub);
      Tree old_sub;
      if (o != nullptr && git_tree_entry_filemode(o) == GIT_FILEMODE_TREE) {
        git_tree* os = nullptr;
        check(git_tree_lookup(&os, repo, git_tree_entry_id(o)),
              what + ": cannot read a parent's tree " + prefix + name);
        old_sub.reset(os);
      }
      changed(repo, old_sub.get(), sub, prefix + name + "/", what, out);
    } else if (is_file(mode)) {  // not links (a path) nor submodules (a commit)
      if (same_id && is_file(git_tree_entry_filemode(o))) continue;
      out.emplace_back(prefix + name, *git_tree_entry_id(e));
    }
  }
}

// changed() from the root, sorted.
std::vector<PathBlob> changed(git_repository* repo, const git_tree* old, const git_tree* tree,
                              const std::string& what) {
  std::vector<PathBlob> out;
  changed(repo, old, tree, "", what, out);
  std::sort(out.begin(), out.end(), path_blob_less);
  return out;
}

}  // namespace

void introduced_blobs(git_repository* repo, const git_oid& id, std::uint32_t index,
                      const std::vector<git_oid>& excluded, std::vector<BlobEntry>& out) {
  const std::string what = "commit " + hex(id);
  git_commit* c = nullptr;
  check(git_commit_lookup(&c, repo, &id), what);
  const Commit commit(c);
  git_tree* t = nullptr;
  check(git_commit_tree(&t, c), what + ": cannot read its tree");
  const Tree tree(t);
  const unsigned parents = git_commit_parentcount(c);
  std::vector<PathBlob> kept;
  for (unsigned p = 0; p < std::max(parents, 1U); ++p) {
    Tree parent_tree;
    if (parents > 0) {
      git_commit* pc = nullptr;
      check(git_commit_parent(&pc, c, p), what + ": cannot read parent " + std::to_string(p + 1));
      const Commit parent(pc);
      git_tree* pt = nullptr;
      check(git_commit_tree(&pt, pc), what + ": cannot read parent " + std::to_string(p + 1) + "'s tree");
      parent_tree.reset(pt);
    }
    std::vector<PathBlob> diff = changed(repo, parent_tree.get(), t, what);
    if (p == 0) {
      kept = std::move(diff);
    } else {
      // A merge introduces only what differs from every parent (README.md, "Merges").
      std::vector<PathBlob> both;
      std::set_intersection(kept.begin(), kept.end(), diff.begin(), diff.end(), std::back_inserter(both),
                            path_blob_less);
      kept = std::move(both);
    }
    if (kept.empty()) break;
  }
  for (PathBlob& pb : kept) {
    if (std::binary_search(excluded.begin(), excluded.end(), pb.second, oid_less)) continue;
    out.push_back(BlobEntry{pb.second, index, std::move(pb.first)});
  }
}

std::vector<BlobEntry> unique_blobs(std::vector<std::vector<BlobEntry>>& parts) {
  std::vector<BlobEntry> all;
  std::size_t n = 0;
  for (const auto& p : parts) n += p.size();
  all.reserve(n);
  for (auto& p : parts) {
    std::move(p.begin(), p.end(), std::back_inserter(all));
    std::vector<BlobEntry>().swap(p);
  }
  std::sort(all.begin(), all.end(), [](const BlobEntry& a, const BlobEntry& b) {
    if (const int c = git_oid_cmp(&a.blob, &b.blob); c != 0) return c < 0;
    return std::tie(a.commit, a.path) < std::tie(b.commit, b.path);
  });
  all.erase(std::unique(all.begin(), all.end(),
                        [](const BlobEntry& a, const BlobEntry& b) { return git_oid_equal(&a.blob, &b.blob) != 0; }),
            all.end());
  std::sort(all.begin(), all.end(), [](const BlobEntry& a, const BlobEntry& b) {
    return std::tie(a.commit, a.path) < std::tie(b.commit, b.path);
  });
  return all;
}

}  // namespace stealscan::git

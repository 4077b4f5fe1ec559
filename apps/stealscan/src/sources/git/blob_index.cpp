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

// The (path, blob) pairs whose blob is new or changed from `old_tree` (null:
// the empty tree) to `tree`, sorted. Blobs are not read (SKIP_BINARY_CHECK).
std::vector<PathBlob> changed(git_repository* repo, git_tree* old_tree, git_tree* tree, const std::string& what) {
  git_diff_options opts;
  check(git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION), what);
  opts.flags = GIT_DIFF_SKIP_BINARY_CHECK | GIT_DIFF_IGNORE_SUBMODULES;
  git_diff* d = nullptr;
  check(git_diff_tree_to_tree(&d, repo, old_tree, tree, &opts), what);
  const Diff diff(d);
  std::vector<PathBlob> out;
  const std::size_t n = git_diff_num_deltas(d);
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const git_diff_delta* delta = git_diff_get_delta(d, i);
    if (delta->status != GIT_DELTA_ADDED && delta->status != GIT_DELTA_MODIFIED &&
        delta->status != GIT_DELTA_TYPECHANGE)
      continue;
    const git_diff_file& f = delta->new_file;
    if (f.mode != GIT_FILEMODE_BLOB && f.mode != GIT_FILEMODE_BLOB_EXECUTABLE) continue;
    out.emplace_back(f.path, f.id);
  }
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

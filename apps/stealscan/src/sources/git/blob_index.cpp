// blob_index.cpp: introduced_blobs() and unique_blobs() (blob_index.hpp).
#include "sources/git/blob_index.hpp"

#include <algorithm>
#include <cstring>
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

// The object `id`, which must be a `want`. GitError "<what()>: <reason>"
// otherwise; `what` is called only then, so the message costs nothing when
// all goes well.
template <class What>
std::string_view read_as(ObjectReader& reader, const git_oid& id, git_object_t want, const What& what) {
  ObjectReader::Object o;
  try {
    o = reader.read(id);
  } catch (const GitError& e) {
    std::string m = what();
    m.append(": ").append(e.what());
    throw GitError(m);
  }
  if (o.too_large) {
    std::string m = what();
    m.append(": larger than 1 GiB");
    throw GitError(m);
  }
  if (o.type != want) {
    std::string m = what();
    m.append(": not a ").append(git_object_type2string(want));
    throw GitError(m);
  }
  return o.bytes;
}

// Reads tree `id` into `t` (its bytes copied: the reader's last only until its
// next read).
template <class What>
void load_tree(ObjectReader& reader, const git_oid& id, DiffScratch::Tree& t, const What& what) {
  const std::string_view raw = read_as(reader, id, GIT_OBJECT_TREE, what);
  t.bytes.assign(raw);
  if (!parse_tree(t.bytes, t.entries)) {
    std::string m = what();
    m.append(": a malformed tree");
    throw GitError(m);
  }
}

// Git's order of tree entries (its base_name_compare): by name, bytes
// unsigned, a tree's name read as if it ended in '/', any other's in '\0'.
// 0 only for the same name and the same kind (tree or not).
int tree_order(const TreeEntry& a, const TreeEntry& b) {
  const std::size_t n = std::min(a.name.size(), b.name.size());
  if (const int c = std::memcmp(a.name.data(), b.name.data(), n); c != 0) return c;
  const auto next = [n](const TreeEntry& e) -> unsigned {
    if (e.name.size() > n) return static_cast<unsigned char>(e.name[n]);
    return e.mode == GIT_FILEMODE_TREE ? '/' : 0U;
  };
  return static_cast<int>(next(a)) - static_cast<int>(next(b));
}

// Appends the (path, blob) pairs of the files under the tree at `depth` of
// `s` whose blob is not the blob of that path in the old tree there (none:
// the empty tree). `s.path` holds the trees' path ("" or "dir/"). A subtree
// with the same id on both sides is skipped whole: the walk reads only the
// trees that changed. Hand-written rather than git_diff_tree_to_tree: the
// library's diff reads the repository's config and builds iterators and
// deltas per call, which measured at most of the history walk's time; and
// on our own reader's bytes (README.md, "Reading objects").
void changed(ObjectReader& reader, DiffScratch& s, std::size_t depth, const std::string& commit,
             std::vector<PathBlob>& out, std::vector<std::string>& errors) {
  const DiffScratch::Level& here = s.level(depth);
  const std::size_t prefix = s.path.size();
  // Both trees are in git's order: one merge walk pairs each entry with the
  // old one of its name and kind, if any, in linear time (no sort, no
  // search). Pairing a tree with a file of its name would change nothing:
  // neither could be skipped as unchanged. A tree out of order (damaged, or
  // written by hand) can only miss a pair, which makes its files count as
  // new: more scanned, nothing lost.
  const std::vector<TreeEntry>& olds = here.old.entries;
  std::size_t j = 0;
  for (const TreeEntry& e : here.tree.entries) {
    const TreeEntry* o = nullptr;
    if (here.has_old) {
      while (j < olds.size() && tree_order(olds[j], e) < 0) ++j;
      if (j < olds.size() && tree_order(olds[j], e) == 0) o = &olds[j];
    }
    const bool same_id = o != nullptr && git_oid_equal(&o->id, &e.id) != 0;
    if (e.mode == GIT_FILEMODE_TREE) {
      if (same_id && o->mode == GIT_FILEMODE_TREE) continue;
      s.path.resize(prefix);
      s.path.append(e.name);
      DiffScratch::Level& next = s.level(depth + 1);  // a deque: `here` stays put
      try {
        load_tree(reader, e.id, next.tree, [&] { return commit + ": cannot read tree " + s.path; });
      } catch (const GitError& err) {  // what is under it is lost: said, and the rest goes on
        errors.emplace_back(err.what());
        continue;
      }
      next.has_old = o != nullptr && o->mode == GIT_FILEMODE_TREE;
      if (next.has_old) {
        try {
          load_tree(reader, o->id, next.old, [&] { return commit + ": cannot read a parent's tree " + s.path; });
        } catch (const GitError& err) {  // then every file under it counts as new: more scanned, nothing lost
          errors.emplace_back(err.what());
          next.has_old = false;
        }
      }
      s.path += '/';
      changed(reader, s, depth + 1, commit, out, errors);
    } else if (is_file(e.mode)) {  // not links (a path) nor submodules (a commit)
      if (same_id && is_file(o->mode)) continue;
      s.path.resize(prefix);
      s.path.append(e.name);
      out.emplace_back(s.path, e.id);
    }
  }
  s.path.resize(prefix);
}

}  // namespace

void introduced_blobs(ObjectReader& reader, DiffScratch& s, const History& history, std::uint32_t index,
                      std::vector<BlobEntry>& out, std::vector<std::string>& errors) {
  const std::string what = "commit " + hex(history.commits[index]);
  const std::span<const git_oid> parents = history.parents_of(index);
  DiffScratch::Level& root = s.level(0);
  try {
    load_tree(reader, history.trees[index], root.tree, [&] { return what + ": cannot read its tree"; });
  } catch (const GitError& err) {
    errors.emplace_back(err.what());
    return;
  }
  std::vector<PathBlob> kept;
  bool first = true;
  // Each parent tree that can be read; with none (a root commit, or no parent
  // tree readable), one pass against the empty tree.
  for (std::size_t p = 0; p < parents.size() || first; ++p) {
    root.has_old = p < parents.size();
    if (root.has_old) {
      try {
        load_tree(reader, parents[p], root.old,
                  [&] { return what + ": cannot read parent " + std::to_string(p + 1) + "'s tree"; });
      } catch (const GitError& err) {  // diffed against the other parents, or taken whole
        errors.emplace_back(err.what());
        continue;
      }
    }
    s.path.clear();
    std::vector<PathBlob> diff;
    changed(reader, s, 0, what, diff, errors);
    std::sort(diff.begin(), diff.end(), path_blob_less);
    if (first) {
      kept = std::move(diff);
      first = false;
    } else {
      // A merge introduces only what differs from every parent (README.md, "Merges").
      std::vector<PathBlob> both;
      std::set_intersection(kept.begin(), kept.end(), diff.begin(), diff.end(), std::back_inserter(both),
                            path_blob_less);
      kept = std::move(both);
    }
    if (kept.empty()) break;
  }
  const std::vector<git_oid>& excluded = history.excluded_blobs;
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

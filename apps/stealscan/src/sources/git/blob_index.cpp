// blob_index.cpp: introduced_blobs() and unique_blobs() (blob_index.hpp).
#include "sources/git/blob_index.hpp"

#include <algorithm>
#include <cstdint>
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

// Tree `id`, from the worker's cache, else read (its bytes copied: the
// reader's last only until its next read), parsed and cached.
template <class What>
std::shared_ptr<const ParsedTree> hold_tree(ObjectReader& reader, TreeCache& cache, const git_oid& id,
                                            const What& what) {
  if (std::shared_ptr<const ParsedTree> kept = cache.find(id)) return kept;
  auto t = std::make_shared<ParsedTree>();
  t->id = id;
  t->bytes.assign(read_as(reader, id, GIT_OBJECT_TREE, what));
  if (!parse_tree(t->bytes, t->entries)) {
    std::string m = what();
    m.append(": a malformed tree");
    throw GitError(m);
  }
  return cache.put(std::move(t));
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

// The length of the common start of a[0, n) and b[0, n), or, `backwards`, of
// their common end (a and b then point one past their last bytes): eight
// bytes at a time (std::mismatch goes byte by byte, and the trees compared
// are mostly the same kilobytes).
std::size_t common_run(const char* a, const char* b, std::size_t n, bool backwards) {
  std::size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    std::uint64_t x = 0, y = 0;
    std::memcpy(&x, backwards ? a - k - 8 : a + k, 8);
    std::memcpy(&y, backwards ? b - k - 8 : b + k, 8);
    if (x == y) continue;
    const std::uint64_t d = x ^ y;  // little-endian: the first differing byte is the lowest set one
    return k + static_cast<std::size_t>(backwards ? __builtin_clzll(d) / 8 : __builtin_ctzll(d) / 8);
  }
  for (; k < n && (backwards ? a[-1 - static_cast<std::ptrdiff_t>(k)] == b[-1 - static_cast<std::ptrdiff_t>(k)] : a[k] == b[k]); ++k) {
  }
  return k;
}

// Where an entry ends in its tree's bytes: after its name, the NUL and the id.
std::size_t entry_end(const ParsedTree& t, const TreeEntry& e) {
  return static_cast<std::size_t>(e.name.data() - t.bytes.data()) + e.name.size() + 1 + GIT_OID_RAWSZ;
}

// How many entries at the start and at the end of a tree and its old version
// are the same entries. The first `head` entries of `now` lie wholly in the
// bytes the two trees begin with: byte for byte the old tree's first `head`
// entries. At the end, the entries of `now` that start in the bytes the two
// end with, if the old tree has an entry starting at the same distance from
// its end: from there both parse the same bytes into the same entries.
struct Unchanged {
  std::size_t head = 0;
  std::size_t tail = 0;
};
Unchanged same_entries(const ParsedTree& now, const ParsedTree& old) {
  const std::string& a = now.bytes;
  const std::string& b = old.bytes;
  const std::size_t n = std::min(a.size(), b.size());
  const std::size_t prefix = common_run(a.data(), b.data(), n, false);
  Unchanged u;
  u.head = static_cast<std::size_t>(
      std::partition_point(now.entries.begin(), now.entries.end(),
                           [&](const TreeEntry& e) { return entry_end(now, e) <= prefix; }) -
      now.entries.begin());
  const std::size_t room = n - prefix;  // the common end may not reach into the common start
  const std::size_t suffix = common_run(a.data() + a.size(), b.data() + b.size(), room, true);
  // The first entry (from `from`) of `t` that starts at most `distance` bytes
  // before its end; entries start in increasing order, so a binary search.
  const auto first_within = [](const ParsedTree& t, std::size_t from, std::size_t distance) {
    const auto start = [&t](std::size_t i) { return i == 0 ? std::size_t{0} : entry_end(t, t.entries[i - 1]); };
    std::size_t lo = from, hi = t.entries.size();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (t.bytes.size() - start(mid) > distance) lo = mid + 1;
      else hi = mid;
    }
    return std::pair{lo, lo < t.entries.size() ? t.bytes.size() - start(lo) : std::size_t{0}};
  };
  const auto [i, distance] = first_within(now, u.head, suffix);
  if (i == now.entries.size()) return u;
  const auto [k, old_distance] = first_within(old, u.head, distance);
  if (k < old.entries.size() && old_distance == distance)
    u.tail = std::min(now.entries.size() - i, old.entries.size() - k);
  return u;
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
  static const std::vector<TreeEntry> kNone;
  const std::vector<TreeEntry>& news = here.tree->entries;
  const std::vector<TreeEntry>& olds = here.has_old ? here.old->entries : kNone;
  // Most of a big tree is what its old version was: the entries in the two
  // trees' common first and last bytes are the same entries, skipped without
  // a look (same_entries()); the walk covers what lies between.
  const Unchanged same = here.has_old ? same_entries(*here.tree, *here.old) : Unchanged{};
  std::size_t j = same.head;
  const std::size_t old_end = olds.size() - same.tail;
  for (std::size_t i = same.head; i < news.size() - same.tail; ++i) {
    const TreeEntry& e = news[i];
    const TreeEntry* o = nullptr;
    if (here.has_old) {
      while (j < old_end && tree_order(olds[j], e) < 0) ++j;
      if (j < old_end && tree_order(olds[j], e) == 0) o = &olds[j];
    }
    const bool same_id = o != nullptr && git_oid_equal(&o->id, &e.id) != 0;
    if (e.mode == GIT_FILEMODE_TREE) {
      if (same_id && o->mode == GIT_FILEMODE_TREE) continue;
      s.path.resize(prefix);
      s.path.append(e.name);
      DiffScratch::Level& next = s.level(depth + 1);  // a deque: `here` stays put
      try {
        next.tree = hold_tree(reader, s.trees, e.id, [&] { return commit + ": cannot read tree " + s.path; });
      } catch (const GitError& err) {  // what is under it is lost: said, and the rest goes on
        errors.emplace_back(err.what());
        continue;
      }
      next.has_old = o != nullptr && o->mode == GIT_FILEMODE_TREE;
      if (next.has_old) {
        try {
          next.old = hold_tree(reader, s.trees, o->id, [&] { return commit + ": cannot read a parent's tree " + s.path; });
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

// The entry named `name` of kind tree (`tree` true) or not, in a tree in
// git's order (a binary search by tree_order()); null if there is none, or
// if the tree is out of order where the search goes.
const TreeEntry* entry_named(const ParsedTree& t, std::string_view name, bool tree) {
  TreeEntry probe{};
  probe.name = name;
  probe.mode = tree ? GIT_FILEMODE_TREE : GIT_FILEMODE_BLOB;
  const auto it = std::lower_bound(t.entries.begin(), t.entries.end(), probe,
                                   [](const TreeEntry& a, const TreeEntry& b) { return tree_order(a, b) < 0; });
  return it != t.entries.end() && tree_order(*it, probe) == 0 ? &*it : nullptr;
}

// Drops from `kept` (sorted by path) each (path, blob) that the tree `root`
// of another parent holds too: a file (regular or executable) of that blob
// at that path. What a full diff against that parent and an intersection
// would keep, at the cost of a lookup per kept path instead of a diff as
// large as the merged branch (README.md, "Merges"). A tree that cannot be
// read on the way keeps the files under it (they count as new: more
// scanned, nothing lost), said once per tree.
void keep_new_against(ObjectReader& reader, TreeCache& cache, const std::shared_ptr<const ParsedTree>& root,
                      const std::string& commit, std::vector<PathBlob>& kept, std::vector<std::string>& errors) {
  std::vector<git_oid> unreadable;
  const auto in_parent = [&](const PathBlob& pb) {
    std::shared_ptr<const ParsedTree> t = root;
    std::string_view rest = pb.first;
    for (std::size_t slash = rest.find('/'); slash != std::string_view::npos; slash = rest.find('/')) {
      const TreeEntry* dir = entry_named(*t, rest.substr(0, slash), true);
      if (dir == nullptr) return false;
      const auto failed = [&](const git_oid& id) {
        return std::any_of(unreadable.begin(), unreadable.end(), [&](const git_oid& u) { return git_oid_equal(&u, &id) != 0; });
      };
      if (failed(dir->id)) return false;
      try {
        const std::string_view dir_path = std::string_view(pb.first).substr(0, pb.first.size() - rest.size() + slash);
        t = hold_tree(reader, cache, dir->id,
                      [&] { return commit + ": cannot read a parent's tree " + std::string(dir_path); });
      } catch (const GitError& err) {
        errors.emplace_back(err.what());
        unreadable.push_back(dir->id);
        return false;
      }
      rest.remove_prefix(slash + 1);
    }
    const TreeEntry* file = entry_named(*t, rest, false);
    return file != nullptr && is_file(file->mode) && git_oid_equal(&file->id, &pb.second) != 0;
  };
  kept.erase(std::remove_if(kept.begin(), kept.end(), in_parent), kept.end());
}

}  // namespace

std::shared_ptr<const ParsedTree> TreeCache::find(const git_oid& id) {
  const auto it = index_.find(id);
  if (it == index_.end()) return nullptr;
  order_.splice(order_.begin(), order_, it->second);  // now the most recent
  return *it->second;
}

std::shared_ptr<const ParsedTree> TreeCache::put(std::shared_ptr<const ParsedTree> t) {
  const std::size_t w = weight(*t);
  if (w > budget_ / 4 || index_.count(t->id) != 0) return t;
  while (used_ + w > budget_ && !order_.empty()) {
    used_ -= weight(*order_.back());
    index_.erase(order_.back()->id);
    order_.pop_back();  // a level still holding it keeps it alive
  }
  order_.push_front(t);
  index_.emplace(t->id, order_.begin());
  used_ += w;
  return t;
}

void introduced_blobs(ObjectReader& reader, DiffScratch& s, const History& history, std::uint32_t index,
                      std::vector<BlobEntry>& out, std::vector<std::string>& errors) {
  const std::string what = "commit " + hex(history.commits[index]);
  const std::span<const git_oid> parents = history.parents_of(index);
  DiffScratch::Level& root = s.level(0);
  try {
    root.tree = hold_tree(reader, s.trees, history.trees[index], [&] { return what + ": cannot read its tree"; });
  } catch (const GitError& err) {
    errors.emplace_back(err.what());
    return;
  }
  std::vector<PathBlob> kept;
  bool first = true;
  // Each parent tree that can be read; with none (a root commit, or no parent
  // tree readable), one pass against the empty tree. The first is diffed;
  // what a merge's later parents hold is then looked up, path by path (a
  // merge introduces only what differs from every parent: README.md, "Merges").
  for (std::size_t p = 0; p < parents.size() || first; ++p) {
    const bool has_old = p < parents.size();
    std::shared_ptr<const ParsedTree> old;
    if (has_old) {
      try {
        old = hold_tree(reader, s.trees, parents[p],
                        [&] { return what + ": cannot read parent " + std::to_string(p + 1) + "'s tree"; });
      } catch (const GitError& err) {  // diffed against the other parents, or taken whole
        errors.emplace_back(err.what());
        continue;
      }
    }
    if (first) {
      root.has_old = has_old;
      root.old = std::move(old);
      s.path.clear();
      changed(reader, s, 0, what, kept, errors);
      std::sort(kept.begin(), kept.end(), path_blob_less);
      first = false;
    } else {
      keep_new_against(reader, s.trees, old, what, kept, errors);
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

// history.cpp: walk_history() (history.hpp). The walk is ours, not libgit2's
// revwalk: that one stops the whole walk at the first commit it cannot read
// (a shallow clone's boundary, a damaged pack), where a scanner must go on
// with what it can read and say what it could not (README.md, "Errors").
#include "sources/git/history.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <queue>
#include <unordered_map>

#include "sources/git/object_parse.hpp"

namespace stealscan::git {
namespace {

// The commit graph as far as the walk has read it: a node per commit met
// (read or not), its parents as node numbers. One thread's.
class Graph {
 public:
  enum class State : std::uint8_t { unread, readable, unreadable };
  struct Node {
    git_oid id;
    git_oid tree{};
    std::int64_t time = 0;
    std::uint32_t parents_begin = 0;  // into parents_, set when read
    std::uint32_t parents_end = 0;
    State state = State::unread;
    bool hidden = false;  // an ancestor of the base (or the base)
    bool wanted = false;  // reached from a tip and not hidden
  };

  Graph(ObjectReader& reader, std::vector<git_oid> shallow, std::vector<std::string>& errors)
      : reader_(reader), shallow_(std::move(shallow)), errors_(errors) {}

  std::uint32_t node(const git_oid& id) {
    const auto [it, added] = index_.try_emplace(id, static_cast<std::uint32_t>(nodes_.size()));
    if (added) nodes_.push_back(Node{id});
    return it->second;
  }
  Node& at(std::uint32_t n) { return nodes_[n]; }
  [[nodiscard]] std::size_t size() const noexcept { return nodes_.size(); }
  [[nodiscard]] std::span<const std::uint32_t> parents(std::uint32_t n) const {
    return {parents_.data() + nodes_[n].parents_begin, nodes_[n].parents_end - nodes_[n].parents_begin};
  }

  // Reads node `n`'s commit, once. False if it cannot be read; the error is
  // recorded once, as "commit X (<how it was reached>): <why>".
  template <class Via>
  bool load(std::uint32_t n, const Via& via) {
    if (nodes_[n].state != State::unread) return nodes_[n].state == State::readable;
    const git_oid id = nodes_[n].id;
    std::string why;
    try {
      const ObjectReader::Object o = reader_.read(id);
      if (o.too_large) why = "larger than 1 GiB";
      else if (o.type != GIT_OBJECT_COMMIT) why = std::string("a ") + git_object_type2string(o.type) + ", not a commit";
      else if (!parse_commit(o.bytes, nodes_[n].tree, scratch_)) why = "a malformed commit";
      else nodes_[n].time = commit_time(o.bytes);
    } catch (const GitError& e) {
      why = std::string("cannot read it: ") + e.what();
    }
    if (!why.empty()) {
      nodes_[n].state = State::unreadable;
      errors_.push_back("commit " + hex(id) + " (" + via() + "): " + why);
      return false;
    }
    nodes_[n].state = State::readable;
    const bool is_shallow = std::binary_search(shallow_.begin(), shallow_.end(), id, oid_less);
    if (is_shallow && !scratch_.empty()) cut_.push_back(id);  // git takes it as a root: so do we
    const auto begin = static_cast<std::uint32_t>(parents_.size());
    if (!is_shallow)
      for (const git_oid& p : scratch_) parents_.push_back(node(p));  // may grow nodes_: no Node& held
    nodes_[n].parents_begin = begin;
    nodes_[n].parents_end = static_cast<std::uint32_t>(parents_.size());
    return true;
  }

  // Marks everything reachable from `tips` that is not hidden (or, with
  // `hide`, everything reachable) and can be read; depth first, a stack.
  void reach(const std::vector<std::pair<std::string, git_oid>>& tips, bool hide) {
    struct Item {
      std::uint32_t node;
      std::uint32_t child;  // UINT32_MAX: a tip
      std::size_t tip;
    };
    std::vector<Item> stack;
    for (std::size_t t = 0; t < tips.size(); ++t) stack.push_back(Item{node(tips[t].second), UINT32_MAX, t});
    while (!stack.empty()) {
      const Item it = stack.back();
      stack.pop_back();
      Node& n = nodes_[it.node];
      if (n.hidden || (!hide && n.wanted)) continue;
      const auto via = [&] {
        return it.child == UINT32_MAX ? tips[it.tip].first : "parent of " + hex(nodes_[it.child].id);
      };
      if (!load(it.node, via)) continue;
      (hide ? nodes_[it.node].hidden : nodes_[it.node].wanted) = true;
      for (const std::uint32_t p : parents(it.node)) stack.push_back(Item{p, it.node, it.tip});
    }
  }

  std::vector<git_oid>& cut() { return cut_; }

 private:
  ObjectReader& reader_;
  std::vector<git_oid> shallow_;  // sorted
  std::vector<std::string>& errors_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> parents_;
  std::unordered_map<git_oid, std::uint32_t, OidHash, OidEq> index_;
  std::vector<git_oid> scratch_;
  std::vector<git_oid> cut_;
};

// The commits `shallow` (in the common git directory) lists: a shallow
// clone's boundary, whose parents it does not have. Sorted. Empty when the
// repository is whole.
std::vector<git_oid> shallow_commits(git_repository* repo) {
  std::vector<git_oid> out;
  std::ifstream in(std::string(git_repository_commondir(repo)) + "shallow");
  std::string line;
  while (std::getline(in, line)) {
    git_oid id;
    if (line.size() >= GIT_OID_HEXSZ && git_oid_fromstrn(&id, line.data(), GIT_OID_HEXSZ) == 0) out.push_back(id);
  }
  std::sort(out.begin(), out.end(), oid_less);
  return out;
}

// The commit `id` peels to through annotated tags; nothing for a tag of a
// tree or blob (no history there) or when an object cannot be read (recorded).
std::optional<git_oid> peel(ObjectReader& reader, git_oid id, const std::string& what,
                            std::vector<std::string>& errors) {
  for (int depth = 0; depth < 16; ++depth) {
    std::string why;
    try {
      const ObjectReader::Object o = reader.read(id);
      if (o.too_large) {
        why = "larger than 1 GiB";
      } else if (o.type == GIT_OBJECT_COMMIT) {
        return id;
      } else if (o.type != GIT_OBJECT_TAG) {
        return std::nullopt;
      } else if (git_object_t type{}; !parse_tag(o.bytes, id, type)) {
        why = "a malformed tag";
      } else if (type != GIT_OBJECT_COMMIT && type != GIT_OBJECT_TAG) {
        return std::nullopt;
      } else {
        continue;
      }
    } catch (const GitError& e) {
      why = std::string("cannot read it: ") + e.what();
    }
    errors.push_back(what + ": object " + hex(id) + ": " + why);
    return std::nullopt;
  }
  errors.push_back(what + ": tags nested over 16 deep");
  return std::nullopt;
}

// The commit of ref `name` (HEAD or under refs/), through tags, or nothing:
// a dangling symbolic ref (refs/remotes/origin/HEAD after its branch went) and
// a tag of a tree or blob have no history; anything else that fails is an
// error naming the ref.
std::optional<git_oid> ref_commit(git_repository* repo, ObjectReader& reader, const std::string& name,
                                  std::vector<std::string>& errors) {
  const std::string what = "ref " + name;
  git_reference* r = nullptr;
  if (const int rc = git_reference_lookup(&r, repo, name.c_str()); rc < 0) {
    errors.push_back(what + ": cannot read it: " + last_error(rc));
    return std::nullopt;
  }
  const Reference ref(r);
  git_reference* resolved = nullptr;
  if (const int rc = git_reference_resolve(&resolved, r); rc < 0) {
    if (rc == GIT_ENOTFOUND && git_reference_type(r) == GIT_REFERENCE_SYMBOLIC) return std::nullopt;
    errors.push_back(what + ": cannot resolve it: " + last_error(rc));
    return std::nullopt;
  }
  const Reference owned(resolved);
  const git_oid* target = git_reference_target(resolved);
  if (target == nullptr) {
    errors.push_back(what + ": does not resolve to an object");
    return std::nullopt;
  }
  return peel(reader, *target, what, errors);
}

// The loose ref files under the common directory's refs/ that libgit2 does
// not list: it passes over a ref file it cannot parse without a word (as git
// does, with a warning), which would hide the history behind it. A file
// whose name is no ref name (`refs/.gitkeep`, a component starting with a
// dot) is no ref to git either, and is passed over.
void unlisted_ref_files(git_repository* repo, const std::vector<std::string>& listed,
                        std::vector<std::string>& errors) {
  namespace fs = std::filesystem;
  const fs::path common(git_repository_commondir(repo));
  std::error_code ec;
  for (fs::recursive_directory_iterator it(common / "refs", ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() == ".lock") continue;
    const std::string name = it->path().lexically_relative(common).generic_string();
    int valid = 0;
    if (git_reference_name_is_valid(&valid, name.c_str()) == 0 && valid == 0) continue;
    if (!std::binary_search(listed.begin(), listed.end(), name))
      errors.push_back("ref " + name + ": cannot read it: the file does not hold a ref");
  }
}

// Every ref under refs/ and HEAD, with its commit, sorted by ref name (the
// store's listing order, loose files or packed-refs, does not matter).
std::vector<std::pair<std::string, git_oid>> ref_tips(git_repository* repo, ObjectReader& reader,
                                                      std::vector<std::string>& errors) {
  git_strarray names{};
  check(git_reference_list(&names, repo), "cannot list the references");
  std::vector<std::string> all(names.strings, names.strings + names.count);
  git_strarray_dispose(&names);
  std::sort(all.begin(), all.end());
  unlisted_ref_files(repo, all, errors);
  if (const int unborn = git_repository_head_unborn(repo); unborn == 0) {
    all.insert(all.begin(), "HEAD");
  } else if (unborn < 0) {  // a HEAD that cannot be read; an unborn one has nothing to add
    errors.push_back("ref HEAD: cannot read it: " + last_error(unborn));
  }
  std::vector<std::pair<std::string, git_oid>> out;
  for (const std::string& name : all)
    if (std::optional<git_oid> id = ref_commit(repo, reader, name, errors)) out.emplace_back(name, *id);
  return out;
}

// The commit `spec` names; GitError "<what> '<spec>': ..." otherwise.
git_oid resolve(git_repository* repo, const std::string& spec, const std::string& what) {
  const std::string named = what + " '" + spec + "'";
  git_object* obj = nullptr;
  check(git_revparse_single(&obj, repo, spec.c_str()), named);
  const Object owned(obj);
  git_object* c = nullptr;
  check(git_object_peel(&c, obj, GIT_OBJECT_COMMIT), named + " is not a commit");
  const Object commit(c);
  return *git_object_id(c);
}

int collect_blob(const char* /*root*/, const git_tree_entry* entry, void* payload) {
  if (git_tree_entry_type(entry) == GIT_OBJECT_BLOB)
    static_cast<std::vector<git_oid>*>(payload)->push_back(*git_tree_entry_id(entry));
  return 0;
}

// The blobs of `base`'s tree, sorted.
std::vector<git_oid> tree_blobs(git_repository* repo, const git_oid& base, const std::string& what) {
  std::vector<git_oid> out;
  git_commit* c = nullptr;
  check(git_commit_lookup(&c, repo, &base), what);
  const Commit commit(c);
  git_tree* t = nullptr;
  check(git_commit_tree(&t, c), what + ": cannot read its tree");
  const Tree tree(t);
  check(git_tree_walk(t, GIT_TREEWALK_PRE, collect_blob, &out), what + ": cannot read its tree");
  std::sort(out.begin(), out.end(), oid_less);
  return out;
}

// The wanted commits of `g`, parents first (Kahn's algorithm): of the commits
// whose wanted parents are all out, the oldest by committer time goes next,
// ties by id. Fixed by the history alone.
std::vector<std::uint32_t> topological(Graph& g) {
  const std::size_t n = g.size();
  std::vector<std::uint32_t> pending(n, 0);
  std::vector<std::uint32_t> child_begin(n + 1, 0);
  for (std::uint32_t c = 0; c < n; ++c) {
    if (!g.at(c).wanted) continue;
    for (const std::uint32_t p : g.parents(c))
      if (g.at(p).wanted) {
        ++pending[c];
        ++child_begin[p + 1];
      }
  }
  for (std::size_t i = 0; i < n; ++i) child_begin[i + 1] += child_begin[i];
  std::vector<std::uint32_t> children(child_begin[n]);
  std::vector<std::uint32_t> fill(child_begin.begin(), child_begin.end() - 1);
  for (std::uint32_t c = 0; c < n; ++c)
    if (g.at(c).wanted)
      for (const std::uint32_t p : g.parents(c))
        if (g.at(p).wanted) children[fill[p]++] = c;
  const auto later = [&g](std::uint32_t a, std::uint32_t b) {
    const Graph::Node& x = g.at(a);
    const Graph::Node& y = g.at(b);
    if (x.time != y.time) return x.time > y.time;
    return oid_less(y.id, x.id);
  };
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, decltype(later)> ready(later);
  for (std::uint32_t c = 0; c < n; ++c)
    if (g.at(c).wanted && pending[c] == 0) ready.push(c);
  std::vector<std::uint32_t> order;
  while (!ready.empty()) {
    const std::uint32_t c = ready.top();
    ready.pop();
    order.push_back(c);
    for (std::uint32_t k = child_begin[c]; k < child_begin[c + 1]; ++k)
      if (--pending[children[k]] == 0) ready.push(children[k]);
  }
  return order;
}

}  // namespace

History walk_history(git_repository* repo, ObjectReader& reader, const HistoryRequest& request) {
  History h;
  std::vector<std::pair<std::string, git_oid>> tips;
  std::vector<std::pair<std::string, git_oid>> bases;
  if (request.range) {
    const std::string& spec = *request.range;
    const std::string what = "--range '" + spec + "'";
    if (spec.find("...") != std::string::npos)
      throw GitError(what + ": A...B (either side but not both) is not supported; use A..B");
    const std::size_t dots = spec.find("..");
    if (dots == std::string::npos) {
      tips.emplace_back(what, resolve(repo, spec, "--range"));
    } else {
      const std::string base = dots == 0 ? "HEAD" : spec.substr(0, dots);
      const std::string head = dots + 2 == spec.size() ? "HEAD" : spec.substr(dots + 2);
      bases.emplace_back(what, resolve(repo, base, "--range"));
      tips.emplace_back(what, resolve(repo, head, "--range"));
    }
  } else {
    if (request.since) bases.emplace_back("--since '" + *request.since + "'", resolve(repo, *request.since, "--since"));
    tips = ref_tips(repo, reader, h.errors);
  }
  for (const auto& [what, base] : bases) {
    std::vector<git_oid> blobs = tree_blobs(repo, base, what);
    h.excluded_blobs.insert(h.excluded_blobs.end(), blobs.begin(), blobs.end());
  }
  std::sort(h.excluded_blobs.begin(), h.excluded_blobs.end(), oid_less);
  h.excluded_blobs.erase(std::unique(h.excluded_blobs.begin(), h.excluded_blobs.end(), OidEq{}),
                         h.excluded_blobs.end());

  Graph g(reader, shallow_commits(repo), h.errors);
  g.reach(bases, true);
  g.cut().clear();  // a cut below the base loses nothing that was asked for
  g.reach(tips, false);
  h.shallow_cut = std::move(g.cut());
  std::sort(h.shallow_cut.begin(), h.shallow_cut.end(), oid_less);
  h.shallow_cut.erase(std::unique(h.shallow_cut.begin(), h.shallow_cut.end(), OidEq{}), h.shallow_cut.end());

  const std::vector<std::uint32_t> order = topological(g);
  h.commits.reserve(order.size());
  h.trees.reserve(order.size());
  h.parent_begin.reserve(order.size() + 1);
  for (const std::uint32_t c : order) {
    h.commits.push_back(g.at(c).id);
    h.trees.push_back(g.at(c).tree);
    h.parent_begin.push_back(static_cast<std::uint32_t>(h.parent_trees.size()));
    for (const std::uint32_t p : g.parents(c))
      if (g.at(p).state == Graph::State::readable) h.parent_trees.push_back(g.at(p).tree);
  }
  h.parent_begin.push_back(static_cast<std::uint32_t>(h.parent_trees.size()));
  return h;
}

}  // namespace stealscan::git

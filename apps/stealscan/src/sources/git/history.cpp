// history.cpp: walk_history() (history.hpp).
#include "sources/git/history.hpp"

#include <algorithm>

namespace stealscan::git {
namespace {

// The commit `obj` peels to, or nothing (a tag of a tree or blob, a broken ref).
std::optional<git_oid> peel_to_commit(git_object* obj) {
  git_object* c = nullptr;
  if (git_object_peel(&c, obj, GIT_OBJECT_COMMIT) < 0) return std::nullopt;
  const Object owned(c);
  return *git_object_id(c);
}

// The tips to walk from: every ref under refs/ and HEAD that peels to a
// commit, sorted and unique, so that the walk does not depend on the order
// the ref store lists them in (loose files, packed-refs).
std::vector<git_oid> tips(git_repository* repo) {
  std::vector<git_oid> out;
  git_reference_iterator* it = nullptr;
  check(git_reference_iterator_new(&it, repo), "cannot list the references");
  const ReferenceIterator owned_it(it);
  git_reference* ref = nullptr;
  int rc = 0;
  while ((rc = git_reference_next(&ref, it)) == 0) {
    const Reference owned(ref);
    git_object* obj = nullptr;
    if (git_reference_peel(&obj, ref, GIT_OBJECT_ANY) < 0) continue;  // dangling symbolic ref
    const Object owned_obj(obj);
    if (auto id = peel_to_commit(obj)) out.push_back(*id);
  }
  if (rc != GIT_ITEROVER) check(rc, "cannot list the references");
  git_object* head = nullptr;
  if (git_revparse_single(&head, repo, "HEAD") == 0) {  // an unborn HEAD has nothing to add
    const Object owned(head);
    if (auto id = peel_to_commit(head)) out.push_back(*id);
  }
  std::sort(out.begin(), out.end(), oid_less);
  const auto same = [](const git_oid& a, const git_oid& b) { return git_oid_equal(&a, &b) != 0; };
  out.erase(std::unique(out.begin(), out.end(), same), out.end());
  return out;
}

int collect_blob(const char* /*root*/, const git_tree_entry* entry, void* payload) {
  if (git_tree_entry_type(entry) == GIT_OBJECT_BLOB)
    static_cast<std::vector<git_oid>*>(payload)->push_back(*git_tree_entry_id(entry));
  return 0;
}

}  // namespace

History walk_history(git_repository* repo, const std::optional<std::string>& since) {
  // libgit2 1.5's walk does not stop at a shallow clone's boundary: it would
  // fail on the first missing parent with "object not found". Said plainly.
  if (git_repository_is_shallow(repo) == 1)
    throw GitError(std::string("'") + git_repository_path(repo) +
                   "' is a shallow clone: its history is cut off; fetch it whole first (git fetch --unshallow)");
  History h;
  git_revwalk* w = nullptr;
  check(git_revwalk_new(&w, repo), "cannot walk the history");
  const RevWalk walk(w);
  check(git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME | GIT_SORT_REVERSE), "cannot walk the history");
  for (const git_oid& tip : tips(repo)) check(git_revwalk_push(w, &tip), "cannot walk from " + hex(tip));
  if (since) {
    const std::string what = "--since '" + *since + "'";
    git_object* obj = nullptr;
    check(git_revparse_single(&obj, repo, since->c_str()), what);
    const Object owned(obj);
    git_object* c = nullptr;
    check(git_object_peel(&c, obj, GIT_OBJECT_COMMIT), what + " is not a commit");
    const Object commit(c);
    check(git_revwalk_hide(w, git_object_id(c)), what);
    git_tree* t = nullptr;
    check(git_commit_tree(&t, reinterpret_cast<git_commit*>(c)), what + ": cannot read its tree");
    const Tree tree(t);
    check(git_tree_walk(t, GIT_TREEWALK_PRE, collect_blob, &h.excluded_blobs), what + ": cannot read its tree");
    std::sort(h.excluded_blobs.begin(), h.excluded_blobs.end(), oid_less);
  }
  git_oid id;
  int rc = 0;
  while ((rc = git_revwalk_next(&id, w)) == 0) h.commits.push_back(id);
  if (rc != GIT_ITEROVER) check(rc, "cannot walk the history");
  return h;
}

}  // namespace stealscan::git

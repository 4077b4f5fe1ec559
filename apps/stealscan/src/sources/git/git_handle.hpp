// git_handle.hpp: the thin layer over libgit2 that the history scan uses
// (README.md): GitError, a libgit2 failure whose message names what was being
// done; owning handles (unique_ptr with the matching git_*_free); the
// library's one-time initialisation; opening a repository; an id as hex.
// Thread safety: libgit2 objects are not shared between threads here; each
// thread opens its own git_repository (README.md, "Threads").
#pragma once

#include <git2.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace stealscan::git {

// A libgit2 call failed, or a repository / revision cannot be used. what() is
// the whole message for the user.
struct GitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws GitError "<what>: <libgit2's message>" when rc < 0; returns rc otherwise.
int check(int rc, const std::string& what);

// libgit2's message for the failure `rc` of the call just made.
std::string last_error(int rc);

template <class T, void (*Free)(T*)>
struct GitFree {
  void operator()(T* p) const noexcept { Free(p); }
};
using Repository = std::unique_ptr<git_repository, GitFree<git_repository, git_repository_free>>;
using Odb = std::unique_ptr<git_odb, GitFree<git_odb, git_odb_free>>;
using OdbObject = std::unique_ptr<git_odb_object, GitFree<git_odb_object, git_odb_object_free>>;
using Object = std::unique_ptr<git_object, GitFree<git_object, git_object_free>>;
using Commit = std::unique_ptr<git_commit, GitFree<git_commit, git_commit_free>>;
using Tree = std::unique_ptr<git_tree, GitFree<git_tree, git_tree_free>>;
using Blob = std::unique_ptr<git_blob, GitFree<git_blob, git_blob_free>>;
using Diff = std::unique_ptr<git_diff, GitFree<git_diff, git_diff_free>>;
using RevWalk = std::unique_ptr<git_revwalk, GitFree<git_revwalk, git_revwalk_free>>;
using Reference = std::unique_ptr<git_reference, GitFree<git_reference, git_reference_free>>;
using ReferenceIterator =
    std::unique_ptr<git_reference_iterator, GitFree<git_reference_iterator, git_reference_iterator_free>>;

// git_libgit2_init(), once per process (thread-safe: a function-local static),
// with the objects' hash check turned off (git_handle.cpp says why); never
// shut down, the process exit frees it. Every function here calls it.
void ensure_libgit2();

// `path`: a work tree or a .git directory (or a bare repository); not searched
// upwards. GitError "'PATH' is not a git repository: ..." otherwise.
Repository open_repository(const std::string& path);

// The repository's objects directory (a worktree's is its main repository's).
std::string objects_dir(git_repository* repo);

// The full 40-digit lower-case hex of `id`, on the stack: for a loop over
// blobs, where a std::string per id is a malloc per blob.
class HexId {
 public:
  explicit HexId(const git_oid& id) noexcept { git_oid_tostr(buf_, sizeof buf_, &id); }
  [[nodiscard]] std::string_view view() const noexcept { return {buf_, GIT_OID_HEXSZ}; }

 private:
  char buf_[GIT_OID_HEXSZ + 1];
};

// The same as a string.
inline std::string hex(const git_oid& id) { return std::string(HexId(id).view()); }

// A strict weak order on ids (for sorting and binary search).
inline bool oid_less(const git_oid& a, const git_oid& b) noexcept { return git_oid_cmp(&a, &b) < 0; }

// Hashing and equality of ids, for unordered containers and std::unique.
struct OidHash {
  std::size_t operator()(const git_oid& id) const noexcept {
    std::size_t h = 0;
    std::memcpy(&h, id.id, sizeof h);  // ids are uniformly spread already
    return h;
  }
};
struct OidEq {
  bool operator()(const git_oid& a, const git_oid& b) const noexcept { return git_oid_equal(&a, &b) != 0; }
};

}  // namespace stealscan::git

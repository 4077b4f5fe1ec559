// git_handle.cpp: the libgit2 helpers of git_handle.hpp.
#include "sources/git/git_handle.hpp"

namespace stealscan::git {

std::string last_error(int rc) {
  const git_error* e = git_error_last();
  return e != nullptr && e->message != nullptr ? std::string(e->message) : "libgit2 error " + std::to_string(rc);
}

int check(int rc, const std::string& what) {
  if (rc >= 0) return rc;
  throw GitError(what + ": " + last_error(rc));
}

void ensure_libgit2() {
  static const int rc = [] {
    const int r = git_libgit2_init();
    // libgit2 re-hashes every object it reads (SHA-1 with collision detection)
    // by default: 12% of a history scan's CPU time, and a scanner does not
    // need it, the zlib checksums and the delta checks still catch a damaged pack
    // (README.md, "Errors").
    if (r >= 0) git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
    return r;
  }();
  if (rc < 0) throw GitError("cannot initialise libgit2");
}

Repository open_repository(const std::string& path) {
  ensure_libgit2();
  git_repository* r = nullptr;
  check(git_repository_open_ext(&r, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr),
        "'" + path + "' is not a git repository (a work tree or .git directory)");
  return Repository(r);
}

std::string objects_dir(git_repository* repo) {
  git_buf buf = GIT_BUF_INIT;
  check(git_repository_item_path(&buf, repo, GIT_REPOSITORY_ITEM_OBJECTS), "cannot find the objects directory");
  std::string dir(buf.ptr, buf.size);
  git_buf_dispose(&buf);
  return dir;
}

}  // namespace stealscan::git

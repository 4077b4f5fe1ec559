// git_repo.hpp: TestRepo, a git repository built by the tests through libgit2
// (no `git` binary): each commit is a whole snapshot (path -> contents, paths
// may hold '/'), with fixed author, email and time, on any parents; branches
// and tags (lightweight or annotated) point where the test says. The index
// is left alone unless a test sets it (index_from_head, stage).
#pragma once

#include <git2.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace stealscan::test {

class TestRepo {
 public:
  using Files = std::map<std::string, std::string>;

  // A new repository with a work tree at `dir`; HEAD is refs/heads/main.
  explicit TestRepo(const std::string& dir) {
    git_libgit2_init();
    ok(git_repository_init(&repo_, dir.c_str(), 0), "init " + dir);
    ok(git_repository_set_head(repo_, "refs/heads/main"), "set HEAD");
  }
  ~TestRepo() {
    git_repository_free(repo_);
    git_libgit2_shutdown();
  }
  TestRepo(const TestRepo&) = delete;
  TestRepo& operator=(const TestRepo&) = delete;

  // A commit of `files` on `parents`, by Alice <alice@example.com> at `when`
  // (seconds since the epoch, +01:00); `branch` (e.g. "main"), if given, is
  // set to it.
  git_oid commit(const Files& files, const std::vector<git_oid>& parents, const std::string& message,
                 const std::string& branch = "", git_time_t when = 1700000000) {
    const git_oid tree_id = tree(files, "");
    git_tree* t = nullptr;
    ok(git_tree_lookup(&t, repo_, &tree_id), "tree");
    std::vector<git_commit*> ps;
    for (const git_oid& p : parents) {
      git_commit* c = nullptr;
      ok(git_commit_lookup(&c, repo_, &p), "parent");
      ps.push_back(c);
    }
    git_signature* sig = nullptr;
    ok(git_signature_new(&sig, "Alice Example", "alice@example.com", when, 60), "signature");
    git_oid id;
    std::vector<const git_commit*> cps(ps.begin(), ps.end());
    ok(git_commit_create(&id, repo_, nullptr, sig, sig, "UTF-8", message.c_str(), t, cps.size(), cps.data()),
       "commit");
    git_signature_free(sig);
    for (git_commit* c : ps) git_commit_free(c);
    git_tree_free(t);
    if (!branch.empty()) set_ref("refs/heads/" + branch, id);
    return id;
  }

  void set_ref(const std::string& name, const git_oid& id) {
    git_reference* r = nullptr;
    ok(git_reference_create(&r, repo_, name.c_str(), &id, 1, "test"), "ref " + name);
    git_reference_free(r);
  }

  // An annotated tag `name` of commit `id`.
  void annotated_tag(const std::string& name, const git_oid& id) {
    git_object* target = nullptr;
    ok(git_object_lookup(&target, repo_, &id, GIT_OBJECT_COMMIT), "tag target");
    git_signature* sig = nullptr;
    ok(git_signature_new(&sig, "Alice Example", "alice@example.com", 1700000000, 60), "signature");
    git_oid tag;
    ok(git_tag_create(&tag, repo_, name.c_str(), target, sig, "a release", 0), "tag " + name);
    git_signature_free(sig);
    git_object_free(target);
  }

  // Writes every object reachable from the refs into one packfile (with
  // deltas, as git gc would); the loose objects stay, the pack is read first.
  void pack() {
    git_packbuilder* pb = nullptr;
    ok(git_packbuilder_new(&pb, repo_), "packbuilder");
    git_revwalk* walk = nullptr;
    ok(git_revwalk_new(&walk, repo_), "revwalk");
    ok(git_revwalk_push_glob(walk, "refs/*"), "push refs");
    ok(git_packbuilder_insert_walk(pb, walk), "pack objects");
    ok(git_packbuilder_write(pb, nullptr, 0, nullptr, nullptr), "write pack");
    git_revwalk_free(walk);
    git_packbuilder_free(pb);
  }

  // The index made HEAD's tree again (as after a checkout), written.
  void index_from_head() {
    git_object* tree = nullptr;
    ok(git_revparse_single(&tree, repo_, "HEAD^{tree}"), "HEAD's tree");
    git_index* index = nullptr;
    ok(git_repository_index(&index, repo_), "index");
    ok(git_index_read_tree(index, reinterpret_cast<git_tree*>(tree)), "read tree");
    ok(git_index_write(index), "write index");
    git_index_free(index);
    git_object_free(tree);
  }

  // `git add PATH` (the file as it is in the work tree), or `git rm --cached PATH`.
  void stage(const std::string& path) { edit_index(path, true); }
  void unstage_removed(const std::string& path) { edit_index(path, false); }

  static std::string hex(const git_oid& id) {
    char buf[GIT_OID_HEXSZ + 1];
    git_oid_tostr(buf, sizeof buf, &id);
    return buf;
  }

 private:
  static void ok(int rc, const std::string& what) {
    if (rc >= 0) return;
    const git_error* e = git_error_last();
    throw std::runtime_error("test repo: " + what + ": " + (e != nullptr ? e->message : "?"));
  }

  void edit_index(const std::string& path, bool add) {
    git_index* index = nullptr;
    ok(git_repository_index(&index, repo_), "index");
    ok(add ? git_index_add_bypath(index, path.c_str()) : git_index_remove_bypath(index, path.c_str()),
       "index " + path);
    ok(git_index_write(index), "write index");
    git_index_free(index);
  }

  // The blob of `contents`, written once (each write opens files: slow on
  // some file systems, and a snapshot repeats most of its files).
  git_oid blob(const std::string& contents, const std::string& path) {
    const auto it = blobs_.find(contents);
    if (it != blobs_.end()) return it->second;
    git_oid id;
    ok(git_blob_create_from_buffer(&id, repo_, contents.data(), contents.size()), "blob " + path);
    return blobs_.emplace(contents, id).first->second;
  }

  // The tree of the `files` under `prefix` ("" or "dir/"), written once per
  // distinct content (keyed by its entries).
  git_oid tree(const Files& files, const std::string& prefix) {
    std::vector<std::pair<std::string, git_oid>> entries;  // name -> blob
    std::map<std::string, bool> subdirs;
    std::string key = prefix;
    for (const auto& [path, contents] : files) {
      if (path.rfind(prefix, 0) != 0) continue;
      const std::string rest = path.substr(prefix.size());
      const std::size_t slash = rest.find('/');
      if (slash != std::string::npos) {
        subdirs[rest.substr(0, slash)] = true;
        continue;
      }
      entries.emplace_back(rest, blob(contents, path));
      key += "\n" + rest + " " + hex(entries.back().second);
    }
    std::vector<std::pair<std::string, git_oid>> subtrees;
    for (const auto& [dir, unused] : subdirs) {
      subtrees.emplace_back(dir, tree(files, prefix + dir + "/"));
      key += "\n" + dir + "/ " + hex(subtrees.back().second);
    }
    const auto it = trees_.find(key);
    if (it != trees_.end()) return it->second;
    git_treebuilder* b = nullptr;
    ok(git_treebuilder_new(&b, repo_, nullptr), "treebuilder");
    for (const auto& [name, id] : entries)
      ok(git_treebuilder_insert(nullptr, b, name.c_str(), &id, GIT_FILEMODE_BLOB), "insert " + prefix + name);
    for (const auto& [name, id] : subtrees)
      ok(git_treebuilder_insert(nullptr, b, name.c_str(), &id, GIT_FILEMODE_TREE), "insert " + prefix + name);
    git_oid id;
    ok(git_treebuilder_write(&id, b), "write tree");
    git_treebuilder_free(b);
    return trees_.emplace(key, id).first->second;
  }

  git_repository* repo_ = nullptr;
  std::map<std::string, git_oid> blobs_;  // contents -> id
  std::map<std::string, git_oid> trees_;  // entries -> id
};

}  // namespace stealscan::test

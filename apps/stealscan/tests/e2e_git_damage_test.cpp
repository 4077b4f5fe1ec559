// End to end: `stealscan secrets --git` on repositories that are not whole,
// and on parts of a history. Never a silent "clean": a pack cut short, a
// garbage or missing object, a ref that cannot be read are each an error
// naming it, the scan goes on with what can be read (its findings reported),
// and the status is 2. A shallow clone is scanned as far as it goes, its
// boundary commits named, status 2 unless --shallow-ok; a range inside it is
// scanned with no complaint. --range A..B, A.., B.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/git_repo.hpp"
#include "support/mini_json.hpp"
#include "support/run_process.hpp"
#include "support/secrets_run.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_git_damage_test {
namespace {

namespace fs = std::filesystem;

const std::string kBin = STEALSCAN_BIN;
const std::string kAlnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// A distinct GitHub token for each n.
std::string token(std::size_t n) {
  std::string s = "ghp_";
  for (std::size_t i = 0; i < 36; ++i) s += kAlnum[(i * 11 + n * 17 + i * n) % kAlnum.size()];
  return s;
}

ProcessResult secrets(std::vector<std::string> args) {
  args.insert(args.begin(), {"-j", "2"});
  return run_secrets_json(kBin, args);
}

// "commit:file" per finding, sorted.
std::vector<std::string> found(const ProcessResult& r) {
  const Json doc = parse_json(r.out);
  EXPECT_EQ(doc.kind, Json::Kind::array) << r.out << r.err;
  std::vector<std::string> out;
  for (const Json& f : doc.items) out.push_back(f["Commit"].str + ":" + f["File"].str);
  std::sort(out.begin(), out.end());
  return out;
}

std::string at(const git_oid& c, const std::string& file) { return TestRepo::hex(c) + ":" + file; }

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

bool says(const ProcessResult& r, const std::string& what) { return r.err.find(what) != std::string::npos; }

// Where a loose object lives.
std::string loose(const TempTree& t, const std::string& repo, const git_oid& id) {
  const std::string hex = TestRepo::hex(id);
  return t.path(repo + "/.git/objects/" + hex.substr(0, 2) + "/" + hex.substr(2));
}

void overwrite(const std::string& path, const std::string& bytes) {
  fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

git_oid blob_id(const std::string& contents) {
  git_oid id;
  git_odb_hash(&id, contents.data(), contents.size(), GIT_OBJECT_BLOB);
  return id;
}

// c1 (a.txt), c2 (+ b.txt), c3 (+ c.txt) on main, each file a token, one
// second apart.
struct ThreeCommits {
  git_oid c1, c2, c3;
  explicit ThreeCommits(TestRepo& repo) {
    TestRepo::Files f{{"a.txt", token(1) + "\n"}};
    c1 = repo.commit(f, {}, "one", "main", 1700000000);
    f["b.txt"] = token(2) + "\n";
    c2 = repo.commit(f, {c1}, "two", "main", 1700000001);
    f["c.txt"] = token(3) + "\n";
    c3 = repo.commit(f, {c2}, "three", "main", 1700000002);
  }
};

TEST(GitDamage, a_pack_cut_short_is_an_error_and_the_history_still_readable_is_scanned) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  std::vector<git_oid> parent;
  TestRepo::Files f;
  for (int i = 0; i < 20; ++i) {
    f["conf.txt"] = "version " + std::to_string(i) + "\n" + (i == 5 ? token(5) + "\n" : "");
    parent = {repo.commit(f, parent, "c", "main", 1700000000 + i)};
  }
  repo.pack();
  for (const auto& e : fs::directory_iterator(t.path("repo/.git/objects")))
    if (e.path().filename().string().size() == 2) fs::remove_all(e.path());
  f["new.txt"] = token(6) + "\n";  // a loose commit on top of the packed history
  const git_oid top = repo.commit(f, parent, "new", "main", 1700000100);
  for (const auto& e : fs::directory_iterator(t.path("repo/.git/objects/pack")))
    if (e.path().extension() == ".pack") fs::resize_file(e.path(), fs::file_size(e.path()) / 2);

  const ProcessResult r = secrets({"--git", t.path("repo")});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(says(r, "could not be read")) << r.err;
  EXPECT_TRUE(says(r, "cannot read")) << r.err;
  const std::vector<std::string> got = found(r);
  EXPECT_NE(std::find(got.begin(), got.end(), at(top, "new.txt")), got.end()) << r.out << r.err;
}

TEST(GitDamage, a_garbage_commit_is_an_error_naming_it_and_its_children_are_scanned_whole) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const ThreeCommits h(repo);
  overwrite(loose(t, "repo", h.c2), "this is not a zlib stream");
  const ProcessResult r = secrets({"--git", t.path("repo")});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(says(r, "commit " + TestRepo::hex(h.c2) + " (parent of " + TestRepo::hex(h.c3) + ")")) << r.err;
  EXPECT_TRUE(says(r, "1 object could not be read")) << r.err;
  // c3's parent cannot be read: c3 is taken whole, so nothing it holds is missed.
  EXPECT_EQ(found(r), sorted({at(h.c3, "a.txt"), at(h.c3, "b.txt"), at(h.c3, "c.txt")}));
}

TEST(GitDamage, a_missing_blob_is_an_error_naming_it_and_the_others_are_reported) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const ThreeCommits h(repo);
  const git_oid b = blob_id(token(2) + "\n");
  fs::remove(loose(t, "repo", b));
  const ProcessResult r = secrets({"--git", t.path("repo")});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(says(r, "blob " + TestRepo::hex(b) + " in commit " + TestRepo::hex(h.c2))) << r.err;
  EXPECT_EQ(found(r), sorted({at(h.c1, "a.txt"), at(h.c3, "c.txt")}));
}

TEST(GitDamage, a_ref_that_cannot_be_read_is_an_error_a_dangling_symbolic_one_is_not) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const ThreeCommits h(repo);
  const std::vector<std::string> all = sorted({at(h.c1, "a.txt"), at(h.c2, "b.txt"), at(h.c3, "c.txt")});

  // refs/remotes/origin/HEAD left pointing at a branch that went: git passes it over.
  t.write("repo/.git/refs/remotes/origin/HEAD", "ref: refs/remotes/origin/gone\n");
  const ProcessResult dangling = secrets({"--git", t.path("repo")});
  EXPECT_EQ(dangling.status, 1) << dangling.err;
  EXPECT_EQ(found(dangling), all);

  // A ref naming a commit that is not there.
  t.write("repo/.git/refs/heads/lost", std::string(40, 'e') + "\n");
  const ProcessResult lost = secrets({"--git", t.path("repo")});
  EXPECT_EQ(lost.status, 2) << lost.err;
  EXPECT_TRUE(says(lost, "ref refs/heads/lost")) << lost.err;
  EXPECT_EQ(found(lost), all);

  // A ref file that is not a ref at all.
  fs::remove(t.path("repo/.git/refs/heads/lost"));
  t.write("repo/.git/refs/heads/broken", "not an id\n");
  const ProcessResult broken = secrets({"--git", t.path("repo")});
  EXPECT_EQ(broken.status, 2) << broken.err;
  EXPECT_TRUE(says(broken, "refs/heads/broken")) << broken.err;
  EXPECT_EQ(found(broken), all);

  // A file under refs/ whose name is no ref name (`.gitkeep`, kept in some
  // repositories) is no ref to git either: passed over, not an error.
  fs::remove(t.path("repo/.git/refs/heads/broken"));
  t.write("repo/.git/refs/.gitkeep", "");
  t.write("repo/.git/refs/heads/.hidden", "");
  const ProcessResult kept = secrets({"--git", t.path("repo")});
  EXPECT_EQ(kept.status, 1) << kept.err;
  EXPECT_EQ(found(kept), all);
}

// c2 is the boundary of a shallow clone: git has written it to .git/shallow,
// and c1 (its parent) and c1's tree are not in the clone.
void make_shallow(const TempTree& t, TestRepo& repo, const ThreeCommits& h) {
  t.write("repo/.git/shallow", TestRepo::hex(h.c2) + "\n");
  git_repository* r = nullptr;
  ASSERT_EQ(git_repository_open(&r, t.path("repo").c_str()), 0);
  git_commit* c = nullptr;
  ASSERT_EQ(git_commit_lookup(&c, r, &h.c1), 0);
  const git_oid tree = *git_commit_tree_id(c);
  git_commit_free(c);
  git_repository_free(r);
  fs::remove(loose(t, "repo", h.c1));
  fs::remove(loose(t, "repo", tree));
  (void)repo;
}

TEST(GitDamage, a_shallow_clone_is_scanned_as_far_as_it_goes_and_its_cut_named) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const ThreeCommits h(repo);
  make_shallow(t, repo, h);
  // The boundary commit is taken whole (a.txt with it), as git shows it.
  const std::vector<std::string> present = sorted({at(h.c2, "a.txt"), at(h.c2, "b.txt"), at(h.c3, "c.txt")});

  const ProcessResult cut = secrets({"--git", t.path("repo")});
  EXPECT_EQ(cut.status, 2) << cut.err;
  EXPECT_TRUE(says(cut, "is a shallow clone")) << cut.err;
  EXPECT_TRUE(says(cut, TestRepo::hex(h.c2))) << cut.err;
  EXPECT_TRUE(says(cut, "--shallow-ok")) << cut.err;
  EXPECT_FALSE(says(cut, "could not be read")) << cut.err;  // a cut is not damage
  EXPECT_EQ(found(cut), present);

  const ProcessResult ok = secrets({"--git", "--shallow-ok", t.path("repo")});
  EXPECT_EQ(ok.status, 1) << ok.err;
  EXPECT_TRUE(says(ok, TestRepo::hex(h.c2))) << ok.err;  // still said, no longer an error
  EXPECT_EQ(found(ok), present);

  // A pull request's range whose commits are all here: no complaint.
  const ProcessResult range = secrets({"--git", "--range", TestRepo::hex(h.c2) + "..main", t.path("repo")});
  EXPECT_EQ(range.status, 1) << range.err;
  EXPECT_FALSE(says(range, "shallow")) << range.err;
  EXPECT_EQ(found(range), sorted({at(h.c3, "c.txt")}));

  // A range that reaches past the boundary is cut like the whole history.
  const ProcessResult past = secrets({"--git", "--range", "main", t.path("repo")});
  EXPECT_EQ(past.status, 2) << past.err;
  EXPECT_EQ(found(past), present);
}

TEST(GitDamage, a_range_scans_the_commits_of_its_head_not_of_its_base) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const ThreeCommits h(repo);
  const git_oid side = repo.commit({{"a.txt", token(1) + "\n"}, {"d.txt", token(4) + "\n"}}, {h.c1}, "side",
                                   "side", 1700000005);
  const ProcessResult all = secrets({"--git", t.path("repo")});
  EXPECT_EQ(found(all), sorted({at(h.c1, "a.txt"), at(h.c2, "b.txt"), at(h.c3, "c.txt"),
                                                  at(side, "d.txt")}));

  const std::string c1 = TestRepo::hex(h.c1);
  EXPECT_EQ(found(secrets({"--git", "--range", c1 + "..main", t.path("repo")})),
            sorted({at(h.c2, "b.txt"), at(h.c3, "c.txt")}));
  EXPECT_EQ(found(secrets({"--git", "--range", "main", t.path("repo")})),
            sorted({at(h.c1, "a.txt"), at(h.c2, "b.txt"), at(h.c3, "c.txt")}));
  EXPECT_EQ(found(secrets({"--git", "--range", TestRepo::hex(h.c2) + "..", t.path("repo")})),  // HEAD: main
            sorted({at(h.c3, "c.txt")}));
  EXPECT_EQ(found(secrets({"--git", "--range", "main..side", t.path("repo")})),
            sorted({at(side, "d.txt")}));
  // A range with nothing in it is clean.
  const ProcessResult none = secrets({"--git", "--range", "main..main", t.path("repo")});
  EXPECT_EQ(none.status, 0) << none.err;

  const ProcessResult bad = secrets({"--git", "--range", "nope..main", t.path("repo")});
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(says(bad, "--range 'nope'")) << bad.err;
  const ProcessResult sym = secrets({"--git", "--range", "main...side", t.path("repo")});
  EXPECT_EQ(sym.status, 2);
  EXPECT_TRUE(says(sym, "A...B")) << sym.err;
  const ProcessResult both = secrets({"--git", "--since", "main", "--range", "main", t.path("repo")});
  EXPECT_EQ(both.status, 2);
  EXPECT_TRUE(says(both, "cannot be combined")) << both.err;
  const ProcessResult alone = secrets({"--range", "main", t.path("repo")});
  EXPECT_EQ(alone.status, 2);
  EXPECT_TRUE(says(alone, "--range needs --git")) << alone.err;
}

}  // namespace
}  // namespace e2e_git_damage_test
}  // namespace stealscan::test

// Which blobs a commit introduces (src/sources/git/blob_index.hpp): each
// commit of generated histories, merges and octopus merges among them,
// against an oracle that shares none of its code: every file of the
// commit's tree and of its parents' trees listed through libgit2's tree
// walk, and a (path, blob) kept when no parent has that blob at that path.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sources/git/blob_index.hpp"
#include "sources/git/git_handle.hpp"
#include "sources/git/history.hpp"
#include "sources/git/object_reader.hpp"
#include "sources/git/pack_file.hpp"
#include "support/git_repo.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace git_blob_index_test {
namespace {

using PathBlobs = std::set<std::pair<std::string, std::string>>;  // (path, blob hex)

// Every regular file under a commit's tree, through libgit2's walk.
PathBlobs files_of(git_repository* repo, const git_oid& commit) {
  git_commit* c = nullptr;
  EXPECT_EQ(git_commit_lookup(&c, repo, &commit), 0);
  git_tree* tree = nullptr;
  EXPECT_EQ(git_commit_tree(&tree, c), 0);
  PathBlobs out;
  git_tree_walk(
      tree, GIT_TREEWALK_PRE,
      [](const char* root, const git_tree_entry* e, void* payload) {
        if (git_tree_entry_filemode(e) == GIT_FILEMODE_BLOB)
          static_cast<PathBlobs*>(payload)->emplace(std::string(root) + git_tree_entry_name(e),
                                                    TestRepo::hex(*git_tree_entry_id(e)));
        return 0;
      },
      &out);
  git_tree_free(tree);
  git_commit_free(c);
  return out;
}

// The oracle: the files of `commit` that no parent has, path and blob alike.
PathBlobs new_against_parents(git_repository* repo, const git_oid& commit) {
  git_commit* c = nullptr;
  EXPECT_EQ(git_commit_lookup(&c, repo, &commit), 0);
  std::vector<PathBlobs> parents;
  for (unsigned p = 0; p < git_commit_parentcount(c); ++p) parents.push_back(files_of(repo, *git_commit_parent_id(c, p)));
  git_commit_free(c);
  PathBlobs out;
  for (const auto& f : files_of(repo, commit))
    if (std::none_of(parents.begin(), parents.end(), [&](const PathBlobs& p) { return p.count(f) != 0; }))
      out.insert(f);
  return out;
}

// One of four contents (few: blobs recur across paths and commits).
std::string content(std::mt19937& rng) {
  std::string c = "v";
  c.append(std::to_string(rng() % 4)).push_back('\n');
  return c;
}

// Paths at several depths; "q" is a file in some commits and a directory in
// others (never both in one commit), so trees meet files of their name.
const std::vector<std::string> kPaths = {"a.txt", "b.txt",     "d/c.txt", "d/e/f.txt", "d/e/g.txt", "d/h/i.txt",
                                         "x/y.txt", "x/z/w.txt", "q",       "q/r.txt",   "zz.txt"};

TestRepo::Files random_files(std::mt19937& rng) {
  TestRepo::Files files;
  for (const std::string& p : kPaths) {
    if (rng() % 3 == 0) continue;
    if (p == "q/r.txt" && files.count("q") != 0) continue;
    files[p] = content(rng);
  }
  return files;
}

// A commit that changes a few paths of `base` (removes, rewrites, adds).
TestRepo::Files edit(std::mt19937& rng, TestRepo::Files files) {
  for (int k = 1 + static_cast<int>(rng() % 3); k > 0; --k) {
    const std::string& p = kPaths[rng() % kPaths.size()];
    if (rng() % 4 == 0) {
      files.erase(p);
    } else if (!(p == "q/r.txt" && files.count("q") != 0) && !(p == "q" && files.count("q/r.txt") != 0)) {
      files[p] = content(rng);
    }
  }
  return files;
}

TEST(GitBlobIndex, a_commit_introduces_the_files_no_parent_has_at_that_path) {
  std::mt19937 rng(42);
  std::size_t merges = 0, octopus = 0, kept_by_merges = 0, dropped_by_later_parents = 0;
  for (int history = 0; history < 6; ++history) {
    TempTree t;
    std::vector<git_oid> commits;
    std::vector<TestRepo::Files> snapshots;
    {
      TestRepo repo(t.path("repo"));
      for (int i = 0; i < 40; ++i) {
        std::vector<git_oid> parents;
        TestRepo::Files files;
        if (!commits.empty()) {
          const std::size_t first = rng() % commits.size();
          parents.push_back(commits[first]);
          files = edit(rng, snapshots[first]);
          for (int extra = static_cast<int>(rng() % 4) - 1; extra > 0; --extra) {  // 2 or 3 parents, sometimes
            const std::size_t other = rng() % commits.size();
            if (other == first) continue;
            parents.push_back(commits[other]);
            // A merge takes some of the other side's files, as merges do.
            for (const auto& [path, bytes] : snapshots[other]) {
              const bool clash = (path == "q" && files.count("q/r.txt") != 0) || (path == "q/r.txt" && files.count("q") != 0);
              if (rng() % 2 == 0 && !clash) files[path] = bytes;
            }
          }
          if (rng() % 8 == 0) files = random_files(rng);  // a merge that rewrites much
        } else {
          files = random_files(rng);
        }
        const std::string name = std::string("c").append(std::to_string(i));
        commits.push_back(repo.commit(files, parents, name, name));  // a branch each: every commit is walked
        snapshots.push_back(files);
      }
      if (history % 2 == 1) repo.pack();  // through our pack reader, and through libgit2's loose objects
    }
    const git::Repository repo = git::open_repository(t.path("repo"));
    const git::PackSet packs = git::PackSet::open(git::objects_dir(repo.get()));
    git_odb* odb = nullptr;
    ASSERT_EQ(git_repository_odb(&odb, repo.get()), 0);
    const git::Odb owned(odb);
    git::ObjectReader reader(packs, odb);
    const git::History h = git::walk_history(repo.get(), reader, git::HistoryRequest{});
    ASSERT_EQ(h.commits.size(), commits.size());
    git::DiffScratch scratch;
    for (std::uint32_t i = 0; i < h.commits.size(); ++i) {
      std::vector<git::BlobEntry> out;
      std::vector<std::string> errors;
      git::introduced_blobs(reader, scratch, h, i, out, errors);
      EXPECT_TRUE(errors.empty()) << errors.front();
      PathBlobs got;
      for (const git::BlobEntry& e : out) {
        EXPECT_EQ(e.commit, i);
        got.emplace(e.path, TestRepo::hex(e.blob));
      }
      const PathBlobs want = new_against_parents(repo.get(), h.commits[i]);
      ASSERT_EQ(got, want) << "history " << history << ", commit " << TestRepo::hex(h.commits[i]);
      if (h.parents_of(i).size() > 1) {
        ++merges;
        octopus += h.parents_of(i).size() > 2 ? 1 : 0;
        kept_by_merges += want.size();
        // What the first parent alone would have let through.
        git_commit* c = nullptr;
        ASSERT_EQ(git_commit_lookup(&c, repo.get(), &h.commits[i]), 0);
        const PathBlobs first = files_of(repo.get(), *git_commit_parent_id(c, 0));
        git_commit_free(c);
        for (const auto& f : files_of(repo.get(), h.commits[i])) dropped_by_later_parents += first.count(f) == 0 && want.count(f) == 0;
      }
    }
  }
  // The histories do hold what the test is about.
  EXPECT_GT(merges, 40U);
  EXPECT_GT(octopus, 10U);
  EXPECT_GT(kept_by_merges, 20U);
  EXPECT_GT(dropped_by_later_parents, 40U);
}

}  // namespace
}  // namespace git_blob_index_test
}  // namespace stealscan::test

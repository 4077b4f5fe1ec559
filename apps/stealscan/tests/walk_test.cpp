// walk_test.cpp: the walk as directory tasks on the executor (scan/file_feed.hpp)
// finds exactly the files the one-thread walk (Walker::walk) finds, at 1 to 16
// workers, with a budget that queues every file and one that makes the walking
// workers scan most files themselves; every path block and budget unit comes back.
// Runs under ThreadSanitizer and ASan (label `concurrency`): [SCAN-directory-handoff].
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "scan/file_feed.hpp"
#include "support/temp_tree.hpp"
#include "walk/walker.hpp"

namespace stealscan {
namespace {

using test::TempTree;

struct RecordingScratch {
  std::vector<std::string>* seen;
  Tally* tally;
  WalkScratch walk = {};
};

class Collect final : public WalkVisitor {
 public:
  void on_file(std::string_view path) override { files.emplace_back(path); }
  void on_operand(std::string_view path) override { files.emplace_back(path); }
  std::vector<std::string> files;
};

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> one_thread(const std::vector<std::string>& roots, const WalkOptions& options) {
  std::string messages;
  Diagnostics diag(messages);
  Tally tally;
  Walker walker(options, diag);
  Collect c;
  for (const std::string& r : roots) walker.walk(r, c, tally);
  return sorted(std::move(c.files));
}

struct TaskWalk {
  std::vector<std::string> files;
  std::size_t units_left;
  std::uint64_t errors;
  std::uint64_t loops;
};

TaskWalk on_workers(const std::vector<std::string>& roots, const WalkOptions& options, std::size_t workers,
                    std::size_t max_in_flight) {
  std::string messages;
  Diagnostics diag(messages);
  InFlightBudget budget(max_in_flight);
  std::vector<Tally> tallies(workers + 1);
  std::vector<std::vector<std::string>> seen(workers);
  const stealpool::MetricsSnapshot m = feed_files<RecordingScratch>(
      FeedSettings{roots, options, workers, false}, budget, tallies, diag,
      [&](std::size_t id) { return RecordingScratch{&seen[id], &tallies[id]}; },
      [&budget](ScanTask t, stealpool::WorkerCtx<ScanTask, RecordingScratch>& ctx) {
        ctx.scratch().seen->emplace_back(t.path, t.number);
        PathBlock::release(t.block);
        budget.release();
      });
  EXPECT_FALSE(m.first_exception);
  TaskWalk out{{}, budget.in_flight(), 0, 0};
  for (auto& v : seen) out.files.insert(out.files.end(), v.begin(), v.end());
  out.files = sorted(std::move(out.files));
  for (const Tally& t : tallies) {
    out.errors += t.errors.load();
    out.loops += t.loops.load();
  }
  return out;
}

// A tree with every kind of decision in it, and directories larger than one
// batch (64 entries) of files and of subdirectories.
void build_tree(const TempTree& t) {
  for (int i = 0; i < 150; ++i) t.write("wide/f" + std::to_string(i) + ".txt", "x");
  for (int i = 0; i < 130; ++i) {
    t.write("many/d" + std::to_string(i) + "/a.txt", "x");
    t.write("many/d" + std::to_string(i) + "/b.log", "x");
  }
  t.write("deep/1/2/3/4/5/6/7/8/leaf.c", "x");
  t.write(".gitignore", "*.log\nbuild/\n!keep.log\n");
  t.write("keep.log", "x");
  t.write("build/out.o", "x");
  t.write(".hidden/secret.txt", "x");
  t.write(".dotfile", "x");
  t.write("nested/.git/HEAD", "ref: refs/heads/main\n");
  t.write("nested/.gitignore", "*.tmp\n");
  t.write("nested/x.tmp", "x");
  t.write("nested/x.log", "x");  // the outer *.log stops at the repository
  t.write("nested/y.c", "x");
  t.write("sub/.ignore", "!*.log\n");
  t.write("sub/z.log", "x");
  t.mkdir("empty");
  t.symlink("..", "deep/1/up");          // a loop, followed only with -L
  t.symlink("../wide", "links/to_wide"); // a directory by a link
}

TEST(WalkTasks, find_the_files_the_one_thread_walk_finds_at_any_worker_count_and_budget) {
  TempTree t;
  build_tree(t);
  const std::vector<std::string> roots = {t.root(), t.path("wide/f1.txt")};
  WalkOptions plain;
  WalkOptions everything;
  everything.hidden = true;
  everything.gitignore = false;
  WalkOptions globbed;
  globbed.globs.push_back(GlobOption{"!many/d1*", false});
  for (const WalkOptions* o : {&plain, &everything, &globbed}) {
    const std::vector<std::string> want = one_thread(roots, *o);
    ASSERT_GE(want.size(), 240u);  // several batches of files and of subdirectories
    for (std::size_t workers : {1u, 2u, 4u, 16u}) {
      for (std::size_t budget : {1024u, 3u}) {
        const TaskWalk got = on_workers(roots, *o, workers, budget);
        EXPECT_EQ(got.files, want) << workers << " workers, budget " << budget;
        EXPECT_EQ(got.units_left, 0u);
        EXPECT_EQ(got.errors, 0u);
      }
    }
  }
}

TEST(WalkTasks, a_followed_loop_is_reported_once_and_the_rest_walked) {
  TempTree t;
  build_tree(t);
  WalkOptions follow;
  follow.follow = true;
  const std::vector<std::string> roots = {t.root()};
  const std::vector<std::string> want = one_thread(roots, follow);
  for (std::size_t workers : {1u, 3u, 16u}) {
    const TaskWalk got = on_workers(roots, follow, workers, 16);
    EXPECT_EQ(got.files, want) << workers << " workers";
    EXPECT_EQ(got.loops, 1u);
  }
  // Through the link, wide/'s files are there twice.
  EXPECT_EQ(std::count_if(want.begin(), want.end(), [](const std::string& p) { return p.find("/links/to_wide/") != std::string::npos; }),
            150);
}

TEST(WalkTasks, the_rules_of_the_tree_decide_what_the_walk_finds) {
  TempTree t;
  build_tree(t);
  const std::vector<std::string> got = on_workers({t.root()}, WalkOptions{}, 4, 1024).files;
  auto has = [&](const std::string& rel) { return std::binary_search(got.begin(), got.end(), t.path(rel)); };
  EXPECT_TRUE(has("keep.log"));
  EXPECT_TRUE(has("sub/z.log"));
  EXPECT_TRUE(has("nested/x.log"));
  EXPECT_TRUE(has("nested/y.c"));
  EXPECT_TRUE(has("deep/1/2/3/4/5/6/7/8/leaf.c"));
  EXPECT_TRUE(has("many/d129/a.txt"));
  EXPECT_FALSE(has("many/d0/b.log"));
  EXPECT_FALSE(has("build/out.o"));
  EXPECT_FALSE(has("nested/x.tmp"));
  EXPECT_FALSE(has(".dotfile"));
  EXPECT_FALSE(has(".hidden/secret.txt"));
  EXPECT_EQ(got.size(), 150u + 130u + 5u);
}

}  // namespace
}  // namespace stealscan

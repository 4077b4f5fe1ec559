// walk_test.cpp: the walk as directory tasks on the executor (scan/file_feed.hpp)
// finds exactly the files the one-thread walk (Walker::walk) finds, at 1 to 16
// workers, with a budget that queues every file and one that makes the walking
// workers scan most files themselves; every path block and budget unit comes back.
// Runs under ThreadSanitizer and ASan (label `concurrency`): [SCAN-directory-handoff].
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "scan/file_feed.hpp"
#include "support/temp_tree.hpp"
#include "walk/walker.hpp"

namespace stealscan {
// Named after the file: test binaries compile several files as one unit.
namespace walk_test {
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

// Every directory a one-thread walk reads below `top`, depth first: its path,
// whether read() took it, and the paths it kept, sorted.
struct ReadDir {
  std::string path;
  bool ok;
  std::vector<std::string> kept;
};

ReadDir read_one(const Walker& w, Directory& d, std::vector<std::unique_ptr<Directory>>* subdirs) {
  Tally tally;
  WalkScratch scratch;
  ReadDir r{d.path(), w.read(d, scratch, tally), {}};
  std::string path;
  if (r.ok) {
    for (const Directory::Entry& e : d.take(d.remaining())) {
      r.kept.emplace_back(d.entry_path(e, path));
      if (e.is_dir && subdirs != nullptr) subdirs->push_back(d.child(e));
    }
  }
  r.kept = sorted(std::move(r.kept));
  return r;
}

std::vector<ReadDir> read_all(const Walker& w, std::unique_ptr<Directory> top) {
  std::vector<ReadDir> out;
  std::vector<std::unique_ptr<Directory>> stack;
  stack.push_back(std::move(top));
  while (!stack.empty()) {
    std::unique_ptr<Directory> d = std::move(stack.back());
    stack.pop_back();
    out.push_back(read_one(w, *d, &stack));
  }
  return out;
}

// stealscan-mpi sends a directory task to another rank as its path; there it
// is rebuilt (Walker::rebuild) and must keep what the walk would have kept:
// the ignore files above it (a nested repository's boundary included), and
// with -L the ancestors that make a link back up a loop.
TEST(WalkRebuild, a_directory_rebuilt_from_its_path_keeps_what_the_walk_kept_there) {
  TempTree t;
  build_tree(t);
  t.write("nested/inner/a.log", "x");  // kept: the outer *.log stops at nested's .git
  t.write("nested/inner/b.tmp", "x");  // ignored by nested/.gitignore
  t.write("sub/deeper/c.log", "x");    // kept by sub/.ignore's !*.log
  t.write("sub/deeper/d.txt", "x");
  for (const bool follow : {false, true}) {
    WalkOptions options;
    options.follow = follow;
    std::string messages;
    Diagnostics diag(messages);
    Walker w(options, diag);
    const std::unique_ptr<Directory> top = w.directory_operand(t.root());
    ASSERT_TRUE(top);
    Tally tally;
    const std::vector<ReadDir> walked = read_all(w, w.rebuild(*top, t.root(), tally));
    ASSERT_GT(walked.size(), 140u);
    std::size_t loops = 0;
    for (const ReadDir& want : walked) {
      std::unique_ptr<Directory> again = w.rebuild(*top, want.path, tally);
      ASSERT_TRUE(again) << want.path;
      const ReadDir got = read_one(w, *again, nullptr);
      EXPECT_EQ(got.ok, want.ok) << want.path << (follow ? " with -L" : "");
      EXPECT_EQ(got.kept, want.kept) << want.path << (follow ? " with -L" : "");
      loops += want.ok ? 0 : 1;
    }
    EXPECT_EQ(loops, follow ? 1u : 0u);  // deep/1/up, a link to deep
    EXPECT_EQ(tally.errors.load(), 0u);
    const auto inner = std::find_if(walked.begin(), walked.end(),
                                    [&](const ReadDir& d) { return d.path == t.path("nested/inner"); });
    ASSERT_NE(inner, walked.end());
    EXPECT_EQ(inner->kept, std::vector<std::string>{t.path("nested/inner/a.log")});
  }
}

// build_tree's tree, a Walker with the default options, and the operand's Directory.
struct RebuildTree {
  RebuildTree() { build_tree(t); }
  TempTree t;
  std::string messages;
  Diagnostics diag{messages};
  Walker w{WalkOptions{}, diag};
  std::unique_ptr<Directory> top = w.directory_operand(t.root());
  Tally tally;
};

TEST(WalkRebuild, a_path_not_below_the_operand_or_with_dot_dot_is_refused_naming_it) {
  RebuildTree r;
  ASSERT_TRUE(r.top);
  const TempTree& t = r.t;
  for (const std::string& bad : {t.root() + "x/sub", std::string("/"), t.path("sub/../wide"), t.path("sub//deeper")}) {
    try {
      (void)r.w.rebuild(*r.top, bad, r.tally);
      ADD_FAILURE() << bad << " was rebuilt";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(r.w.directory_operand(t.path("keep.log")));  // a file operand has no Directory
  EXPECT_FALSE(r.w.directory_operand(t.path("no-such")));
  EXPECT_TRUE(r.messages.empty()) << r.messages;  // directory_operand reports nothing
}

TEST(WalkRebuild, a_directory_gone_on_the_way_down_is_reported_and_counted) {
  RebuildTree r;
  ASSERT_TRUE(r.top);
  EXPECT_FALSE(r.w.rebuild(*r.top, r.t.path("gone/deeper"), r.tally));
  EXPECT_EQ(r.tally.errors.load(), 1u);
  EXPECT_NE(r.messages.find(r.t.path("gone")), std::string::npos) << r.messages;
}

}  // namespace
}  // namespace walk_test
}  // namespace stealscan

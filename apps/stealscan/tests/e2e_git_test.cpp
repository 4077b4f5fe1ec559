// End to end: `stealscan secrets --git` on repositories the tests build with
// libgit2 (support/git_repo.hpp). A secret added then deleted is found with the
// adding commit's fields and fingerprint; a blob in several commits and paths
// is reported once; secrets only on a branch or a tag are found; merges
// attribute a branch's blob to the branch's commit and an evil merge's own
// content to the merge; --since; allowlist commits; binary blobs; the error
// statuses (shallow clones and damage: e2e_git_damage_test.cpp); a history longer than one task is cut into several (the summary's
// counts); a packed repository gives the same report, with its .idx gone too,
// and a damaged pack an error naming the blob. The same report at 1 and 4
// threads is e2e_git_threads_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sources/git/pack_index.hpp"

#include "support/git_repo.hpp"
#include "support/mini_json.hpp"
#include "support/run_process.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_git_test {
namespace {

const std::string kBin = STEALSCAN_BIN;
const std::string kAlnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// A distinct GitHub token for each n.
std::string token(std::size_t n) {
  std::string s = "ghp_";
  for (std::size_t i = 0; i < 36; ++i) s += kAlnum[(i * 7 + n * 13 + i * n) % kAlnum.size()];
  return s;
}

ProcessResult secrets(const std::vector<std::string>& args, const std::string& threads = "2") {
  std::vector<std::string> argv{kBin, "secrets", "--no-progress", "--no-cache", "-j", threads, "--format", "json"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

std::vector<Json> findings(const ProcessResult& r) {
  const Json doc = parse_json(r.out);
  EXPECT_EQ(doc.kind, Json::Kind::array) << r.out << r.err;
  return doc.items;
}

// "commit:file:rule:line=secret" per finding, in report order.
std::vector<std::string> summary(const ProcessResult& r) {
  std::vector<std::string> out;
  for (const Json& f : findings(r))
    out.push_back(f["Commit"].str + ":" + f["File"].str + ":" + f["RuleID"].str + ":" +
                  std::to_string(static_cast<long>(f["StartLine"].number)) + "=" + f["Secret"].str);
  return out;
}

std::string line(const git_oid& c, const std::string& file, std::size_t line, const std::string& secret,
                 const std::string& rule = "github-pat") {
  return TestRepo::hex(c) + ":" + file + ":" + rule + ":" + std::to_string(line) + "=" + secret;
}

using Lines = std::vector<std::string>;

TEST(GitSecrets, a_secret_added_then_deleted_is_found_with_the_adding_commit) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const git_oid c1 = repo.commit({{"README.md", "hello\n"}}, {}, "first\n", "main", 1700000000);
  const git_oid c2 = repo.commit({{"README.md", "hello\n"}, {"src/config.py", "x = 1\n\n" + token(1) + "\n"}},
                                 {c1}, "add the config\n\nwith a token in it\n", "main", 1700003600);
  repo.commit({{"README.md", "hello\n"}}, {c2}, "remove the token\n", "main", 1700007200);
  const ProcessResult r = secrets({"--git", t.path("repo")});
  ASSERT_EQ(r.status, 1) << r.err;
  const std::vector<Json> f = findings(r);
  ASSERT_EQ(f.size(), 1U) << r.out;
  EXPECT_EQ(f[0]["Commit"].str, TestRepo::hex(c2));
  EXPECT_EQ(f[0]["File"].str, "src/config.py");
  EXPECT_EQ(f[0]["Author"].str, "Alice Example");
  EXPECT_EQ(f[0]["Email"].str, "alice@example.com");
  EXPECT_EQ(f[0]["Date"].str, "2023-11-15T00:13:20+01:00");  // 1700003600 (23:13:20 UTC) at +01:00
  EXPECT_EQ(f[0]["Message"].str, "add the config\n\nwith a token in it");
  EXPECT_EQ(f[0]["StartLine"].number, 3);
  EXPECT_EQ(f[0]["Secret"].str, token(1));
  EXPECT_EQ(f[0]["Fingerprint"].str, TestRepo::hex(c2) + ":src/config.py:github-pat:3");
  EXPECT_NE(r.err.find("3 commits"), std::string::npos) << r.err;

  // The text report names them too.
  const ProcessResult text = run_process({kBin, "secrets", "--no-progress", "--no-cache", "--git", t.path("repo")});
  EXPECT_NE(text.out.find(TestRepo::hex(c2)), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("alice@example.com"), std::string::npos) << text.out;
}

TEST(GitSecrets, the_rule_file_in_use_is_not_reported_in_history_as_gitleaks_leaves_its_config_out) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  // The rule file, committed, holds an example token; the same token in another file is found.
  const std::string rules = "[extend]\nuseDefault = true\n# example: " + token(3) + "\n";
  repo.commit({{".gitleaks.toml", rules}, {"app.py", "t = '" + token(3) + "'\n"}}, {}, "c\n", "main");
  t.write("repo/.gitleaks.toml", rules);
  const ProcessResult r = secrets({"-c", t.path("repo/.gitleaks.toml"), "--git", t.path("repo")});
  ASSERT_EQ(r.status, 1) << r.err;
  const std::vector<Json> f = findings(r);
  ASSERT_EQ(f.size(), 1U) << r.out;
  EXPECT_EQ(f[0]["File"].str, "app.py");
}

TEST(GitSecrets, a_blob_in_several_commits_and_paths_is_reported_once_at_its_oldest) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const std::string leaked = "key = " + token(2) + "\n";
  const git_oid c1 = repo.commit({{"a.txt", leaked}}, {}, "one", "main");
  const git_oid c2 = repo.commit({{"a.txt", leaked}, {"b/copy.txt", leaked}}, {c1}, "copy", "main");
  const git_oid c3 = repo.commit({{"a.txt", "gone\n"}, {"b/copy.txt", leaked}}, {c2}, "edit", "main");
  repo.commit({{"z/again.txt", leaked}}, {c3}, "again", "side");
  const ProcessResult r = secrets({"--git", t.path("repo")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(summary(r), (Lines{line(c1, "a.txt", 1, token(2))}));
  EXPECT_NE(r.err.find("2 unique blobs"), std::string::npos) << r.err;  // leaked and gone
}

TEST(GitSecrets, a_blob_added_on_two_branches_goes_to_the_older_commit) {
  // Whichever tip the walk meets first (the messages vary the ids, so both
  // orders occur): unrelated commits are ordered by time.
  for (const char* variant : {"a", "b", "c", "d", "e", "f"}) {
    TempTree t;
    TestRepo repo(t.path("repo"));
    const std::string leaked = token(15) + "\n";
    const git_oid base = repo.commit({{"README.md", "hi\n"}}, {}, "base", "main", 1500000000);
    const git_oid older =
        repo.commit({{"old.txt", leaked}}, {base}, std::string("older ") + variant, "older", 1600000000);
    repo.commit({{"new.txt", leaked}}, {base}, std::string("newer ") + variant, "newer", 1800000000);
    EXPECT_EQ(summary(secrets({"--git", t.path("repo")})), (Lines{line(older, "old.txt", 1, token(15))})) << variant;
  }
}

TEST(GitSecrets, secrets_only_on_a_branch_or_behind_a_tag_are_found) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const git_oid base = repo.commit({{"README.md", "hi\n"}}, {}, "base", "main");
  const git_oid feature =
      repo.commit({{"README.md", "hi\n"}, {"f.env", token(3) + "\n"}}, {base}, "feature", "feature");
  const git_oid light = repo.commit({{"l.txt", token(4) + "\n"}}, {base}, "lightweight");
  repo.set_ref("refs/tags/v1", light);
  const git_oid annotated = repo.commit({{"n/a.txt", std::string("\n") + token(5) + "\n"}}, {base}, "annotated");
  repo.annotated_tag("v2", annotated);
  const ProcessResult r = secrets({"--git", t.path("repo")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(summary(r), (Lines{line(feature, "f.env", 1, token(3)), line(light, "l.txt", 1, token(4)),
                               line(annotated, "n/a.txt", 2, token(5))}));
  // The .git directory names the same repository.
  EXPECT_EQ(summary(secrets({"--git", t.path("repo/.git")})), summary(r));
}

TEST(GitSecrets, a_merge_reports_only_what_it_adds_itself) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const git_oid base = repo.commit({{"README.md", "hi\n"}}, {}, "base", "main");
  const git_oid side = repo.commit({{"README.md", "hi\n"}, {"side.txt", token(6) + "\n"}}, {base}, "side");
  const git_oid main2 = repo.commit({{"README.md", "hi there\n"}}, {base}, "main 2");
  // The merge takes side.txt from `side` and adds evil.txt of its own.
  const git_oid merge = repo.commit(
      {{"README.md", "hi there\n"}, {"side.txt", token(6) + "\n"}, {"evil.txt", token(7) + "\n"}}, {main2, side},
      "merge side", "main");
  const ProcessResult r = secrets({"--git", t.path("repo")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(summary(r), (Lines{line(merge, "evil.txt", 1, token(7)), line(side, "side.txt", 1, token(6))}));
}

TEST(GitSecrets, since_scans_only_the_later_commits_and_the_blobs_they_add) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const std::string old_secret = token(8) + "\n";
  const git_oid c1 = repo.commit({{"old.txt", old_secret}}, {}, "old", "main");
  const git_oid c2 = repo.commit({{"old.txt", old_secret}, {"new.txt", token(9) + "\n"}}, {c1}, "new", "main");
  // Re-adds the blob of old.txt (present at c1) under another path.
  repo.commit({{"new.txt", token(9) + "\n"}, {"moved.txt", old_secret}}, {c2}, "move", "main");
  EXPECT_EQ(summary(secrets({"--git", "--since", TestRepo::hex(c1), t.path("repo")})),
            (Lines{line(c2, "new.txt", 1, token(9))}));
  EXPECT_EQ(summary(secrets({"--git", "--since", "main~2", t.path("repo")})),
            (Lines{line(c2, "new.txt", 1, token(9))}));
  EXPECT_EQ(summary(secrets({"--git", t.path("repo")})),
            (Lines{line(c2, "new.txt", 1, token(9)), line(c1, "old.txt", 1, token(8))}));
  const ProcessResult none = secrets({"--git", "--since", "main", t.path("repo")});
  EXPECT_EQ(none.status, 0) << none.err;
  EXPECT_NE(none.err.find("0 commits"), std::string::npos) << none.err;
}

TEST(GitSecrets, an_allowlists_commits_drop_that_commits_findings_only) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const git_oid c1 = repo.commit({{"a.txt", token(10) + "\n"}}, {}, "one", "main");
  const git_oid c2 = repo.commit({{"a.txt", token(10) + "\n"}, {"b.txt", token(11) + "\n"}}, {c1}, "two", "main");
  t.write("rules.toml", "[extend]\nuseDefault = true\n[[allowlists]]\ncommits = [\"" + TestRepo::hex(c1) + "\"]\n");
  EXPECT_EQ(summary(secrets({"--git", "--config", t.path("rules.toml"), t.path("repo")})),
            (Lines{line(c2, "b.txt", 1, token(11))}));
  // AND: the commit and a path must both hit.
  t.write("and.toml", "[extend]\nuseDefault = true\n[[allowlists]]\ncondition = \"AND\"\ncommits = [\"" +
                          TestRepo::hex(c1) + "\"]\npaths = ['''b\\.txt''']\n");
  EXPECT_EQ(summary(secrets({"--git", "--config", t.path("and.toml"), t.path("repo")})),
            (Lines{line(c1, "a.txt", 1, token(10)), line(c2, "b.txt", 1, token(11))}));
}

TEST(GitSecrets, a_baseline_or_fingerprint_leaves_out_known_git_findings) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const git_oid c1 = repo.commit({{"a.txt", token(16) + "\n"}}, {}, "one", "main");
  const git_oid c2 = repo.commit({{"a.txt", token(16) + "\n"}, {"b.txt", token(17) + "\n"}}, {c1}, "two", "main");
  const ProcessResult before = secrets({"--git", "-o", t.path("baseline.json"), t.path("repo")});
  EXPECT_EQ(before.status, 1) << before.err;
  repo.commit({{"a.txt", token(16) + "\n"}, {"b.txt", token(17) + "\n"}, {"c.txt", token(18) + "\n"}}, {c2},
              "three", "main");
  const ProcessResult after = secrets({"--git", "--baseline", t.path("baseline.json"), t.path("repo")});
  EXPECT_EQ(after.status, 1) << after.err;
  ASSERT_EQ(findings(after).size(), 1U) << after.out;
  EXPECT_EQ(findings(after)[0]["File"].str, "c.txt");
  EXPECT_NE(after.err.find("2 more known"), std::string::npos) << after.err;
  // A fingerprint in either order, commit:file (gitleaks') or file:commit,
  // leaves out that commit's finding and no other.
  for (const std::string& fp : {TestRepo::hex(c2) + ":b.txt:github-pat:1", "b.txt:" + TestRepo::hex(c2) + ":github-pat:1"}) {
    t.write("fp.txt", fp + "\n");
    const ProcessResult known = secrets({"--git", "--fingerprints", t.path("fp.txt"), t.path("repo")});
    std::vector<std::string> files;
    for (const Json& f : findings(known)) files.push_back(f["File"].str);
    EXPECT_EQ(files, (std::vector<std::string>{"a.txt", "c.txt"})) << fp;
    EXPECT_NE(known.err.find("1 more known"), std::string::npos) << fp << known.err;
  }
  for (const std::string& fp : {TestRepo::hex(c1) + ":b.txt:github-pat:1", "b.txt:" + TestRepo::hex(c1) + ":github-pat:1"}) {
    t.write("fp.txt", fp + "\n");  // another commit's: nothing known
    EXPECT_EQ(findings(secrets({"--git", "--fingerprints", t.path("fp.txt"), t.path("repo")})).size(), 3U) << fp;
  }
}

TEST(GitSecrets, binary_and_too_large_blobs_are_skipped_and_counted) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  std::string binary = token(12) + "\n";
  binary += std::string(3, '\0');
  const std::string big = std::string(5000, 'x') + "\n" + token(13) + "\n";
  repo.commit({{"bin.dat", binary}, {"big.txt", big}}, {}, "blobs", "main");
  const ProcessResult r = secrets({"--git", "--max-filesize", "4K", t.path("repo")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("1 binary and 1 too large skipped"), std::string::npos) << r.err;
  const ProcessResult a = secrets({"--git", "-a", t.path("repo")});
  EXPECT_EQ(a.status, 1) << a.err;
  EXPECT_EQ(findings(a).size(), 2U) << a.out;
}

TEST(GitSecrets, bad_repositories_and_revisions_exit_2_naming_them) {
  TempTree t;
  t.write("plain/file.txt", "nothing\n");
  const ProcessResult not_repo = secrets({"--git", t.path("plain")});
  EXPECT_EQ(not_repo.status, 2);
  EXPECT_NE(not_repo.err.find(std::string("'") + t.path("plain") + "' is not a git repository"), std::string::npos)
      << not_repo.err;

  TestRepo repo(t.path("repo"));
  repo.commit({{"a.txt", "a\n"}}, {}, "one", "main");
  const ProcessResult bad_since = secrets({"--git", "--since", "no-such-rev", t.path("repo")});
  EXPECT_EQ(bad_since.status, 2);
  EXPECT_NE(bad_since.err.find("--since 'no-such-rev'"), std::string::npos) << bad_since.err;

  const ProcessResult two = secrets({"--git", t.path("repo"), t.path("plain")});
  EXPECT_EQ(two.status, 2);
  EXPECT_NE(two.err.find("--git takes one repository"), std::string::npos) << two.err;
  const ProcessResult since_alone = secrets({"--since", "main", t.path("repo")});
  EXPECT_EQ(since_alone.status, 2);
  EXPECT_NE(since_alone.err.find("--since needs --git"), std::string::npos) << since_alone.err;

  // An empty repository (unborn HEAD) has nothing to scan.
  TestRepo empty(t.path("empty"));
  const ProcessResult e = secrets({"--git", t.path("empty")});
  EXPECT_EQ(e.status, 0) << e.err;
}

// The count after `word` in the summary line ("5 diff tasks").
long count_before(const std::string& err, const std::string& word) {
  const std::size_t at = err.find(" " + word);
  if (at == std::string::npos) return -1;
  std::size_t b = at;
  while (b > 0 && std::isdigit(static_cast<unsigned char>(err[b - 1])) != 0) --b;
  return std::stol(err.substr(b, at - b));
}

TEST(GitSecrets, a_long_history_is_cut_into_several_tasks) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  TestRepo::Files files;
  std::vector<git_oid> parent;
  for (std::size_t i = 0; i < 300; ++i) {
    files[std::string("f") + std::to_string(i % 7) + ".txt"] = std::string("line ") + std::to_string(i) + "\n";
    if (i == 150) files["secret.txt"] = token(14) + "\n";
    std::string message = "c";  // built up: g++ 12 -O3 warns falsely (-Wrestrict) on "c" + std::string
    message += std::to_string(i);
    const git_oid c = repo.commit(files, parent, message, "main", 1700000000 + static_cast<git_time_t>(i));
    parent = {c};
  }
  const ProcessResult r = secrets({"--git", t.path("repo")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(findings(r).size(), 1U);
  EXPECT_EQ(count_before(r.err, "commits"), 300) << r.err;
  EXPECT_EQ(count_before(r.err, "unique blobs"), 301) << r.err;
  EXPECT_EQ(count_before(r.err, "diff tasks"), 5) << r.err;   // 64 commits each
  EXPECT_EQ(count_before(r.err, "scan tasks"), 2) << r.err;   // 256 blobs each
  EXPECT_GE(count_before(r.err, "yields"), 8) << r.err;       // every 32 blobs
  EXPECT_GE(count_before(r.err, "splits"), 1) << r.err;
}

// The one file of `dir` ending in `ext`.
std::string file_with(const std::string& dir, const std::string& ext) {
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ext) return e.path().string();
  return "";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Version `i` of the file the pack test commits; version 20 holds a token.
std::string version(int i) {
  std::string body;
  for (int l = 0; l < 100; ++l) body += "value " + std::to_string(l * (l == i ? 7 : 1)) + "\n";
  return i == 20 ? body + token(30) + "\n" : body;
}

// `n` commits of version(0) to version(n - 1) on main.
void commit_versions(TestRepo& repo, int n) {
  std::vector<git_oid> parent;
  for (int i = 0; i < n; ++i) parent = {repo.commit({{"conf.txt", version(i)}}, parent, "c", "main")};
}

TEST(GitSecrets, a_packed_repository_is_read_from_its_pack_and_a_damaged_one_reported) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  commit_versions(repo, 40);
  const ProcessResult loose = secrets({"--git", t.path("repo")});
  ASSERT_EQ(loose.status, 1) << loose.err;
  ASSERT_EQ(findings(loose).size(), 1U);

  // Packed (with deltas), the loose objects removed: read from the pack alone.
  repo.pack();
  const std::string objects = t.path("repo/.git/objects");
  for (const auto& e : std::filesystem::directory_iterator(objects))
    if (e.path().filename().string().size() == 2) std::filesystem::remove_all(e.path());
  const ProcessResult packed = secrets({"--git", t.path("repo")});
  EXPECT_EQ(packed.status, 1) << packed.err;
  EXPECT_EQ(packed.out, loose.out);
  EXPECT_EQ(packed.err, loose.err);

  // The last byte of the token's blob's entry (its zlib checksum) damaged: an
  // error naming the blob, status 2, and the run goes on to its summary.
  const std::string pack = file_with(objects + "/pack", ".pack");
  const auto idx = git::PackIndex::parse(read_file(file_with(objects + "/pack", ".idx")));
  ASSERT_TRUE(idx.has_value());
  std::vector<std::uint64_t> starts;  // every entry's, to find where the blob's ends
  {
    git_repository* r = nullptr;
    ASSERT_EQ(git_repository_open(&r, t.path("repo").c_str()), 0);
    git_odb* odb = nullptr;
    ASSERT_EQ(git_repository_odb(&odb, r), 0);
    std::vector<git_oid> ids;
    const auto each = [](const git_oid* id, void* p) {
      static_cast<std::vector<git_oid>*>(p)->push_back(*id);
      return 0;
    };
    git_odb_foreach(odb, each, &ids);
    for (const git_oid& id : ids)
      if (const auto at = idx->offset(id)) starts.push_back(*at);
    git_odb_free(odb);
    git_repository_free(r);
  }
  std::string bytes = read_file(pack);
  starts.push_back(bytes.size() - 20);  // the trailing checksum ends the last entry
  std::sort(starts.begin(), starts.end());
  const std::string secret = version(20);
  git_oid secret_id;
  ASSERT_EQ(git_odb_hash(&secret_id, secret.data(), secret.size(), GIT_OBJECT_BLOB), 0);
  const auto at = idx->offset(secret_id);
  ASSERT_TRUE(at.has_value());
  const auto next = std::upper_bound(starts.begin(), starts.end(), *at);
  ASSERT_NE(next, starts.end());
  bytes[*next - 1] = static_cast<char>(bytes[*next - 1] ^ 0x5a);
  std::filesystem::permissions(pack, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  std::ofstream(pack, std::ios::binary | std::ios::trunc) << bytes;
  const ProcessResult damaged = secrets({"--git", t.path("repo")});
  EXPECT_EQ(damaged.status, 2) << damaged.err;
  EXPECT_NE(damaged.err.find("blob " + TestRepo::hex(secret_id)), std::string::npos) << damaged.err;
  EXPECT_NE(damaged.err.find("40 commits"), std::string::npos) << damaged.err;
}

TEST(GitSecrets, a_pack_without_its_index_is_left_to_libgit2) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  commit_versions(repo, 30);
  const ProcessResult loose = secrets({"--git", t.path("repo")});
  ASSERT_EQ(loose.status, 1) << loose.err;
  repo.pack();  // the loose objects stay: without the .idx, libgit2 reads them
  std::filesystem::remove(file_with(t.path("repo/.git/objects/pack"), ".idx"));
  const ProcessResult r = secrets({"--git", t.path("repo")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.out, loose.out);
  EXPECT_EQ(r.err, loose.err);
}

}  // namespace
}  // namespace e2e_git_test
}  // namespace stealscan::test

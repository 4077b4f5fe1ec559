// End to end: `stealscan secrets` on archives built by the test (libarchive's
// write API, support/archive_writer.hpp). A planted secret is found in every
// archive type with the exact ARCHIVE!MEMBER file, rule and line; nesting is
// followed up to --archive-depth and not beyond; --no-archives; the limits on
// decompressed bytes (a zip bomb, the per-archive total) and corrupt archives
// give warnings while the rest is still scanned; the report is the same at 1
// and 4 threads; an encrypted zip member. Also the magic check itself
// (sniff_archive).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sources/archive/archive_magic.hpp"
#include "support/archive_writer.hpp"
#include "support/git_repo.hpp"
#include "support/mini_json.hpp"
#include "support/run_process.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_archives_test {
namespace {

const std::string kBin = STEALSCAN_BIN;
const std::string kAlnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const std::string kGithub = "ghp_" + kAlnum.substr(0, 36);
// The secret on line 3, column 11 (the built-in github-pat rule).
const std::string kSecretText = "# config\n\nGITHUB = \"" + kGithub + "\"\n";

using Lines = std::vector<std::string>;

ProcessResult secrets(const std::vector<std::string>& args, const std::string& threads = "3") {
  std::vector<std::string> argv{kBin, "secrets", "--no-progress", "--no-cache", "--format", "json", "-j", threads};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

// "file:rule:line:column" for each finding (file below `root`), in report order.
Lines summary(const ProcessResult& r, const std::string& root) {
  Lines out;
  const Json doc = parse_json(r.out);
  EXPECT_EQ(doc.kind, Json::Kind::array) << r.out;
  for (const Json& f : doc.items) {
    std::string file = f["File"].str;
    if (file.rfind(root + "/", 0) == 0) file = file.substr(root.size() + 1);
    out.push_back(file + ":" + f["RuleID"].str + ":" + std::to_string(static_cast<long>(f["StartLine"].number)) +
                  ":" + std::to_string(static_cast<long>(f["StartColumn"].number)));
  }
  return out;
}

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

// Text that compresses badly (a linear congruential sequence of letters).
std::string noise(std::size_t n, unsigned seed) {
  std::string s(n, 'a');
  for (std::size_t i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    s[i] = (i % 64 == 63) ? '\n' : static_cast<char>('a' + (seed >> 16) % 26);
  }
  return s;
}

TEST(Archives, each_type_is_read_and_the_secret_found_as_archive_bang_member) {
  TempTree t;
  const std::vector<Member> tree{{"dir/inner.txt", kSecretText}};
  t.write("data/x.env.gz", make_archive(Format::raw, Filter::gzip, {{"data", kSecretText}}));
  t.write("data/x.env.bz2", make_archive(Format::raw, Filter::bzip2, {{"data", kSecretText}}));
  t.write("data/x.env.xz", make_archive(Format::raw, Filter::xz, {{"data", kSecretText}}));
  t.write("data/x.env.zst", make_archive(Format::raw, Filter::zstd, {{"data", kSecretText}}));
  t.write("data/a.zip", make_archive(Format::zip, Filter::none, tree));
  t.write("data/app.jar", make_archive(Format::zip, Filter::none, {{"META-INF/app.properties", kSecretText}}));
  t.write("data/b.tar", make_archive(Format::tar, Filter::none, tree));
  t.write("data/c.tar.gz", make_archive(Format::tar, Filter::gzip, tree));
  t.write("data/d.tgz", make_archive(Format::tar, Filter::gzip, tree));
  t.write("data/e.tar.bz2", make_archive(Format::tar, Filter::bzip2, tree));
  t.write("data/f.tar.xz", make_archive(Format::tar, Filter::xz, tree));
  t.write("data/g.tar.zst", make_archive(Format::tar, Filter::zstd, tree));
  t.write("data/h.7z", make_archive(Format::sevenzip, Filter::none, tree));
  t.write("data/plain.txt", kSecretText);
  const ProcessResult r = secrets({t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(summary(r, t.path("data")),
            (Lines{"a.zip!dir/inner.txt:github-pat:3:11", "app.jar!META-INF/app.properties:github-pat:3:11",
                   "b.tar!dir/inner.txt:github-pat:3:11", "c.tar.gz!dir/inner.txt:github-pat:3:11",
                   "d.tgz!dir/inner.txt:github-pat:3:11", "e.tar.bz2!dir/inner.txt:github-pat:3:11",
                   "f.tar.xz!dir/inner.txt:github-pat:3:11", "g.tar.zst!dir/inner.txt:github-pat:3:11",
                   "h.7z!dir/inner.txt:github-pat:3:11", "plain.txt:github-pat:3:11",
                   // A single compressed file is shown by its own name, as gitleaks shows it.
                   "x.env.bz2:github-pat:3:11", "x.env.gz:github-pat:3:11", "x.env.xz:github-pat:3:11",
                   "x.env.zst:github-pat:3:11"}));
  const Json f = parse_json(r.out).items.at(0);
  EXPECT_EQ(f["Fingerprint"].str, t.path("data") + "/a.zip!dir/inner.txt:github-pat:3");
  EXPECT_EQ(f["Secret"].str, kGithub);
  EXPECT_TRUE(has(r.err, "13 archives, 13 archive members")) << r.err;
  EXPECT_TRUE(has(r.err, "in 14 files (14 scanned")) << r.err;
}

TEST(Archives, archives_committed_to_git_history_are_opened_with_the_blobs_commit) {
  TempTree t;
  TestRepo repo(t.path("repo"));
  const std::vector<Member> tree{{"dir/inner.txt", kSecretText}};
  const git_oid c1 = repo.commit({{"README.md", "hello\n"}}, {}, "one", "main");
  const git_oid c2 = repo.commit({{"README.md", "hello\n"},
                                  {"dist/app.tar.gz", make_archive(Format::tar, Filter::gzip, tree)},
                                  {"dist/x.env.gz", make_archive(Format::raw, Filter::gzip, {{"data", kSecretText}})}},
                                 {c1}, "two", "main");
  const ProcessResult r = secrets({"--git", t.path("repo")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(summary(r, ""), (Lines{"dist/app.tar.gz!dir/inner.txt:github-pat:3:11", "dist/x.env.gz:github-pat:3:11"}));
  for (const Json& f : parse_json(r.out).items) EXPECT_EQ(f["Commit"].str, TestRepo::hex(c2));
  EXPECT_TRUE(has(r.err, "2 archives (2 archive members)")) << r.err;
  // --no-archives: the compressed blobs are binary, skipped.
  const ProcessResult off = secrets({"--git", "--no-archives", t.path("repo")});
  EXPECT_EQ(off.status, 0) << off.err;
}

TEST(Archives, archives_are_found_by_their_bytes_not_their_names) {
  TempTree t;
  t.write("data/blob.dat", make_archive(Format::tar, Filter::gzip, {{"x.txt", kSecretText}}));
  t.write("data/stream", make_archive(Format::raw, Filter::xz, {{"data", kSecretText}}));
  t.write("data/fake.gz", kSecretText);  // a text file with an archive's name
  const ProcessResult r = secrets({t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
  // "stream", xz without a suffix, is decompressed (its secret is found) and
  // shown by its own name, as any single compressed file.
  EXPECT_EQ(summary(r, t.path("data")),
            (Lines{"blob.dat!x.txt:github-pat:3:11", "fake.gz:github-pat:3:11", "stream:github-pat:3:11"}));
  EXPECT_TRUE(has(r.err, "2 archives, 2 archive members")) << r.err;
}

// outer.tar ! top.env, and outer.tar ! mid.tar.gz ! inner.zip ! a/b.env.
void write_nested(const TempTree& t) {
  const std::string inner = make_archive(Format::zip, Filter::none, {{"a/b.env", kSecretText}});
  const std::string mid = make_archive(Format::tar, Filter::gzip, {{"inner.zip", inner}});
  t.write("data/outer.tar", make_archive(Format::tar, Filter::none, {{"top.env", kSecretText}, {"mid.tar.gz", mid}}));
}

TEST(Archives, nested_archives_are_opened_up_to_the_depth_and_not_beyond) {
  TempTree t;
  write_nested(t);
  const ProcessResult deep = secrets({t.path("data")});  // default depth 3
  EXPECT_EQ(deep.status, 1) << deep.err;
  EXPECT_EQ(summary(deep, t.path("data")),
            (Lines{"outer.tar!mid.tar.gz!inner.zip!a/b.env:github-pat:3:11", "outer.tar!top.env:github-pat:3:11"}));
  EXPECT_FALSE(has(deep.err, "not opened")) << deep.err;

  const ProcessResult one = secrets({"--archive-depth", "1", t.path("data")});
  EXPECT_EQ(one.status, 1) << one.err;
  EXPECT_EQ(summary(one, t.path("data")), (Lines{"outer.tar!top.env:github-pat:3:11"}));
  EXPECT_TRUE(has(one.err, t.path("data/outer.tar!mid.tar.gz") +
                               ": nested archive not opened: deeper than --archive-depth 1"))
      << one.err;

  const ProcessResult two = secrets({"--archive-depth", "2", t.path("data")});
  EXPECT_EQ(summary(two, t.path("data")), (Lines{"outer.tar!top.env:github-pat:3:11"}));
  EXPECT_TRUE(has(two.err, t.path("data/outer.tar!mid.tar.gz!inner.zip") + ": nested archive not opened"))
      << two.err;
}

TEST(Archives, no_archives_and_depth_0_scan_archives_as_plain_files) {
  TempTree t;
  write_nested(t);
  t.write("data/c.tar.gz", make_archive(Format::tar, Filter::gzip, {{"x.txt", kSecretText}}));
  t.write("data/plain.txt", kSecretText);
  for (const char* opt : {"--no-archives", "--archive-depth=0"}) {
    const ProcessResult r = secrets({opt, t.path("data")});
    EXPECT_EQ(r.status, 1) << r.err;
    EXPECT_EQ(summary(r, t.path("data")), (Lines{"plain.txt:github-pat:3:11"})) << opt;
    EXPECT_TRUE(has(r.err, "(1 scanned, 2 binary")) << r.err;  // the tar and the tar.gz
  }
  // With -a the uncompressed tar's bytes are text enough: found in the tar itself.
  const ProcessResult a = secrets({"--no-archives", "-a", t.path("data/outer.tar")});
  EXPECT_EQ(summary(a, t.path("data")), (Lines{"outer.tar:github-pat:3:11"}));
}

TEST(Archives, binary_members_are_skipped_unless_text) {
  TempTree t;
  t.write("data/a.zip", make_archive(Format::zip, Filter::none, {{"bin.dat", std::string("\0\1", 2) + kSecretText}}));
  EXPECT_EQ(summary(secrets({t.path("data")}), t.path("data")), Lines{});
  EXPECT_EQ(summary(secrets({"-a", t.path("data")}), t.path("data")), (Lines{"a.zip!bin.dat:github-pat:3:11"}));
}

TEST(Archives, a_utf16_member_is_decoded_as_a_utf16_file_is) {
  TempTree t;
  std::string utf16 = "\xff\xfe";  // little-endian, with a byte order mark
  for (const char c : kSecretText) utf16.append({c, '\0'});
  t.write("data/a.zip", make_archive(Format::zip, Filter::none, {{"w.txt", utf16}}));
  EXPECT_EQ(summary(secrets({t.path("data")}), t.path("data")), (Lines{"a.zip!w.txt:github-pat:3:11"}));
}

TEST(Archives, a_zip_bomb_member_is_skipped_with_a_warning_and_the_rest_is_scanned) {
  TempTree t;
  // Two trees alike but for the bombs' size: 64 MB of zeros each, or 1 KB.
  // The big strings are gone before either scan, so both start from the
  // same test process (a child's peak RSS counts the parent's pages at fork).
  constexpr std::size_t kBomb = 64'000'000;
  for (const auto& [dir, size] : {std::pair{std::string("data"), kBomb}, std::pair{std::string("small"), std::size_t{1000}}}) {
    const std::vector<Member> members{{"bomb.bin", std::string(size, '\0')}, {"ok.env", kSecretText}};
    t.write(dir + "/a.zip", make_archive(Format::zip, Filter::none, members));
    t.write(dir + "/b.tar.gz", make_archive(Format::tar, Filter::gzip, members));
    // A single stream declares no size: the limit is found while reading.
    t.write(dir + "/big.txt.gz", make_archive(Format::raw, Filter::gzip, {{"data", std::string(size, 'a')}}));
    t.write(dir + "/plain.txt", kSecretText);
  }
  const ProcessResult r = secrets({"--archive-max-entry-size", "1M", t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;  // the warnings do not make it 2
  EXPECT_EQ(summary(r, t.path("data")),
            (Lines{"a.zip!ok.env:github-pat:3:11", "b.tar.gz!ok.env:github-pat:3:11", "plain.txt:github-pat:3:11"}));
  for (const char* m : {"a.zip!bomb.bin", "b.tar.gz!bomb.bin", "big.txt.gz"})
    EXPECT_TRUE(has(r.err, t.path(std::string("data/") + m) +
                               ": member skipped: larger than 1M decompressed (--archive-max-entry-size)"))
        << m << "\n"
        << r.err;
  EXPECT_TRUE(has(r.err, "3 too large skipped")) << r.err;
  // A member held whole, even one, would add 64 MB over the small tree's run.
  const ProcessResult small = secrets({"--archive-max-entry-size", "1M", t.path("small")});
  EXPECT_EQ(small.status, 1) << small.err;
  EXPECT_LT(r.max_rss_kib, small.max_rss_kib + 16 * 1024)
      << "a skipped member must not be held whole: " << r.max_rss_kib << " KiB against " << small.max_rss_kib;
}

TEST(Archives, the_per_archive_total_stops_the_archive_with_a_warning_and_the_scan_goes_on) {
  TempTree t;
  std::vector<Member> members;
  for (unsigned i = 0; i < 5; ++i) {  // 5 members of about 600,000 bytes; secrets in the first and the last
    std::string body = noise(600'000, i);
    if (i % 4 == 0) body.insert(0, kSecretText);
    members.push_back({std::string("m").append(std::to_string(i)).append(".txt"), body});
  }
  t.write("data/a.tar.gz", make_archive(Format::tar, Filter::gzip, members));
  t.write("data/plain.txt", kSecretText);
  const ProcessResult r = secrets({"--archive-max-size", "2M", t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(summary(r, t.path("data")), (Lines{"a.tar.gz!m0.txt:github-pat:3:11", "plain.txt:github-pat:3:11"}));
  EXPECT_TRUE(has(r.err, t.path("data/a.tar.gz!m3.txt") + ": more than 2M decompressed from " +
                             t.path("data/a.tar.gz") + " (--archive-max-size): the rest of it is skipped"))
      << r.err;
  EXPECT_TRUE(has(r.err, "3 archive members")) << r.err;  // m0, m1, m2
  // Nested levels share the file's total: the same members one level down stop alike.
  t.write("data/a.tar.gz", make_archive(Format::tar, Filter::none,
                                        {{"in.tar.gz", make_archive(Format::tar, Filter::gzip, members)}}));
  const ProcessResult n = secrets({"--archive-max-size", "2M", t.path("data")});
  EXPECT_EQ(summary(n, t.path("data")), (Lines{"plain.txt:github-pat:3:11"})) << n.err;
  EXPECT_TRUE(has(n.err, "(--archive-max-size)")) << n.err;
}

TEST(Archives, a_corrupt_archive_is_a_warning_and_the_other_files_are_scanned) {
  TempTree t;
  const std::string good = make_archive(Format::tar, Filter::gzip,
                                        {{"first.env", kSecretText}, {"second.txt", noise(300'000, 7)}});
  t.write("data/truncated.tar.gz", good.substr(0, good.size() * 2 / 3));
  t.write("data/garbage.gz", "\x1f\x8b\x08" + noise(1000, 3));
  t.write("data/garbage.zip", "PK\x03\x04" + noise(1000, 4));
  const std::string zip = make_archive(Format::zip, Filter::none, {{"z.env", kSecretText}});
  // Without its end of central directory a zip is read as a stream, from its
  // local headers: the member is intact, so it is found.
  t.write("data/cut.zip", zip.substr(0, zip.size() - 30));
  t.write("data/plain.txt", kSecretText);
  const ProcessResult r = secrets({t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;  // warnings, not errors
  const Lines found = summary(r, t.path("data"));
  // The member read before the damage is still reported.
  EXPECT_EQ(found, (Lines{"cut.zip!z.env:github-pat:3:11", "plain.txt:github-pat:3:11",
                          "truncated.tar.gz!first.env:github-pat:3:11"}))
      << r.err;
  for (const char* f : {"truncated.tar.gz", "garbage.gz", "garbage.zip"})
    EXPECT_TRUE(has(r.err, t.path(std::string("data/") + f))) << f << "\n" << r.err;
  EXPECT_TRUE(has(r.err, "corrupt")) << r.err;
}

TEST(Archives, an_empty_compressed_file_is_no_warning) {
  TempTree t;
  for (const Filter f : {Filter::gzip, Filter::bzip2, Filter::xz, Filter::zstd})
    t.write("data/empty." + std::to_string(static_cast<int>(f)), make_archive(Format::raw, f, {{"empty", ""}}));
  t.write("data/plain.txt", kSecretText);
  const ProcessResult r = secrets({t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(summary(r, t.path("data")), (Lines{"plain.txt:github-pat:3:11"}));
  EXPECT_FALSE(has(r.err, "corrupt")) << r.err;
  EXPECT_FALSE(has(r.err, "warning: ")) << r.err;
}

TEST(Archives, an_encrypted_member_is_a_warning_and_the_next_archives_are_read) {
  TempTree t;
  t.write("data/locked.zip", make_archive(Format::zip, Filter::none, {{"a.env", kSecretText}, {"b.env", kSecretText}},
                                          "hunter2"));
  t.write("data/open.zip", make_archive(Format::zip, Filter::none, {{"c.env", kSecretText}}));
  const ProcessResult r = secrets({t.path("data")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(summary(r, t.path("data")), (Lines{"open.zip!c.env:github-pat:3:11"}));
  // Each encrypted member is named, and the one after the first is still tried.
  EXPECT_TRUE(has(r.err, t.path("data/locked.zip!a.env") + ": unreadable member, skipped: ")) << r.err;
  EXPECT_TRUE(has(r.err, t.path("data/locked.zip!b.env") + ": unreadable member, skipped: ")) << r.err;
}

TEST(Archives, the_report_is_the_same_at_1_and_4_threads) {
  TempTree t;
  const Format formats[] = {Format::tar, Format::zip, Format::raw};
  const Filter filters[] = {Filter::none, Filter::gzip, Filter::bzip2, Filter::xz, Filter::zstd};
  int n = 0;
  for (const Format fo : formats)
    for (const Filter fi : filters) {
      if (fo == Format::zip && fi != Filter::none) continue;
      if (fo == Format::raw && fi == Filter::none) continue;
      for (int k = 0; k < 3; ++k, ++n)
        t.write("data/d" + std::to_string(k) + "/arch" + std::to_string(n),
                make_archive(fo, fi, {{"a.txt", kSecretText + noise(1000, static_cast<unsigned>(n))}}));
    }
  write_nested(t);
  const ProcessResult one = secrets({t.path("data")}, "1");
  const ProcessResult four = secrets({t.path("data")}, "4");
  EXPECT_EQ(one.status, 1) << one.err;
  EXPECT_EQ(one.out, four.out);
  EXPECT_EQ(summary(one, t.path("data")).size(), 32u);  // 30 archives, 2 nested findings
}

TEST(Archives, bad_archive_options_exit_2) {
  EXPECT_EQ(secrets({"--archive-depth", "x", "."}).status, 2);
  EXPECT_EQ(secrets({"--archive-depth", "17", "."}).status, 2);
  EXPECT_EQ(secrets({"--archive-max-size", "1Q", "."}).status, 2);
  const ProcessResult r = secrets({"--archive-max-entry-size", "", "."});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--archive-max-entry-size")) << r.err;
}

TEST(ArchiveMagic, each_magic_is_recognised_and_look_alikes_are_not) {
  using namespace std::string_literals;
  EXPECT_EQ(sniff_archive(make_archive(Format::raw, Filter::gzip, {{"d", "x"}})), ArchiveMagic::gzip);
  EXPECT_EQ(sniff_archive(make_archive(Format::raw, Filter::bzip2, {{"d", "x"}})), ArchiveMagic::bzip2);
  EXPECT_EQ(sniff_archive(make_archive(Format::raw, Filter::xz, {{"d", "x"}})), ArchiveMagic::xz);
  EXPECT_EQ(sniff_archive(make_archive(Format::raw, Filter::zstd, {{"d", "x"}})), ArchiveMagic::zstd);
  EXPECT_EQ(sniff_archive(make_archive(Format::zip, Filter::none, {{"d", "x"}})), ArchiveMagic::zip);
  EXPECT_EQ(sniff_archive(make_archive(Format::zip, Filter::none, {})), ArchiveMagic::zip);
  EXPECT_EQ(sniff_archive(make_archive(Format::tar, Filter::none, {{"d", "x"}})), ArchiveMagic::tar);
  EXPECT_EQ(sniff_archive("BZh9 is how this text begins\n"), ArchiveMagic::none);
  std::string fake_tar(600, ' ');
  fake_tar.replace(257, 5, "ustar");
  EXPECT_EQ(sniff_archive(fake_tar), ArchiveMagic::none);  // no valid checksum
  EXPECT_EQ(sniff_archive(""), ArchiveMagic::none);
  EXPECT_EQ(sniff_archive("\x1f"s), ArchiveMagic::none);
  EXPECT_EQ(sniff_archive("plain text\n"), ArchiveMagic::none);
}

}  // namespace
}  // namespace e2e_archives_test
}  // namespace stealscan::test

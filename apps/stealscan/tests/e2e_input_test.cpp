// End to end: where the bytes come from and where the lines go, on odd inputs:
// standard input (piped, `-`, or no path at all), named pipes and `<(cmd)` given
// as operands, a FIFO met inside a walked tree, thread start failure (-j), memory
// that follows the files rather than -j and --chunk-size, JSON for file names that
// are not UTF-8, lines reaching a pipe file by file, and -f files that are empty,
// blank, a directory or missing.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "support/run_process.hpp"
#include "support/temp_tree.hpp"

namespace stealscan::test {
// Named after the file: test binaries compile several files as one unit.
namespace e2e_input_test {
namespace {

const std::string kBin = STEALSCAN_BIN;

// A sanitizer's runtime reserves terabytes of address space for its shadow
// memory, so the binary (built with the same flags as this test) cannot start
// under a `ulimit -v` at all.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// Runs a shell command line (for pipes and redirections); `$S` is the binary.
ProcessResult shell(const std::string& script) {
  return run_process({"sh", "-c", "S='" + kBin + "'; " + script});
}

// Writes `text` to the FIFO at `path` (blocks until a reader opens it).
void feed_fifo(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  if (fd < 0) return;
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

TEST(Stdin, piped_input_is_searched_when_no_path_is_given) {
  const auto r = shell("printf 'a foo\\nbar\\nfoo b\\n' | \"$S\" foo");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "a foo\nfoo b\n");
}

TEST(Stdin, a_dash_reads_standard_input_shown_as_stdin) {
  TempTree t;
  t.write("f.txt", "foo in a file\n");
  const auto r = shell("printf 'x\\nfoo\\n' | \"$S\" -n foo - '" + t.path("f.txt") + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  // Two paths: every line names its source; standard input is <stdin>.
  EXPECT_NE(r.out.find("<stdin>:2:foo\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(t.path("f.txt") + ":1:foo in a file\n"), std::string::npos) << r.out;
}

TEST(Stdin, no_path_and_nothing_piped_searches_the_current_directory) {
  TempTree t;
  t.write("d/f.txt", "foo\n");
  // run_process gives the child /dev/null as standard input: a device, not input.
  const auto r = shell("cd '" + t.root() + "' && \"$S\" -c foo");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "./d/f.txt:1\n");
}

TEST(Stdin, input_larger_than_many_chunks_counts_every_line_once) {
  // 20,000 lines through a pipe in 1 KiB reads: the stream is read once, in order.
  const auto r = shell("seq 1 20000 | \"$S\" -c --chunk-size 1K -e 7");
  EXPECT_EQ(r.status, 0) << r.err;
  const auto grep = shell("seq 1 20000 | grep -c 7");
  EXPECT_EQ(r.out, grep.out);
}

TEST(Stdin, a_line_longer_than_the_window_is_printed_whole) {
  // A file's long line is printed by reading it back; a pipe's cannot be, so the
  // scanner holds it: 50,000 bytes with the match at the end, 1 KiB chunks.
  const auto r = shell("{ head -c 50000 /dev/zero | tr '\\0' x; printf 'foo\\nshort\\n'; } | \"$S\" --chunk-size 1K foo | wc -c");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "50004\n");
}

TEST(Operands, a_named_pipe_given_as_a_path_is_read) {
  TempTree t;
  const std::string fifo = t.path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  std::thread writer(feed_fifo, fifo, std::string("one\nfoo two\nthree foo\n"));
  const auto r = run_process({kBin, "-n", "foo", fifo});
  writer.join();
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "2:foo two\n3:three foo\n");
}

TEST(Operands, process_substitution_is_read) {
  if (::access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "needs bash for <(cmd)";
  const auto r = run_process({"/bin/bash", "-c", "'" + kBin + "' -c foo <(printf 'foo\\nbar\\nfoo\\n')"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "2\n");
}

TEST(Operands, a_fifo_inside_a_walked_directory_is_skipped_without_waiting) {
  TempTree t;
  t.write("d/a.txt", "foo\n");
  ASSERT_EQ(::mkfifo(t.path("d/pipe").c_str(), 0644), 0);  // nobody ever writes it
  const auto r = run_process({kBin, "-c", "foo", t.path("d")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, t.path("d") + "/a.txt:1\n");
}

TEST(Threads, failing_to_start_the_workers_is_a_clear_error_with_status_2) {
  if (kSanitized) GTEST_SKIP() << "a sanitizer's shadow memory does not fit under ulimit -v";
  TempTree t;
  t.write("f.txt", "foo\n");
  // 4096 stacks of 8 MiB do not fit in 1 GB of address space.
  const auto r = shell("ulimit -v 1000000 && exec \"$S\" -j 4096 foo '" + t.path("f.txt") + "'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot start 4096 worker threads"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(Memory, buffers_follow_the_files_not_the_thread_count_or_chunk_size) {
  TempTree t;
  t.write("f.txt", "a small file with foo\n");
  // Up front, 64 workers' windows of 2 x 1 GiB would be 128 GiB; a 30-byte file
  // needs a page or so per worker that scans.
  const auto r = run_process({kBin, "-j", "64", "--chunk-size", "1G", "foo", t.path("f.txt")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "a small file with foo\n");
  // A sanitizer adds tens of MiB per thread of its own (shadow, fake stacks);
  // the windows allocated up front would still be far above either bound.
  const long bound_kib = kSanitized ? 512 * 1024 : 64 * 1024;
  EXPECT_LT(r.max_rss_kib, bound_kib) << "max RSS " << r.max_rss_kib << " KiB";
}

TEST(Json, file_names_that_are_not_utf8_are_written_as_base64_bytes) {
  TempTree t;
  t.write("a\xff" "b", "foo\n");
  t.write("a\xfe" "b", "foo\n");
  t.write("\xc3\xa9.txt", "foo\n");  // valid UTF-8: a plain string
  const auto r = run_process({kBin, "--json-matches", "-j", "1", "foo", t.root()});
  EXPECT_EQ(r.status, 0) << r.err;
  const auto rg = run_process({kBin, "--json", "-j", "1", "foo", t.root()});  // ripgrep's messages
  EXPECT_EQ(rg.status, 0) << rg.err;
  // Standard base64 (RFC 4648, with padding) of the whole path; the next test
  // checks this encoder's output on known bytes.
  auto b64 = [](const std::string& s) {
    static const char* d = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < s.size(); i += 3) {
      const unsigned v = static_cast<unsigned char>(s[i]) << 16 | static_cast<unsigned char>(s[i + 1]) << 8 |
                         static_cast<unsigned char>(s[i + 2]);
      for (int k = 18; k >= 0; k -= 6) out += d[(v >> k) & 63];
    }
    if (i < s.size()) {
      const unsigned v = static_cast<unsigned char>(s[i]) << 16 |
                         (i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) << 8 : 0);
      out += d[(v >> 18) & 63];
      out += d[(v >> 12) & 63];
      out += i + 1 < s.size() ? d[(v >> 6) & 63] : '=';
      out += '=';
    }
    return out;
  };
  for (const char* name : {"a\xff" "b", "a\xfe" "b"}) {
    const std::string want = "{\"file\":{\"bytes\":\"" + b64(t.path(name)) + "\"},\"line\":1,\"column\":1,\"pattern\":\"foo\"}\n";
    EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
    EXPECT_NE(rg.out.find("{\"type\":\"begin\",\"data\":{\"path\":{\"bytes\":\"" + b64(t.path(name)) + "\"}}}\n"),
              std::string::npos)
        << rg.out;
  }
  EXPECT_NE(r.out.find("{\"file\":\"" + t.path("\xc3\xa9.txt") + "\""), std::string::npos) << r.out;
  EXPECT_NE(rg.out.find("{\"path\":{\"text\":\"" + t.path("\xc3\xa9.txt") + "\"}"), std::string::npos) << rg.out;
}

TEST(Json, base64_of_known_bytes_matches_rfc4648) {
  // "f\xff" -> "Zv8=", "fo\xff" -> "Zm//", "\xff" -> "/w==" (worked by hand): file
  // names relative to the current directory, so the path is exactly these bytes.
  TempTree t;
  t.write("f\xff", "x\n");
  t.write("fo\xff", "x\n");
  t.write("\xff", "x\n");
  const auto r = shell("cd '" + t.root() + "' && \"$S\" --json -j 1 x 'f\xff' 'fo\xff' '\xff'");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("{\"bytes\":\"Zv8=\"}"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{\"bytes\":\"Zm//\"}"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{\"bytes\":\"/w==\"}"), std::string::npos) << r.out;
}

TEST(Output, a_pipe_gets_each_files_lines_when_the_file_is_done) {
  // The first operand matches; the second is a FIFO that nobody writes until the
  // first line has arrived. Output held to the end of the scan would never
  // arrive: the scan cannot end before the FIFO is written.
  TempTree t;
  t.write("first.txt", "foo first\n");
  const std::string fifo = t.path("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::close(out[0]);
    ::close(out[1]);
    const int null_in = ::open("/dev/null", O_RDONLY);
    ::dup2(null_in, 0);
    ::execl(kBin.c_str(), kBin.c_str(), "-j", "2", "--no-filename", "foo", t.path("first.txt").c_str(),
            fifo.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  // Wait for the first line (a generous bound, so a broken build fails instead of
  // hanging; the FIFO is fed afterwards either way so the child can finish).
  pollfd p{out[0], POLLIN, 0};
  const int ready = ::poll(&p, 1, 60'000);
  std::string first;
  if (ready == 1) {
    char buf[256];
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n > 0) first.assign(buf, static_cast<std::size_t>(n));
  }
  feed_fifo(fifo, "foo second\n");
  std::string rest;
  char buf[256];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) rest.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_EQ(ready, 1) << "no output before the scan ended";
  EXPECT_EQ(first, "foo first\n");
  EXPECT_EQ(rest, "foo second\n");
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(PatternFile, an_empty_file_matches_nothing_and_exits_1) {
  TempTree t;
  t.write("empty", "");
  t.write("f.txt", "foo\nbar\n");
  const auto r = run_process({kBin, "-f", t.path("empty"), t.path("f.txt")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  // ... so -v selects every line, as grep -v -f /dev/null does.
  const auto v = run_process({kBin, "-v", "-f", t.path("empty"), t.path("f.txt")});
  EXPECT_EQ(v.status, 0) << v.err;
  EXPECT_EQ(v.out, "foo\nbar\n");
}

TEST(PatternFile, a_file_holding_one_empty_line_matches_every_line) {
  TempTree t;
  t.write("blank", "\n");
  t.write("f.txt", "foo\n\nbar\n");
  const auto r = run_process({kBin, "-c", "-f", t.path("blank"), t.path("f.txt")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "3\n");
}

TEST(PatternFile, a_directory_or_missing_file_names_the_system_reason) {
  TempTree t;
  t.write("f.txt", "foo\n");
  const auto dir = run_process({kBin, "-f", t.root(), t.path("f.txt")});
  EXPECT_EQ(dir.status, 2);
  EXPECT_NE(dir.err.find("cannot read pattern file '" + t.root() + "': Is a directory"), std::string::npos)
      << dir.err;
  const auto missing = run_process({kBin, "-f", t.path("nope"), t.path("f.txt")});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("'" + t.path("nope") + "': No such file or directory"), std::string::npos)
      << missing.err;
}

}  // namespace
}  // namespace e2e_input_test
}  // namespace stealscan::test

// stealscan-mpi's split files without MPI: the chunk frame and task codecs
// (src/mpi/frames.hpp, file_task.hpp) and rank 0's assembly of a split file's
// chunks (src/mpi/split_file.hpp), fed in the orders ranks may send them.
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "match/literal_matcher.hpp"
#include "mpi/file_task.hpp"
#include "mpi/frames.hpp"
#include "mpi/split_file.hpp"
#include "output/output.hpp"

namespace stealscan::mpi {
// Named after the file: test binaries compile several files as one unit.
namespace mpi_split_file_test {
namespace {

std::span<const std::byte> bytes_of(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

// A chunk of `chunks`, whose lines `texts` are its matching lines at the
// given indices among `owned` lines.
ChunkResult chunk(std::uint32_t k, std::uint32_t chunks, std::uint64_t owned,
                  const std::vector<std::pair<std::uint64_t, std::string>>& hits) {
  ChunkResult c;
  c.key = FileKey{1, 2, 3};
  c.chunk = k;
  c.chunks = chunks;
  c.size = 1000;
  c.lines = owned;
  c.matching_lines = hits.size();
  c.path = "big.log";
  for (const auto& [line, text] : hits) {
    c.fragment.hits.push_back(Fragment::Hit{line, 100 * k + line, text.size(), true, c.fragment.text.size(),
                                            c.fragment.columns.size(), 1, false, true});
    c.fragment.text += text;
    c.fragment.columns.push_back(MatchColumn{0, 0, 6});
  }
  return c;
}

// The frame of `c` as rank 0 receives it, after the kind byte.
ChunkResult through_the_wire(const ChunkResult& c) {
  std::string frame;
  append_chunk_frame(frame, c);
  EXPECT_EQ(static_cast<FrameKind>(frame[0]), FrameKind::chunk);
  return read_chunk_frame(bytes_of(frame).subspan(1));
}

TEST(MpiChunkFrame, ARoundTripKeepsEveryField) {
  ChunkResult c = chunk(2, 5, 40, {{3, "needle one"}, {17, "needle two"}});
  c.fragment.hits[1].has_text = false;  // a long line, read back from the file
  c.fragment.hits[1].context = true;
  c.fragment.columns[1] = MatchColumn{4, 7, 2};
  const ChunkResult back = through_the_wire(c);
  EXPECT_EQ(back.key, c.key);
  EXPECT_EQ(back.chunk, 2u);
  EXPECT_EQ(back.chunks, 5u);
  EXPECT_EQ(back.size, 1000u);
  EXPECT_EQ(back.lines, 40u);
  EXPECT_EQ(back.matching_lines, 2u);
  EXPECT_FALSE(back.failed);
  EXPECT_EQ(back.path, "big.log");
  ASSERT_EQ(back.fragment.hits.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const Fragment::Hit &a = c.fragment.hits[i], &b = back.fragment.hits[i];
    EXPECT_EQ(b.line, a.line);
    EXPECT_EQ(b.offset, a.offset);
    EXPECT_EQ(b.length, a.length);
    EXPECT_EQ(b.has_text, a.has_text);
    EXPECT_EQ(b.text_at, a.text_at);
    EXPECT_EQ(b.columns_at, a.columns_at);
    EXPECT_EQ(b.columns, a.columns);
    EXPECT_EQ(b.context, a.context);
    EXPECT_EQ(b.newline, a.newline);
  }
  EXPECT_EQ(back.fragment.text, c.fragment.text);
  ASSERT_EQ(back.fragment.columns.size(), 2u);
  EXPECT_EQ(back.fragment.columns[1].column, 4u);
  EXPECT_EQ(back.fragment.columns[1].pattern, 7u);
  EXPECT_EQ(back.fragment.columns[1].length, 2u);
}

TEST(MpiChunkFrame, EveryTruncatedFrameIsRefusedWithAMessage) {
  std::string frame;
  append_chunk_frame(frame, chunk(0, 2, 9, {{1, "needle"}, {4, "needles"}}));
  const auto whole = bytes_of(frame).subspan(1);
  for (std::size_t n = 0; n < whole.size(); ++n) {
    try {
      (void)read_chunk_frame(whole.first(n));
      ADD_FAILURE() << "a frame cut to " << n << " of " << whole.size() << " bytes was read";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("chunk frame"), std::string::npos) << e.what();
    }
  }
}

TEST(MpiChunkFrame, AHitWhoseTextRunsPastTheFragmentIsRefused) {
  ChunkResult c = chunk(0, 2, 9, {{1, "needle"}});
  c.fragment.hits[0].length = 99;
  EXPECT_THROW((void)through_the_wire(c), std::runtime_error);
  c = chunk(0, 2, 9, {{1, "needle"}});
  c.fragment.hits[0].columns = 2;  // one column is there
  EXPECT_THROW((void)through_the_wire(c), std::runtime_error);
}

TEST(MpiChunkFrame, AChunkNumberOutsideItsFileIsRefused) {
  ChunkResult c = chunk(0, 2, 9, {});
  c.chunk = 2;
  EXPECT_THROW((void)through_the_wire(c), std::runtime_error);
}

TEST(MpiFileTaskCodec, AChunkTaskAndAFileTaskRoundTrip) {
  using Codec = stealpool::mpi::Codec<FileTask>;
  FileTask t;
  t.kind = ScanTask::Kind::chunk;
  t.path = "dir/a file.log";
  t.key = FileKey{3, 1, 42};
  t.first = 4;
  t.end = 9;
  t.chunks = 12;
  t.size = 3'000'000;
  std::vector<std::byte> out;
  Codec::encode(t, out);
  const FileTask back = Codec::decode(out);
  EXPECT_EQ(back.kind, t.kind);
  EXPECT_EQ(back.path, t.path);
  EXPECT_EQ(back.key, t.key);
  EXPECT_EQ(back.first, 4u);
  EXPECT_EQ(back.end, 9u);
  EXPECT_EQ(back.chunks, 12u);
  EXPECT_EQ(back.size, 3'000'000u);

  FileTask f;
  f.kind = ScanTask::Kind::operand;
  f.path = "x";
  out.clear();
  Codec::encode(f, out);
  EXPECT_EQ(out.size(), 2u);  // the kind byte and the path: nothing else for a file
  EXPECT_EQ(Codec::decode(out).path, "x");
}

TEST(MpiFileTaskCodec, ADirectoryTaskTravelsAsItsOperandAndPathWithoutItsDirectory) {
  using Codec = stealpool::mpi::Codec<FileTask>;
  FileTask t;
  t.kind = ScanTask::Kind::directory;
  t.path = "tree/src/net";
  t.root = 3;
  std::vector<std::byte> out;
  Codec::encode(t, out);
  EXPECT_EQ(out.size(), 1u + 4u + t.path.size());
  const FileTask back = Codec::decode(out);
  EXPECT_EQ(back.kind, ScanTask::Kind::directory);
  EXPECT_EQ(back.path, t.path);
  EXPECT_EQ(back.root, 3u);
  EXPECT_FALSE(back.dir);  // rebuilt from the path where it runs
  for (std::size_t n = 0; n < 5; ++n)  // cut inside the operand number
    EXPECT_THROW((void)Codec::decode(std::span<const std::byte>(out).first(n)), std::runtime_error) << n;
}

TEST(MpiFileTaskCodec, AnUnknownKindOrAnEmptyRangeIsRefused) {
  using Codec = stealpool::mpi::Codec<FileTask>;
  std::vector<std::byte> out;
  FileTask t;
  t.kind = ScanTask::Kind::directory;  // without a path: rank 0's first task, which never travels
  Codec::encode(t, out);
  EXPECT_THROW((void)Codec::decode(out), std::runtime_error);
  out.assign(1, std::byte{200});  // no such kind
  EXPECT_THROW((void)Codec::decode(out), std::runtime_error);
  t.kind = ScanTask::Kind::chunk;
  t.first = 3;
  t.end = 3;
  t.chunks = 5;
  out.clear();
  Codec::encode(t, out);
  EXPECT_THROW((void)Codec::decode(out), std::runtime_error);
  EXPECT_THROW((void)Codec::decode({}), std::runtime_error);
}

// Rank 0's assembly, writing to a string.
struct Assembly {
  LiteralMatcher matcher{{"needle"}};
  HitFormat format;
  std::string written;
  std::string errors;
  Stdout out{written};
  Diagnostics diag{errors};
  Tally tally;
  SplitAssembler split{format, out, diag, tally};
  explicit Assembly(OutputMode mode) : format(mode, FormatOptions{true, true, false, false}, matcher) {}
};

// A file of 4 chunks, each owning 10 lines and matching one.
std::vector<ChunkResult> four_chunks() {
  std::vector<ChunkResult> c;
  for (std::uint32_t k = 0; k < 4; ++k) c.push_back(chunk(k, 4, 10, {{k + 1, "needle " + std::to_string(k)}}));
  return c;
}

TEST(MpiSplitAssembler, LinesAreNumberedAndPrintedInFileOrderWhateverOrderChunksArriveIn) {
  const std::string want = "big.log:2:needle 0\nbig.log:13:needle 1\nbig.log:24:needle 2\nbig.log:35:needle 3\n";
  std::vector<std::uint32_t> order(4);
  std::iota(order.begin(), order.end(), 0u);
  do {
    Assembly a(OutputMode::lines);
    const std::vector<ChunkResult> chunks = four_chunks();
    for (std::size_t i = 0; i < order.size(); ++i) {
      a.split.add(chunks[order[i]]);
      if (i + 1 < order.size()) {
        EXPECT_EQ(a.written, "") << "lines written before the file's last chunk came";
        EXPECT_EQ(a.split.open_files(), 1u);
      }
    }
    EXPECT_EQ(a.written, want) << "order " << order[0] << order[1] << order[2] << order[3];
    EXPECT_EQ(a.split.open_files(), 0u);
    EXPECT_EQ(a.tally.read().matched_files, 1u);
    EXPECT_EQ(a.tally.read().matching_lines, 4u);
  } while (std::next_permutation(order.begin(), order.end()));
}

TEST(MpiSplitAssembler, TheCountIsPrintedOnceWhenEveryChunkIsIn) {
  Assembly a(OutputMode::count);
  std::vector<ChunkResult> chunks = four_chunks();
  for (ChunkResult& c : chunks) c.fragment = Fragment{};  // counting modes send no lines
  a.split.add(chunks[3]);
  a.split.add(chunks[1]);
  a.split.add(chunks[0]);
  EXPECT_EQ(a.written, "");
  a.split.add(chunks[2]);
  EXPECT_EQ(a.written, "big.log:4\n");
}

TEST(MpiSplitAssembler, AFailedChunkEndsTheFilesOutputWithoutItsRecord) {
  Assembly a(OutputMode::count);
  std::vector<ChunkResult> chunks = four_chunks();
  chunks[2].failed = true;
  for (const ChunkResult& c : chunks) a.split.add(c);
  EXPECT_EQ(a.written, "");
  EXPECT_EQ(a.tally.read().matched_files, 0u);
  EXPECT_EQ(a.split.open_files(), 0u);

  Assembly b(OutputMode::lines);
  chunks = four_chunks();
  chunks[2].failed = true;
  chunks[2].fragment = Fragment{};
  for (const ChunkResult& c : chunks) b.split.add(c);
  EXPECT_EQ(b.written, "big.log:2:needle 0\nbig.log:13:needle 1\n");
}

TEST(MpiSplitAssembler, AChunkReceivedTwiceOrWithAnotherCountIsAnError) {
  Assembly a(OutputMode::lines);
  const std::vector<ChunkResult> chunks = four_chunks();
  a.split.add(chunks[1]);
  EXPECT_THROW(a.split.add(chunks[1]), std::runtime_error);
  a.split.add(chunks[0]);
  EXPECT_THROW(a.split.add(chunks[0]), std::runtime_error);  // printed already
  ChunkResult odd = chunks[2];
  odd.chunks = 5;
  EXPECT_THROW(a.split.add(odd), std::runtime_error);
}

TEST(MpiSplitAssembler, TwoSplitFilesAreAssembledApart) {
  Assembly a(OutputMode::lines);
  std::vector<ChunkResult> first = four_chunks(), second = four_chunks();
  for (ChunkResult& c : second) {
    c.key.serial = 4;
    c.path = "other.log";
  }
  a.split.add(second[1]);
  a.split.add(first[0]);
  a.split.add(first[2]);
  a.split.add(second[0]);
  a.split.add(first[3]);
  a.split.add(second[2]);
  a.split.add(second[3]);
  EXPECT_EQ(a.split.open_files(), 1u);
  a.split.add(first[1]);
  EXPECT_EQ(a.written,
            "other.log:2:needle 0\nother.log:13:needle 1\nother.log:24:needle 2\nother.log:35:needle 3\n"
            "big.log:2:needle 0\nbig.log:13:needle 1\nbig.log:24:needle 2\nbig.log:35:needle 3\n");
}

}  // namespace
}  // namespace mpi_split_file_test
}  // namespace stealscan::mpi

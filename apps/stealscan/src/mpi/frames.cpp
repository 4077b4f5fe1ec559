// frames.cpp: the task codec (file_task.hpp) and the chunk frame (frames.hpp).
#include "mpi/frames.hpp"

#include <stdexcept>

namespace stealscan::mpi {

void ByteReader::fail(const std::string& why) const {
  throw std::runtime_error(std::string("stealscan-mpi: ").append(what_).append(": ").append(why));
}

std::span<const std::byte> ByteReader::take(std::uint64_t n) {
  if (n > bytes_.size())
    fail("needs " + std::to_string(n) + " more bytes, " + std::to_string(bytes_.size()) + " are left");
  const std::span<const std::byte> b = bytes_.first(n);
  bytes_ = bytes_.subspan(n);
  return b;
}

namespace {

// A hit's fields one by one: no padding bytes on the wire.
void put_hit(ByteWriter<std::string>& w, const Fragment::Hit& h) {
  w.put(h.line);
  w.put(h.offset);
  w.put(h.length);
  w.put<std::uint64_t>(h.text_at);
  w.put<std::uint64_t>(h.columns_at);
  w.put<std::uint64_t>(h.columns);
  w.put<std::uint8_t>(static_cast<std::uint8_t>(h.has_text | h.context << 1 | h.newline << 2));
}

Fragment::Hit get_hit(ByteReader& r) {
  Fragment::Hit h{};
  h.line = r.get<std::uint64_t>();
  h.offset = r.get<std::uint64_t>();
  h.length = r.get<std::uint64_t>();
  h.text_at = r.get<std::uint64_t>();
  h.columns_at = r.get<std::uint64_t>();
  h.columns = r.get<std::uint64_t>();
  const auto flags = r.get<std::uint8_t>();
  h.has_text = (flags & 1) != 0;
  h.context = (flags & 2) != 0;
  h.newline = (flags & 4) != 0;
  return h;
}

constexpr std::size_t kHitBytes = 6 * 8 + 1;
constexpr std::size_t kColumnBytes = 8 + 4 + 4;

}  // namespace

void append_chunk_frame(std::string& out, const ChunkResult& c) {
  ByteWriter w(out);
  w.put(FrameKind::chunk);
  w.put(c.key);
  w.put(c.chunk);
  w.put(c.chunks);
  w.put(c.size);
  w.put(c.lines);
  w.put(c.matching_lines);
  w.put<std::uint8_t>(c.failed ? 1 : 0);
  w.put_string(c.path);
  const Fragment& f = c.fragment;
  w.put<std::uint64_t>(f.hits.size());
  for (const Fragment::Hit& h : f.hits) put_hit(w, h);
  w.put_string(f.text);
  w.put<std::uint64_t>(f.columns.size());
  for (const MatchColumn& m : f.columns) {
    w.put(m.column);
    w.put(m.pattern);
    w.put(m.length);
  }
}

ChunkResult read_chunk_frame(std::span<const std::byte> bytes) {
  ByteReader r(bytes, "a chunk frame");
  ChunkResult c;
  c.key = r.get<FileKey>();
  c.chunk = r.get<std::uint32_t>();
  c.chunks = r.get<std::uint32_t>();
  c.size = r.get<std::uint64_t>();
  c.lines = r.get<std::uint64_t>();
  c.matching_lines = r.get<std::uint64_t>();
  c.failed = r.get<std::uint8_t>() != 0;
  c.path = r.get_string();
  if (c.chunk >= c.chunks) r.fail("chunk " + std::to_string(c.chunk) + " of " + std::to_string(c.chunks));
  Fragment& f = c.fragment;
  const auto hits = r.get<std::uint64_t>();
  if (hits > r.left() / kHitBytes) r.fail(std::to_string(hits) + " hits in " + std::to_string(r.left()) + " bytes");
  f.hits.reserve(hits);
  for (std::uint64_t i = 0; i < hits; ++i) f.hits.push_back(get_hit(r));
  f.text = r.get_string();
  const auto columns = r.get<std::uint64_t>();
  if (columns != r.left() / kColumnBytes || r.left() % kColumnBytes != 0)
    r.fail(std::to_string(columns) + " columns in " + std::to_string(r.left()) + " bytes");
  f.columns.resize(columns);
  for (MatchColumn& m : f.columns) {
    m.column = r.get<std::uint64_t>();
    m.pattern = r.get<std::uint32_t>();
    m.length = r.get<std::uint32_t>();
  }
  // Every hit's text and columns inside the fragment's (Fragment::view reads them).
  for (const Fragment::Hit& h : f.hits) {
    if (h.has_text && (h.text_at > f.text.size() || h.length > f.text.size() - h.text_at))
      r.fail("a hit's text past the fragment's " + std::to_string(f.text.size()) + " bytes");
    if (h.columns_at > f.columns.size() || h.columns > f.columns.size() - h.columns_at)
      r.fail("a hit's columns past the fragment's " + std::to_string(f.columns.size()));
  }
  return c;
}

}  // namespace stealscan::mpi

using FileTask = stealscan::mpi::FileTask;
using Kind = stealscan::ScanTask::Kind;

void stealpool::mpi::Codec<FileTask>::encode(const FileTask& t, std::vector<std::byte>& out) {
  stealscan::mpi::ByteWriter w(out);
  w.put(t.kind);
  if (t.kind == Kind::chunk) {
    w.put(t.key);
    w.put(t.first);
    w.put(t.end);
    w.put(t.chunks);
    w.put(t.size);
  } else if (t.kind == Kind::directory) {
    w.put(t.root);
  }
  w.put_bytes(t.path);
}

FileTask stealpool::mpi::Codec<FileTask>::decode(std::span<const std::byte> bytes) {
  stealscan::mpi::ByteReader r(bytes, "a file task");
  FileTask t;
  t.kind = r.get<Kind>();
  if (t.kind != Kind::file && t.kind != Kind::operand && t.kind != Kind::chunk && t.kind != Kind::directory)
    r.fail("unknown kind " + std::to_string(static_cast<int>(t.kind)));
  if (t.kind == Kind::directory) t.root = r.get<std::uint32_t>();
  if (t.kind == Kind::chunk) {
    t.key = r.get<stealscan::mpi::FileKey>();
    t.first = r.get<std::uint32_t>();
    t.end = r.get<std::uint32_t>();
    t.chunks = r.get<std::uint32_t>();
    t.size = r.get<std::uint64_t>();
    if (t.first >= t.end || t.end > t.chunks)
      r.fail("chunks [" + std::to_string(t.first) + ", " + std::to_string(t.end) + ") of " +
             std::to_string(t.chunks));
  }
  if (r.left() > UINT32_MAX) r.fail("a path of " + std::to_string(r.left()) + " bytes");
  t.path = r.rest_string(r.left());
  if (t.kind == Kind::directory && t.path.empty()) r.fail("a directory task without a path");
  return t;
}

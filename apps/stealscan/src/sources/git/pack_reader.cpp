// pack_reader.cpp: PackReader (pack_reader.hpp).
#include "sources/git/pack_reader.hpp"

#include <cstring>

#include "sources/git/delta.hpp"

namespace stealscan::git {
namespace {

// A bound on a delta chain's length: git writes at most 4095 (pack.depth);
// REF_DELTA entries could otherwise send a damaged pack round in a loop.
constexpr std::size_t kMaxChain = 10000;
// And on the deltas a chain inflates in all: REF_DELTAs in a loop, each a
// large delta compressed to a few bytes, would otherwise make a damaged pack
// take 10,000 times its largest delta in memory. A real chain this heavy
// (50 deltas of 1.3 MiB) is left to libgit2.
constexpr std::uint64_t kMaxChainBytes = std::uint64_t{64} << 20;
// The cache: enough for the objects of a few delta families read in pack
// order; per worker.
constexpr std::size_t kCacheSlots = 1024;
constexpr std::size_t kCacheBytes = std::size_t{32} << 20;
// An entry's first read: most deltas and small objects whole.
constexpr std::uint64_t kFirstRead = 64 * 1024;

bool is_whole(unsigned type) { return type >= GIT_OBJECT_COMMIT && type <= GIT_OBJECT_TAG; }

// Marks `r` damaged: "<pack>, entry at <offset>: <what>".
PackReader::Status damaged(PackReader::Result& r, const PackFile& pf, std::uint64_t offset, std::string_view what) {
  r.status = PackReader::Status::damaged;
  r.why = pf.name() + ", entry at " + std::to_string(offset) + ": ";
  r.why.append(what);
  return r.status;
}

}  // namespace

PackReader::PackReader(const PackSet& packs) : packs_(packs), cache_(kCacheSlots, kCacheBytes) {}

// The entry header (gitformat-pack(5)): the type in bits 4-6 of the first
// byte, the size in its low 4 bits and then 7 bits a byte while the high bit
// is set; an OFS_DELTA's base as a distance back (7 bits a byte, most
// significant first, each continuation adding one), a REF_DELTA's as an id.
// The entry is read from its start up to kFirstRead bytes: most entries
// (deltas, small objects) whole in one pread.
PackReader::Status PackReader::parse(PackLocation at, Entry& e, Result& r) {
  const PackFile& pf = packs_.pack(at.pack);
  const std::uint64_t end = pf.entry_end(at.offset);
  if (end == 0) return damaged(r, pf, at.offset, "outside the pack's object data (is the pack cut short?)");
  e.at = at;
  e.len = end - at.offset;
  if (!pf.read(at.offset, static_cast<std::size_t>(std::min(e.len, kFirstRead)), raw_, r.why)) {
    r.status = Status::damaged;
    return r.status;
  }
  return parse_header(raw_.view(), e, r);
}

PackReader::Status PackReader::parse_header(std::string_view d, Entry& e, Result& r) const {
  const PackFile& pf = packs_.pack(e.at.pack);
  const PackLocation at = e.at;
  std::size_t pos = 0;
  auto c = static_cast<unsigned char>(d[pos++]);
  e.type = (c >> 4) & 7U;
  e.size = c & 15U;
  for (unsigned shift = 4; (c & 0x80U) != 0; shift += 7) {
    if (pos >= d.size() || shift > 57) return damaged(r, pf, at.offset, "a malformed entry header");
    c = static_cast<unsigned char>(d[pos++]);
    e.size |= std::uint64_t{c & 0x7fU} << shift;
  }
  if (e.type == GIT_OBJECT_OFS_DELTA) {
    if (pos >= d.size()) return damaged(r, pf, at.offset, "a malformed delta base");
    c = static_cast<unsigned char>(d[pos++]);
    std::uint64_t back = c & 0x7fU;
    while ((c & 0x80U) != 0) {
      if (pos >= d.size() || back > (UINT64_MAX >> 7) - 1) return damaged(r, pf, at.offset, "a malformed delta base");
      c = static_cast<unsigned char>(d[pos++]);
      back = ((back + 1) << 7) | (c & 0x7fU);
    }
    if (back == 0 || back > at.offset) return damaged(r, pf, at.offset, "a delta base outside the pack");
    e.base = PackLocation{at.pack, at.offset - back};
  } else if (e.type == GIT_OBJECT_REF_DELTA) {
    git_oid id;
    if (d.size() - pos < sizeof id.id) return damaged(r, pf, at.offset, "a malformed delta base");
    std::memcpy(id.id, d.data() + pos, sizeof id.id);
    pos += sizeof id.id;
    if (const std::optional<std::uint64_t> off = pf.index().offset(id)) {
      e.base = PackLocation{at.pack, *off};
    } else if (const std::optional<PackLocation> elsewhere = packs_.locate(id)) {
      e.base = *elsewhere;
    } else {  // a loose base (a thin pack's): libgit2 has it
      r.status = Status::fallback;
      return r.status;
    }
  } else if (!is_whole(e.type)) {
    return damaged(r, pf, at.offset, "type " + std::to_string(e.type) + " is not an object type");
  }
  e.data = pos;
  return Status::ok;
}

bool PackReader::inflate(const Entry& e, Bytes& out, Result& r) {
  const PackFile& pf = packs_.pack(e.at.pack);
  if (raw_.size() < e.len) {  // the first read took only the start
    if (e.len > SIZE_MAX / 2) {
      damaged(r, pf, e.at.offset, "an entry larger than memory");
      return false;
    }
    if (!pf.read(e.at.offset, static_cast<std::size_t>(e.len), raw_, r.why)) {
      r.status = Status::damaged;
      return false;
    }
  }
  if (inflater_.inflate(raw_.view().substr(e.data), e.size, out)) return true;
  damaged(r, pf, e.at.offset, "its zlib stream does not inflate to its " + std::to_string(e.size) + " bytes");
  return false;
}

std::optional<PackLocation> PackReader::delta_base(PackLocation at, std::string_view bytes) const {
  const std::uint64_t end = packs_.pack(at.pack).entry_end(at.offset);
  if (end == 0 || bytes.empty()) return std::nullopt;
  Entry e;
  e.at = at;
  e.len = end - at.offset;
  Result r;
  if (parse_header(bytes.substr(0, std::min<std::uint64_t>(bytes.size(), e.len)), e, r) != Status::ok ||
      is_whole(e.type))
    return std::nullopt;
  return e.base;
}

PackReader::Result PackReader::read(PackLocation at, std::uint64_t max_size) {
  Result r;
  chain_.clear();
  // Down the chain to a base: one in the cache, or a whole object. Each
  // delta is inflated on the way (the top one first: its header says the
  // object's size, so an object over max_size is refused before any base is
  // read).
  std::string_view cur;
  unsigned type = 0;
  std::uint64_t chain_bytes = 0;
  for (PackLocation loc = at;;) {
    if (const ObjectCache::Object* kept = cache_.find(loc)) {
      cur = kept->bytes.view();
      type = static_cast<unsigned>(kept->type);
      break;
    }
    const PackFile& pf = packs_.pack(loc.pack);
    if (chain_.size() == kMaxChain) {
      damaged(r, pf, at.offset, "a delta chain over 10,000 long (in a loop?)");
      return r;
    }
    Entry e;
    if (parse(loc, e, r) != Status::ok) return r;
    if (is_whole(e.type)) {
      if (e.size > max_size) {
        r.status = chain_.empty() ? Status::too_large : Status::fallback;
        return r;
      }
      if (!inflate(e, base_, r)) return r;
      type = e.type;
      const ObjectCache::Object* kept = cache_.put(loc, static_cast<git_object_t>(type), base_);
      cur = kept != nullptr ? kept->bytes.view() : base_.view();
      break;
    }
    if (e.size > max_size) return r;  // a delta larger than the object may be: odd, left to libgit2
    chain_bytes += e.size;
    if (chain_bytes > kMaxChainBytes) return r;
    if (deltas_.size() <= chain_.size()) deltas_.emplace_back();
    Bytes& delta = deltas_[chain_.size()];
    if (!inflate(e, delta, r)) return r;
    const std::optional<DeltaHeader> h = read_delta_header(delta.view());
    if (!h) {
      damaged(r, pf, loc.offset, "a malformed delta");
      return r;
    }
    if (h->result_size > max_size) {
      if (chain_.empty()) r.status = Status::too_large;
      return r;
    }
    chain_.push_back(e);
    loc = e.base;
  }
  // Up again: each delta applied to the object below it; every result is
  // cached, the intermediate ones being other blobs' bases.
  for (std::size_t i = chain_.size(); i-- > 0;) {
    const std::string_view delta = deltas_[i].view();
    const std::optional<DeltaHeader> h = read_delta_header(delta);
    if (!h || !apply_delta(cur, delta, *h, work_)) {
      damaged(r, packs_.pack(chain_[i].at.pack), chain_[i].at.offset, "a delta that does not fit its base");
      return r;
    }
    if (const ObjectCache::Object* kept = cache_.put(chain_[i].at, static_cast<git_object_t>(type), work_)) {
      cur = kept->bytes.view();
    } else {
      base_.swap(work_);
      cur = base_.view();
    }
  }
  if (!is_whole(type)) {
    damaged(r, packs_.pack(at.pack), at.offset, "not an object type");
    return r;
  }
  if (chain_.empty() && cur.size() > max_size) {  // cached when read as another's base
    r.status = Status::too_large;
    return r;
  }
  r.status = Status::ok;
  r.type = static_cast<git_object_t>(type);
  r.bytes = cur;
  return r;
}

}  // namespace stealscan::git

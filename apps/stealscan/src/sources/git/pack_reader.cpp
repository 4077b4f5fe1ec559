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
constexpr std::size_t kPackHeader = 12;

bool is_whole(unsigned type) { return type >= GIT_OBJECT_COMMIT && type <= GIT_OBJECT_TAG; }

}  // namespace

PackReader::PackReader(const PackSet& packs) : packs_(packs), cache_(kCacheSlots, kCacheBytes) {}

// The entry header (gitformat-pack(5)): the type in bits 4-6 of the first
// byte, the size in its low 4 bits and then 7 bits a byte while the high bit
// is set; an OFS_DELTA's base as a distance back (7 bits a byte, most
// significant first, each continuation adding one), a REF_DELTA's as an id.
bool PackReader::parse(PackLocation at, Entry& e) const {
  const PackFile& pf = packs_.pack(at.pack);
  const std::string_view d = pf.data();
  if (at.offset < kPackHeader || at.offset >= d.size()) return false;
  auto pos = static_cast<std::size_t>(at.offset);
  auto c = static_cast<unsigned char>(d[pos++]);
  e.at = at;
  e.type = (c >> 4) & 7U;
  e.size = c & 15U;
  for (unsigned shift = 4; (c & 0x80U) != 0; shift += 7) {
    if (pos >= d.size() || shift > 57) return false;
    c = static_cast<unsigned char>(d[pos++]);
    e.size |= std::uint64_t{c & 0x7fU} << shift;
  }
  if (e.type == GIT_OBJECT_OFS_DELTA) {
    if (pos >= d.size()) return false;
    c = static_cast<unsigned char>(d[pos++]);
    std::uint64_t back = c & 0x7fU;
    while ((c & 0x80U) != 0) {
      if (pos >= d.size() || back > (UINT64_MAX >> 7) - 1) return false;
      c = static_cast<unsigned char>(d[pos++]);
      back = ((back + 1) << 7) | (c & 0x7fU);
    }
    if (back == 0 || back > at.offset) return false;
    e.base = PackLocation{at.pack, at.offset - back};
  } else if (e.type == GIT_OBJECT_REF_DELTA) {
    git_oid id;
    if (d.size() - pos < sizeof id.id) return false;
    std::memcpy(id.id, d.data() + pos, sizeof id.id);
    pos += sizeof id.id;
    const std::optional<std::uint64_t> off = pf.index().offset(id);
    if (!off) return false;  // a base in another pack or loose (a thin pack's)
    e.base = PackLocation{at.pack, *off};
  } else if (!is_whole(e.type)) {
    return false;
  }
  e.data = pos;
  return true;
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
    if (chain_.size() == kMaxChain) return r;
    Entry e;
    if (!parse(loc, e)) return r;
    const std::string_view in = packs_.pack(loc.pack).data().substr(e.data);
    if (is_whole(e.type)) {
      if (e.size > max_size) {
        if (chain_.empty()) r.status = Status::too_large;
        return r;
      }
      if (!inflater_.inflate(in, e.size, base_)) return r;
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
    if (!inflater_.inflate(in, e.size, delta)) return r;
    const std::optional<DeltaHeader> h = read_delta_header(delta.view());
    if (!h) return r;
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
    if (!h || !apply_delta(cur, delta, *h, work_)) return r;
    if (const ObjectCache::Object* kept = cache_.put(chain_[i].at, static_cast<git_object_t>(type), work_)) {
      cur = kept->bytes.view();
    } else {
      base_.swap(work_);
      cur = base_.view();
    }
  }
  if (!is_whole(type)) return r;
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

// object_parse.cpp: parse_commit() and parse_tree() (object_parse.hpp).
#include "sources/git/object_parse.hpp"

#include <cstring>

namespace stealscan::git {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// 40 hex digits into `id`. Not git_oid_fromstrn: that sets libgit2's error
// state on failure, which needs the library initialised; this needs nothing.
bool parse_hex(const char* hex, git_oid& id) {
  for (std::size_t i = 0; i < GIT_OID_RAWSZ; ++i) {
    const int hi = hex_digit(hex[2 * i]);
    const int lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    id.id[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return true;
}

// Reads "<key> <40 hex digits>\n" at `at` into `id`.
bool id_line(std::string_view raw, std::size_t& at, std::string_view key, git_oid& id) {
  if (raw.size() - at < key.size() + 1 + GIT_OID_HEXSZ + 1 || raw.compare(at, key.size(), key) != 0) return false;
  at += key.size();
  if (raw[at] != ' ' || raw[at + 1 + GIT_OID_HEXSZ] != '\n') return false;
  if (!parse_hex(raw.data() + at + 1, id)) return false;
  at += 1 + GIT_OID_HEXSZ + 1;
  return true;
}

// What libgit2 reports for a raw mode (its tree.c, normalize_filemode): the
// tree type wins, then any execute bit makes an executable file, then the
// submodule and link types, anything else is a regular file.
git_filemode_t normalise(unsigned mode) {
  constexpr unsigned kType = 0170000;
  if ((mode & kType) == GIT_FILEMODE_TREE) return GIT_FILEMODE_TREE;
  if ((mode & 0100U) != 0) return GIT_FILEMODE_BLOB_EXECUTABLE;
  if ((mode & kType) == GIT_FILEMODE_COMMIT) return GIT_FILEMODE_COMMIT;
  if ((mode & kType) == GIT_FILEMODE_LINK) return GIT_FILEMODE_LINK;
  return GIT_FILEMODE_BLOB;
}

}  // namespace

bool parse_commit(std::string_view raw, git_oid& tree, std::vector<git_oid>& parents) {
  parents.clear();
  std::size_t at = 0;
  if (!id_line(raw, at, "tree", tree)) return false;
  git_oid p;
  while (at < raw.size() && raw.compare(at, 7, "parent ") == 0) {
    if (!id_line(raw, at, "parent", p)) return false;
    parents.push_back(p);
  }
  return true;
}

bool parse_tree(std::string_view raw, std::vector<TreeEntry>& out) {
  out.clear();
  std::size_t at = 0;
  while (at < raw.size()) {
    unsigned mode = 0;
    std::size_t digits = 0;
    for (; at < raw.size() && raw[at] != ' '; ++at, ++digits) {
      if (raw[at] < '0' || raw[at] > '7' || digits == 6) return false;
      mode = mode * 8 + static_cast<unsigned>(raw[at] - '0');
    }
    if (digits == 0 || at == raw.size() || mode > 0xffffU) return false;  // libgit2 keeps a mode in 16 bits
    const std::size_t name = ++at;
    const std::size_t nul = raw.find('\0', name);
    if (nul == std::string_view::npos || nul == name || raw.size() - (nul + 1) < GIT_OID_RAWSZ) return false;
    TreeEntry e{raw.substr(name, nul - name), normalise(mode), {}};
    std::memcpy(e.id.id, raw.data() + nul + 1, GIT_OID_RAWSZ);
    out.push_back(e);
    at = nul + 1 + GIT_OID_RAWSZ;
  }
  return true;
}

}  // namespace stealscan::git

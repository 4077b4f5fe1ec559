// object_reader.cpp: ObjectReader (object_reader.hpp).
#include "sources/git/object_reader.hpp"

namespace stealscan::git {
namespace {

// GitError with libgit2's reason alone: the caller says what was being read.
void ok(int rc) {
  if (rc < 0) throw GitError(last_error(rc));
}

}  // namespace

ObjectReader::Object ObjectReader::read(const git_oid& id, std::optional<PackLocation> at, std::uint64_t max_size) {
  if (at) {
    const PackReader::Result r = pack_.read(*at, max_size);
    if (r.status == PackReader::Status::too_large) return Object{true, GIT_OBJECT_INVALID, {}};
    if (r.status == PackReader::Status::ok) return Object{false, r.type, r.bytes};
    // Not handed on to libgit2: its reader maps packs, and would turn a pack
    // cut short under us into a SIGBUS (README.md, "Errors").
    if (r.status == PackReader::Status::damaged) throw GitError(r.why);
  }
  last_.reset();
  {  // the size first, as the pack reader does
    std::size_t size = 0;
    git_object_t type = GIT_OBJECT_INVALID;
    ok(git_odb_read_header(&size, &type, odb_, &id));
    if (size > max_size) return Object{true, type, {}};
  }
  git_odb_object* o = nullptr;
  ok(git_odb_read(&o, odb_, &id));
  last_.reset(o);
  return Object{false, git_odb_object_type(o),
                std::string_view(static_cast<const char*>(git_odb_object_data(o)), git_odb_object_size(o))};
}

}  // namespace stealscan::git

// changes.cpp: for_each_change() (changes.hpp).
#include "sources/git/changes.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "sources/read_all.hpp"

namespace stealscan::git {
namespace {

// What git_diff_foreach gives per file: where the new side is, and its added lines.
struct Delta {
  std::string path;
  git_oid id;
  std::vector<std::uint64_t> added;
  bool binary = false;
};

struct Collected {
  std::vector<Delta> deltas;
  Delta* current = nullptr;  // the file the line callbacks are about
};

bool is_file(std::uint16_t mode) { return mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE; }

int on_file(const git_diff_delta* d, float /*progress*/, void* payload) {
  auto* c = static_cast<Collected*>(payload);
  c->current = nullptr;
  if (d->status == GIT_DELTA_DELETED || !is_file(d->new_file.mode) || d->new_file.path == nullptr) return 0;
  c->deltas.push_back(Delta{d->new_file.path, d->new_file.id, {}, (d->flags & GIT_DIFF_FLAG_BINARY) != 0});
  c->current = &c->deltas.back();
  return 0;
}

int on_binary(const git_diff_delta* /*d*/, const git_diff_binary* /*b*/, void* payload) {
  auto* c = static_cast<Collected*>(payload);
  if (c->current != nullptr) c->current->binary = true;
  return 0;
}

int on_line(const git_diff_delta* /*d*/, const git_diff_hunk* /*h*/, const git_diff_line* l, void* payload) {
  auto* c = static_cast<Collected*>(payload);
  if (c->current != nullptr && l->origin == GIT_DIFF_LINE_ADDITION && l->new_lineno > 0)
    c->current->added.push_back(static_cast<std::uint64_t>(l->new_lineno));
  return 0;
}

}  // namespace

void for_each_change(git_repository* repo, ChangeSet which, std::uint64_t max_size,
                     const std::function<void(ChangedFile&)>& each, std::vector<std::string>& errors) {
  const char* workdir = git_repository_workdir(repo);
  if (workdir == nullptr) throw GitError("'" + std::string(git_repository_path(repo)) + "' is a bare repository: it has no staged or uncommitted changes");
  Tree head;  // none for an unborn HEAD: every file is new
  if (git_repository_head_unborn(repo) != 1) {
    git_object* obj = nullptr;
    check(git_revparse_single(&obj, repo, "HEAD^{tree}"), "cannot read HEAD's tree");
    head.reset(reinterpret_cast<git_tree*>(obj));
  }
  git_diff_options opts;  // initialised by the library, not by its macro (which clang finds short of fields)
  check(git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION), "cannot set up a diff");
  opts.context_lines = 0;
  git_diff* raw = nullptr;
  if (which == ChangeSet::staged) {
    git_index* index = nullptr;
    check(git_repository_index(&index, repo), "cannot read the index");
    const int rc = git_diff_tree_to_index(&raw, repo, head.get(), index, &opts);
    git_index_free(index);
    check(rc, "cannot diff the index against HEAD");
  } else {
    opts.flags |= GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS | GIT_DIFF_SHOW_UNTRACKED_CONTENT;
    check(git_diff_tree_to_workdir_with_index(&raw, repo, head.get(), &opts), "cannot diff the work tree against HEAD");
  }
  const Diff diff(raw);
  git_diff_find_options find;
  check(git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION), "cannot set up rename finding");
  find.flags = GIT_DIFF_FIND_RENAMES | GIT_DIFF_FIND_FOR_UNTRACKED;
  check(git_diff_find_similar(raw, &find), "cannot find renames");
  Collected c;
  c.deltas.reserve(git_diff_num_deltas(raw));  // `current` points into it: no reallocation
  check(git_diff_foreach(raw, on_file, on_binary, nullptr, on_line, &c), "cannot diff the changes");
  std::sort(c.deltas.begin(), c.deltas.end(), [](const Delta& a, const Delta& b) { return a.path < b.path; });

  Odb odb;
  if (which == ChangeSet::staged) {
    git_odb* o = nullptr;
    check(git_repository_odb(&o, repo), "cannot open the object database");
    odb.reset(o);
  }
  ChangedFile f;
  for (Delta& d : c.deltas) {
    f.path = std::move(d.path);
    f.added = std::move(d.added);
    std::sort(f.added.begin(), f.added.end());
    f.binary = d.binary;
    f.too_large = false;
    f.bytes.clear();
    if (which == ChangeSet::staged) {
      std::size_t size = 0;
      git_object_t type{};
      int rc = git_odb_read_header(&size, &type, odb.get(), &d.id);
      if (rc == 0 && size > max_size) {
        f.too_large = true;
      } else if (rc == 0) {
        git_odb_object* o = nullptr;
        rc = git_odb_read(&o, odb.get(), &d.id);
        if (rc == 0) {
          const OdbObject obj(o);
          f.bytes.assign(static_cast<const char*>(git_odb_object_data(o)), git_odb_object_size(o));
        }
      }
      if (rc < 0) {
        errors.push_back(f.path + ": cannot read its staged blob " + hex(d.id) + ": " + last_error(rc));
        continue;
      }
    } else {
      // As the file scan reads a file: read_all(), stopped past max_size.
      const int fd = ::open((std::string(workdir) + f.path).c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        errors.push_back(f.path + ": cannot read it: " + std::strerror(errno));
        continue;
      }
      try {
        f.too_large = !read_all(fd, f.bytes, max_size);
        ::close(fd);
      } catch (const std::system_error& e) {
        ::close(fd);
        errors.push_back(f.path + ": cannot read it: " + e.code().message());
        continue;
      }
      if (f.too_large) f.bytes.clear();
    }
    each(f);
  }
}

}  // namespace stealscan::git

// commit_info.cpp: read_commit_info() (commit_info.hpp).
#include "sources/git/commit_info.hpp"

#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace stealscan::git {

std::string iso8601(git_time_t t, int offset_minutes) {
  const std::time_t local = static_cast<std::time_t>(t + static_cast<git_time_t>(offset_minutes) * 60);
  std::tm tm{};
  if (::gmtime_r(&local, &tm) == nullptr) return std::to_string(t);
  const int off = std::abs(offset_minutes);
  char buf[96];  // room for any int the fields can hold (-Wformat-truncation)
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, offset_minutes < 0 ? '-' : '+', off / 60, off % 60);
  return buf;
}

CommitInfo read_commit_info(git_repository* repo, const git_oid& id) {
  git_commit* c = nullptr;
  check(git_commit_lookup(&c, repo, &id), "commit " + hex(id));
  const Commit commit(c);
  CommitInfo info;
  if (const git_signature* a = git_commit_author(c)) {
    info.author = a->name != nullptr ? a->name : "";
    info.email = a->email != nullptr ? a->email : "";
    info.date = iso8601(a->when.time, a->when.offset);
  }
  const char* m = git_commit_message(c);
  info.message = m != nullptr ? m : "";
  while (!info.message.empty() && (info.message.back() == '\n' || info.message.back() == '\r'))
    info.message.pop_back();
  return info;
}

}  // namespace stealscan::git

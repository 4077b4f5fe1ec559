// commit_info.hpp: read_commit_info(), what a finding says of its commit:
// author, email, author date (ISO 8601 with the author's offset) and message.
#pragma once

#include <string>

#include "sources/git/git_handle.hpp"

namespace stealscan::git {

struct CommitInfo {
  std::string author;
  std::string email;
  std::string date;     // e.g. 2024-03-01T12:30:00+01:00
  std::string message;  // the whole message, trailing newlines removed (as gitleaks' Message)
};

CommitInfo read_commit_info(git_repository* repo, const git_oid& id);  // GitError if unreadable

// `t` seconds since the epoch at `offset_minutes` east of UTC, as ISO 8601.
std::string iso8601(git_time_t t, int offset_minutes);

}  // namespace stealscan::git

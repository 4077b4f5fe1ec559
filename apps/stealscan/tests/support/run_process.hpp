// run_process.hpp: run_process(), runs a program, captures its stdout and stderr,
// and reports its exit status and peak memory (max RSS, from wait4's rusage of
// that child alone). For the end-to-end tests.
//
// Careful with max RSS: a forked child starts with the parent's resident pages,
// and the kernel keeps that peak across exec. Compare runs made from the same
// parent state, and pass keep_stdout = false so that a large output is not held
// by the test between them.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace stealscan::test {

struct ProcessResult {
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
  long max_rss_kib = 0;
};

inline ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env_extra = {},
                                 bool keep_stdout = true) {
  int out_pipe[2], err_pipe[2];
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (keep_stdout) {
      ::dup2(out_pipe[1], 1);
    } else {
      ::close(1);
      ::open("/dev/null", O_WRONLY);  // lowest free descriptor: 1
    }
    ::dup2(err_pipe[1], 2);
    // Standard input is /dev/null: a program that reads it when nothing is piped
    // in (stealscan with no path) must not wait on the test runner's input.
    const int null_in = ::open("/dev/null", O_RDONLY);
    if (null_in >= 0 && null_in != 0) {
      ::dup2(null_in, 0);
      ::close(null_in);
    }
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    for (const auto& kv : env_extra) ::putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    const std::string msg = "exec " + argv[0] + " failed: " + std::strerror(errno) + "\n";
    [[maybe_unused]] ssize_t w = ::write(2, msg.data(), msg.size());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ProcessResult r;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("poll failed");
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  int status = 0;
  rusage ru{};
  while (::wait4(pid, &status, 0, &ru) < 0)
    if (errno != EINTR) throw std::runtime_error("wait4 failed");
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.max_rss_kib = ru.ru_maxrss;
  return r;
}

// The output's lines, sorted (parallel output has no order across files).
inline std::vector<std::string> sorted_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::sort(lines.begin(), lines.end());
  return lines;
}

// grep -c prints every file, with 0 for no match; stealscan -c, like rg -c, only
// files with a match.
inline std::vector<std::string> without_zero_counts(std::vector<std::string> lines) {
  std::erase_if(lines, [](const std::string& l) { return l.size() >= 2 && l.compare(l.size() - 2, 2, ":0") == 0; });
  return lines;
}

}  // namespace stealscan::test

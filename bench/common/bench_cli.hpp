// bench/common/bench_cli.hpp: command-line values for bench/'s tools: positive
// integers, worker lists, option values. A bad value exits with status 2 and a
// message naming the flag and the value.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace stealbench {

// A positive integer option value, at most `limit`.
inline long long positive_arg(const char* flag, const char* text, long long limit = 1'000'000) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v <= 0 || v > limit) {
    std::fprintf(stderr, "%s: bad value '%s' (want a positive integer up to %lld)\n", flag, text, limit);
    std::exit(2);
  }
  return v;
}

// "1,2,8" -> {1, 2, 8}.
inline std::vector<std::size_t> worker_list(const char* flag, const std::string& list) {
  std::vector<std::size_t> out;
  for (std::size_t pos = 0; pos <= list.size();) {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    out.push_back(static_cast<std::size_t>(positive_arg(flag, list.substr(pos, comma - pos).c_str(), 4096)));
    pos = comma + 1;
  }
  return out;
}

// The value after argv[i] (i moves past it), or exit 2.
inline const char* option_value(int argc, char** argv, int& i, const char* flag) {
  if (i + 1 >= argc) {
    std::fprintf(stderr, "%s needs a value\n", flag);
    std::exit(2);
  }
  return argv[++i];
}

}  // namespace stealbench

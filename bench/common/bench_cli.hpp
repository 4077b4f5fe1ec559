// bench/common/bench_cli.hpp: what every comparison tool of bench/ shares: the
// statistics of one row's repetitions, the common options (--workers LIST,
// --reps R, --only SUBSTR, --quick) and the name of the OpenMP peer's runtime.
// Bad values exit with status 2 and a message naming the flag and the value.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace stealbench {

// The repetitions of one row, in ms (or whatever unit the tool reports).
struct Samples {
  std::vector<double> ms;

  double median() const {
    auto v = ms;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
  double min() const { return *std::min_element(ms.begin(), ms.end()); }
  double max() const { return *std::max_element(ms.begin(), ms.end()); }
};

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

// The options every comparison tool takes; a tool's own Options derive from it.
struct CommonOptions {
  std::vector<std::size_t> workers{1, 2};
  int reps = 5;
  bool reps_given = false;
  std::string only;  // run only the rows whose key contains this
  bool quick = false;
};

// The value after argv[i] (i moves past it), or exit 2.
inline const char* option_value(int argc, char** argv, int& i, const char* flag) {
  if (i + 1 >= argc) {
    std::fprintf(stderr, "%s needs a value\n", flag);
    std::exit(2);
  }
  return argv[++i];
}

// Reads argv[i] (and its value) if it is a common option; false if it is not.
inline bool parse_common_option(int argc, char** argv, int& i, CommonOptions& o) {
  if (!std::strcmp(argv[i], "--workers")) {
    o.workers = worker_list("--workers", option_value(argc, argv, i, "--workers"));
  } else if (!std::strcmp(argv[i], "--reps")) {
    o.reps = static_cast<int>(positive_arg("--reps", option_value(argc, argv, i, "--reps")));
    o.reps_given = true;
  } else if (!std::strcmp(argv[i], "--only")) {
    o.only = option_value(argc, argv, i, "--only");
  } else if (!std::strcmp(argv[i], "--quick")) {
    o.quick = true;
  } else {
    return false;
  }
  return true;
}

// After parsing: --quick without --reps means one rep.
inline void finish_common_options(CommonOptions& o) {
  if (o.quick && !o.reps_given) o.reps = 1;
}

// The OpenMP runtime the tool's OpenMP peer uses (STEALBENCH_HAVE_OMP is set by
// the tool's CMake target).
inline const char* omp_runtime_name() {
#if !STEALBENCH_HAVE_OMP
  return "not built";
#elif defined(__clang__)
  return "libomp";
#else
  return "libgomp";
#endif
}

}  // namespace stealbench

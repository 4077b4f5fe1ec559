// engine_bench: the matching engines alone, in memory, no file system: the time
// matching_lines() takes over a corpus, per engine and pattern set. What docs/matching.md
// ("Choosing an engine") quotes to choose between the pair filter and Vectorscan.
//
// Usage: stealscan_engine_bench [--reps N] FILE...
//   The files are concatenated (up to 256 MiB) and cut into blocks of complete
//   lines of about 256 KiB, as the scanner does. Each row runs the block loop
//   --reps times (default 5) and prints the median GB/s and matching lines.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "match/matcher.hpp"

namespace {

using stealscan::Engine;
using stealscan::PatternSyntax;

struct Row {
  const char* name;
  std::vector<std::string> patterns;
  PatternSyntax syntax;
};

double run(const stealscan::Matcher& m, const std::string& corpus, const std::vector<std::size_t>& cuts,
           std::size_t* lines) {
  std::vector<std::size_t> out;
  std::size_t n = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const char* b = corpus.data() + cuts[i];
    const char* e = corpus.data() + cuts[i + 1] - 1;  // without the block's last '\n'
    m.matching_lines(b, e, out, false);
    n += out.size();
  }
  *lines = n;
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  std::string corpus;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
      continue;
    }
    std::ifstream in(a, std::ios::binary);
    corpus.append(std::istreambuf_iterator<char>(in), {});
    if (!corpus.empty() && corpus.back() != '\n') corpus += '\n';
    if (corpus.size() > (256u << 20)) break;
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "usage: stealscan_engine_bench [--reps N] FILE...\n");
    return 2;
  }
  std::vector<std::size_t> cuts{0};
  while (cuts.back() < corpus.size()) {
    std::size_t at = std::min(corpus.size(), cuts.back() + (256u << 10));
    const std::size_t nl = corpus.find('\n', at == 0 ? 0 : at - 1);
    cuts.push_back(nl == std::string::npos ? corpus.size() : nl + 1);
  }
  const std::vector<std::string> secrets{"AKIA", "ghp_", "-----BEGIN", "return", "password=", "xoxb-",
                                         "sk_live_", "api_key", "BEGIN_RSA", "token="};
  std::vector<Row> rows;
  for (std::size_t n : {1u, 2u, 3u, 4u, 6u, 8u, 10u})
    rows.push_back({"literals", std::vector<std::string>(secrets.begin(), secrets.begin() + static_cast<long>(n)),
                    PatternSyntax::literal});
  rows.push_back({"frequent", {"include"}, PatternSyntax::literal});
  rows.push_back({"frequent", {"int", "char", "void"}, PatternSyntax::literal});
  rows.push_back({"regex", {"[A-Z][a-z]+Exception"}, PatternSyntax::regex});
  rows.push_back({"regex", {"^\\s*#\\s*include"}, PatternSyntax::regex});

  std::printf("corpus %.1f MiB in %zu blocks, %d reps, median GB/s\n", static_cast<double>(corpus.size()) / (1 << 20),
              cuts.size() - 1, reps);
  std::printf("%-10s %-4s %12s %12s %12s %10s\n", "set", "n", "auto", "vectorscan", "re2", "lines");
  for (const Row& r : rows) {
    std::printf("%-10s %-4zu", r.name, r.patterns.size());
    std::size_t lines = 0;
    for (Engine e : {Engine::automatic, Engine::vectorscan, Engine::re2}) {
      const auto m = stealscan::make_matcher(r.patterns, r.syntax, {}, e);
      std::vector<double> t;
      for (int k = 0; k < reps; ++k) t.push_back(run(*m, corpus, cuts, &lines));
      std::sort(t.begin(), t.end());
      std::printf(" %12.2f", static_cast<double>(corpus.size()) / t[t.size() / 2] / 1e9);
    }
    std::printf(" %10zu\n", lines);
  }
}

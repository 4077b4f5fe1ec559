// generic_findings.hpp: drop_generic_repeats(), gitleaks' precedence of a
// specific rule over a generic one (../README.md, "Findings"): a finding of a
// generic rule (its id holds "generic", any case, or it is tagged "generic")
// is dropped when a finding of a rule that is not, on the same line (or one
// whose match spans that line), has a secret that contains its secret.
// `ghp_...` assigned to `token =` is then one github-pat finding, not that and
// a generic-secret one. A generic rule
// of low confidence (a password of any strength) yields in turn to every
// other generic rule: its finding is a fallback.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

#include "secrets/detect/ascii.hpp"
#include "secrets/report/finding.hpp"

namespace stealscan::secrets {

// gitleaks' test, the id, and ours besides: a rule tagged "generic" (the
// built-in rules that read a value out of a container, such as an HTTP
// Authorization header or an .npmrc, whatever token it holds).
inline bool is_generic_rule(const Rule& r) {
  return contains_caseless(r.id, "generic") || std::find(r.tags.begin(), r.tags.end(), "generic") != r.tags.end();
}

// Precedence: 0 a specific rule, 1 a generic one, 2 a low-confidence generic
// one. A finding yields to one of a lower rank whose secret holds its own.
inline int precedence_rank(const Rule& r) {
  if (!is_generic_rule(r)) return 0;
  return r.level() == Confidence::low ? 2 : 1;
}

// Over out[from, end): the findings of one file (one commit). Linear in the
// findings but for the pairs on one line: a line with both kinds compares each
// generic finding with each finding of a lower rank there (as gitleaks, for a
// specific one), at most kMaxPairs pairs a line; past that (a long minified
// line full of both), only with those that start at most kReach columns
// before it or inside its match.
inline void drop_generic_repeats(std::vector<Finding>& out, std::size_t from) {
  constexpr std::size_t kMaxPairs = std::size_t{1} << 16;
  constexpr std::uint64_t kReach = 512;
  struct Ref {
    std::uint64_t line, column;
    std::size_t at;
    int rank;
  };
  std::vector<Ref> refs;
  int min_rank = 2, max_rank = 0;
  // A match over several lines (a Gitalk block, a connection string split
  // over lines) stands on each line it spans, up to kSpanLines, at column 0
  // after its first: a generic finding of its secret's line yields to it.
  constexpr std::uint64_t kSpanLines = 64;
  for (std::size_t i = from; i < out.size(); ++i) {
    const int rank = precedence_rank(*out[i].rule);
    min_rank = std::min(min_rank, rank);
    max_rank = std::max(max_rank, rank);
    const Finding& f = out[i];
    refs.push_back(Ref{f.start_line, f.start_column, i, rank});
    if (rank < 2 && f.end_line > f.start_line)
      for (std::uint64_t l = f.start_line + 1; l <= std::min(f.end_line, f.start_line + kSpanLines); ++l)
        refs.push_back(Ref{l, 0, i, rank});
  }
  if (min_rank == max_rank) return;
  std::sort(refs.begin(), refs.end(),
            [](const Ref& a, const Ref& b) { return a.line != b.line ? a.line < b.line : a.column < b.column; });
  std::vector<bool> dropped(out.size() - from, false);
  for (std::size_t b = 0; b < refs.size();) {
    std::size_t e = b;
    std::size_t at_rank[3] = {0, 0, 0};
    while (e < refs.size() && refs[e].line == refs[b].line) ++at_rank[refs[e++].rank];
    // The pairs compared one by one: each finding with those of a lower rank.
    const std::size_t pairs = at_rank[1] * at_rank[0] + at_rank[2] * (at_rank[0] + at_rank[1]);
    const bool all_pairs = pairs <= kMaxPairs;
    for (std::size_t g = b; g < e && pairs > 0; ++g) {
      if (refs[g].rank == 0) continue;
      const Finding& f = out[refs[g].at];
      const auto contains = [&](std::size_t s) {
        const Finding& p = out[refs[s].at];
        return refs[s].rank < refs[g].rank && p.secret.find(f.secret) != std::string::npos;
      };
      bool drop = false;
      if (all_pairs) {
        for (std::size_t s = b; s < e && !drop; ++s) drop = contains(s);
      } else {  // only the specific findings that start near it: at most kReach columns before, or inside it
        const std::uint64_t near = f.start_column > kReach ? f.start_column - kReach : 0;
        auto s = std::lower_bound(refs.begin() + static_cast<std::ptrdiff_t>(b), refs.begin() + static_cast<std::ptrdiff_t>(e),
                                  near, [](const Ref& r, std::uint64_t c) { return r.column < c; });
        for (; s != refs.begin() + static_cast<std::ptrdiff_t>(e) && s->column <= f.end_column && !drop; ++s)
          drop = contains(static_cast<std::size_t>(s - refs.begin()));
      }
      if (drop) dropped[refs[g].at - from] = true;
    }
    b = e;
  }
  std::size_t kept = from;
  for (std::size_t i = from; i < out.size(); ++i) {
    if (dropped[i - from]) continue;
    if (kept != i) out[kept] = std::move(out[i]);
    ++kept;
  }
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(kept), out.end());
}

}  // namespace stealscan::secrets

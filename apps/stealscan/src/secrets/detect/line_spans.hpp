// line_spans.hpp: LineSpan, runs of whole lines of a text, and LineCollector,
// which turns the offsets a Vectorscan block scan reports into the lines that
// hold them, per pattern: what KeywordFilter (a keyword's lines) and
// RegexPrefilter (a rule's candidate lines) hand the Detector.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <string_view>
#include <vector>

namespace stealscan::secrets {

// Lines of a text: [begin, end) from the first one's first byte to the last
// one's end, its '\n' (at end, unless end is the text's end) excluded.
struct LineSpan {
  std::size_t begin;
  std::size_t end;
};

// The line holding offset `at` (< text.size()); a '\n' at `at` ends its line.
inline LineSpan line_around(std::string_view text, std::size_t at) {
  const void* nl_before = at == 0 ? nullptr : memrchr(text.data(), '\n', at);
  const auto offset = [&](const void* p) { return static_cast<std::size_t>(static_cast<const char*>(p) - text.data()); };
  const void* nl_after = std::memchr(text.data() + at, '\n', text.size() - at);
  return {nl_before == nullptr ? 0 : offset(nl_before) + 1, nl_after == nullptr ? text.size() : offset(nl_after)};
}

// Appends to `out` each of `spans` widened by `reach` bytes on either side,
// to whole lines of `text`: the lines in which a match of at most `reach`
// bytes that covers one of the span's lines lies whole.
inline void widen(std::string_view text, const std::vector<LineSpan>& spans, std::size_t reach,
                  std::vector<LineSpan>& out) {
  for (const LineSpan& l : spans) {
    const std::size_t begin = l.begin <= reach ? 0 : line_around(text, l.begin - reach).begin;
    const std::size_t end = text.size() - l.end <= reach ? text.size() : line_around(text, l.end + reach).end;
    out.push_back(LineSpan{begin, end});
  }
}

// Collects, per pattern, the lines that hold its hits. The line around a hit
// is found once and kept while the next hits fall inside it, which in a block
// scan's order of end offsets they do until the scan passes its end: finding
// lines is linear in the text. Consecutive lines are kept as one span (a hit
// on every line of a big file is one span, not one per line).
struct LineCollector {
  std::string_view text;
  std::vector<std::vector<LineSpan>>& lines;  // per pattern
  std::size_t base = 0;    // where the piece being scanned starts in `text`
  std::size_t limit = 0;   // its length: a hit ending after it is in the padding
  LineSpan current{1, 0};  // none yet

  void add(std::size_t pattern, std::size_t at) {
    if (!(current.begin <= at && at <= current.end)) current = line_around(text, at);
    std::vector<LineSpan>& v = lines[pattern];
    if (!v.empty() && v.back().begin <= current.begin && current.begin <= v.back().end + 1) {
      v.back().end = std::max(v.back().end, current.end);  // this line, or the next one
    } else {
      v.push_back(current);
    }
  }
};

// Sorted, disjoint spans with a line between any two (a scan in pieces, hits
// reported out of order, or the spans of several patterns may break that):
// overlapping and touching spans are merged.
inline void normalize(std::vector<LineSpan>& v) {
  const auto apart = [](const LineSpan& a, const LineSpan& b) { return a.end + 1 < b.begin; };
  if (std::adjacent_find(v.begin(), v.end(), std::not_fn(apart)) == v.end()) return;
  std::sort(v.begin(), v.end(), [](const LineSpan& a, const LineSpan& b) { return a.begin < b.begin; });
  std::size_t kept = 0;
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (v[i].begin <= v[kept].end + 1) {
      v[kept].end = std::max(v[kept].end, v[i].end);
    } else {
      v[++kept] = v[i];
    }
  }
  v.resize(kept + 1);
}

}  // namespace stealscan::secrets

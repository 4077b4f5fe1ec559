// fragment.hpp: Fragment, one chunk's matching lines, held until every chunk
// before it in the file has been printed (file_job.hpp), and FragmentSink, the
// LineSink that fills it. Only split files in the line-printing modes use them;
// a file scanned whole prints its lines directly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scan/line_scanner.hpp"
#include "output/output.hpp"

namespace stealscan {

struct Fragment {
  struct Hit {
    std::uint64_t line;  // index among the chunk's own lines
    std::uint64_t offset;
    std::uint64_t length;
    bool has_text;  // else the text is read back from the file (a long line)
    std::size_t text_at;
    std::size_t columns_at;
    std::size_t columns;
    bool context;
    bool newline;
  };
  std::vector<Hit> hits;
  std::string text;  // the hits' line texts, back to back
  std::vector<MatchColumn> columns;

  // The i-th hit as the printer wants it, numbered from first_line.
  [[nodiscard]] HitView view(std::size_t i, std::uint64_t first_line) const {
    const Hit& h = hits[i];
    return HitView{first_line + h.line,
                   h.offset,
                   h.length,
                   h.has_text ? text.data() + h.text_at : nullptr,
                   std::span<const MatchColumn>(columns.data() + h.columns_at, h.columns),
                   h.context,
                   false,
                   h.newline};
  }
};

class FragmentSink final : public LineSink {
 public:
  explicit FragmentSink(Fragment& f) : f_(f) {}
  void on_line(const LineHit& h) override {
    Fragment::Hit hit{h.line,           h.offset,          h.length,  h.text != nullptr, f_.text.size(),
                      f_.columns.size(), h.matches.size(), h.context, h.newline};
    if (h.text != nullptr) f_.text.append(h.text, h.length);
    f_.columns.insert(f_.columns.end(), h.matches.begin(), h.matches.end());
    f_.hits.push_back(hit);
  }

 private:
  Fragment& f_;
};

}  // namespace stealscan

// The SVG chart: plain SVG 1.1 text, no library. Two parts, one under the other:
//   1. per suite and workload, a group of horizontal bars, one per runtime row at
//      the largest worker count measured (and the serial row), each bar's length
//      its median relative to the group's slowest, labelled with the value;
//   2. for each workload with a serial row, a small panel of the speedup over
//      serial against the worker count, one line per runtime row.
// Colours are by runtime, so stealpool's rows read the same everywhere.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "report.hpp"

namespace stealbench {
namespace {

constexpr int kWidth = 1100;
constexpr int kBarH = 13;
constexpr int kLabelW = 300;
constexpr int kBarMaxW = 560;

const char* colour(const Row& r, int shade) {
  static const char* ours[] = {"#d9480f", "#f76707", "#fd7e14", "#ff922b", "#ffa94d"};
  static const char* omp[] = {"#2b8a3e", "#37b24d", "#51cf66", "#8ce99a", "#b2f2bb"};
  if (r.serial()) return "#495057";
  if (r.ours()) return ours[shade % 5];
  if (r.runtime == "oneTBB") return "#1c7ed6";
  if (r.runtime == "OpenMP") return omp[shade % 5];
  return "#845ef7";  // mutex pool
}

std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : v >= 0.1 ? "%.2f" : "%.3f", v);
  return buf;
}

// A row's shade: its position among the rows of the same runtime in the suite.
int shade_of(const Suite& s, const Row& row) {
  std::vector<std::string> variants;
  for (const Row& r : s.rows)
    if (r.runtime == row.runtime && std::find(variants.begin(), variants.end(), r.variant) == variants.end())
      variants.push_back(r.variant);
  return static_cast<int>(std::find(variants.begin(), variants.end(), row.variant) - variants.begin());
}

void text(std::ostream& o, int x, int y, const std::string& s, const char* extra = "") {
  o << "<text x=\"" << x << "\" y=\"" << y << "\" " << extra << ">" << esc(s) << "</text>\n";
}

// Part 1; returns the next free y.
int bars(std::ostream& o, const std::vector<Suite>& suites, int y) {
  text(o, 10, y, "Median per workload and runtime at the largest worker count (bar: relative to the slowest; "
                 "lower is better)", "class=\"h\"");
  y += 22;
  for (const Suite& s : suites) {
    const std::size_t wmax = s.worker_counts().back();
    for (const std::string& workload : s.workloads()) {
      std::vector<const Row*> rows;
      for (const Row& r : s.rows)
        if (r.workload == workload && !r.samples.empty() && (r.serial() || r.workers == wmax)) rows.push_back(&r);
      if (rows.empty()) continue;
      double slowest = 0;
      for (const Row* r : rows) slowest = std::max(slowest, r->median());
      text(o, 10, y + 10, s.name + " / " + workload + " (W = " + std::to_string(wmax) + ")", "class=\"b\"");
      y += 16;
      for (const Row* r : rows) {
        const int w = slowest > 0 ? std::max(1, static_cast<int>(kBarMaxW * r->median() / slowest)) : 1;
        text(o, kLabelW - 6, y + kBarH - 3, r->label(), "text-anchor=\"end\"");
        o << "<rect x=\"" << kLabelW << "\" y=\"" << y << "\" width=\"" << w << "\" height=\"" << kBarH - 2
          << "\" fill=\"" << colour(*r, shade_of(s, *r)) << "\"/>\n";
        text(o, kLabelW + w + 5, y + kBarH - 3, num(r->median()) + " " + r->unit);
        y += kBarH;
      }
      y += 8;
    }
  }
  return y;
}

// Part 2; returns the next free y.
int speedups(std::ostream& o, const std::vector<Suite>& suites, int y) {
  constexpr int kPanelW = 250, kPanelH = 170, kPad = 34, kCols = 4;
  std::vector<std::pair<const Suite*, std::string>> panels;
  for (const Suite& s : suites)
    for (const Row& r : s.rows)
      if (r.serial() && !r.samples.empty()) panels.emplace_back(&s, r.workload);
  if (panels.empty()) return y;
  text(o, 10, y + 10, "Speedup over the serial code against the worker count (higher is better)", "class=\"h\"");
  y += 26;
  for (std::size_t p = 0; p < panels.size(); ++p) {
    const Suite& s = *panels[p].first;
    const std::string& w = panels[p].second;
    const int x0 = 10 + static_cast<int>(p % kCols) * (kPanelW + 20);
    const int y0 = y + static_cast<int>(p / kCols) * (kPanelH + 40);
    const double serial = s.serial_row(w)->median();
    std::vector<std::size_t> xs;
    double ymax = 1;
    for (const Row& r : s.rows)
      if (r.workload == w && !r.serial() && !r.samples.empty()) {
        if (std::find(xs.begin(), xs.end(), r.workers) == xs.end()) xs.push_back(r.workers);
        ymax = std::max(ymax, serial / r.median());
      }
    std::sort(xs.begin(), xs.end());
    ymax = std::ceil(ymax);
    const int plot_w = kPanelW - kPad - 10, plot_h = kPanelH - 40;
    auto px = [&](std::size_t workers) {
      const auto i = static_cast<std::size_t>(std::find(xs.begin(), xs.end(), workers) - xs.begin());
      return x0 + kPad + (xs.size() == 1 ? plot_w / 2 : static_cast<int>(i) * plot_w / static_cast<int>(xs.size() - 1));
    };
    auto py = [&](double v) { return y0 + 20 + plot_h - static_cast<int>(plot_h * v / ymax); };
    text(o, x0 + kPad, y0 + 12, s.name + " / " + w, "class=\"b\"");
    o << "<rect x=\"" << x0 + kPad << "\" y=\"" << y0 + 20 << "\" width=\"" << plot_w << "\" height=\"" << plot_h
      << "\" fill=\"none\" stroke=\"#ced4da\"/>\n";
    for (double v = 0; v <= ymax; v += ymax > 8 ? 4 : 1) {
      o << "<line x1=\"" << x0 + kPad << "\" x2=\"" << x0 + kPad + plot_w << "\" y1=\"" << py(v) << "\" y2=\""
        << py(v) << "\" stroke=\"#f1f3f5\"/>\n";
      text(o, x0 + kPad - 4, py(v) + 4, num(v), "text-anchor=\"end\"");
    }
    for (std::size_t x : xs) text(o, px(x), y0 + 20 + plot_h + 14, std::to_string(x), "text-anchor=\"middle\"");
    // One polyline per runtime label.
    std::map<std::string, std::vector<const Row*>> lines;
    for (const Row& r : s.rows)
      if (r.workload == w && !r.serial() && !r.samples.empty()) lines[r.label()].push_back(&r);
    for (auto& [label, rows] : lines) {
      std::sort(rows.begin(), rows.end(), [](const Row* a, const Row* b) { return a->workers < b->workers; });
      const char* c = colour(*rows.front(), shade_of(s, *rows.front()));
      o << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\" points=\"";
      for (const Row* r : rows) o << px(r->workers) << "," << py(serial / r->median()) << " ";
      o << "\"><title>" << esc(label) << "</title></polyline>\n";
      for (const Row* r : rows)
        o << "<circle cx=\"" << px(r->workers) << "\" cy=\"" << py(serial / r->median()) << "\" r=\"3\" fill=\"" << c
          << "\"><title>" << esc(label + ": " + num(serial / r->median()) + "x") << "</title></circle>\n";
    }
  }
  const int rows_of_panels = static_cast<int>((panels.size() + kCols - 1) / kCols);
  return y + rows_of_panels * (kPanelH + 40);
}

// The legend: one swatch per runtime (stealpool's first shade).
int legend(std::ostream& o, const std::vector<Suite>& suites, int y) {
  std::vector<const Row*> seen;
  for (const Suite& s : suites)
    for (const Row& r : s.rows)
      if (std::none_of(seen.begin(), seen.end(), [&](const Row* q) { return q->runtime == r.runtime; }))
        seen.push_back(&r);
  int x = 10;
  for (const Row* r : seen) {
    o << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"12\" height=\"12\" fill=\"" << colour(*r, 0) << "\"/>\n";
    text(o, x + 16, y + 10, r->runtime);
    x += 30 + static_cast<int>(r->runtime.size()) * 7;
  }
  return y + 24;
}

}  // namespace

void write_svg(const std::string& path, const Machine& m, const std::vector<Suite>& suites) {
  std::ostringstream body;
  int y = 20;
  text(body, 10, y, "stealbench: " + m.cpu + ", " + std::to_string(m.hardware_threads) + " hardware threads, " +
                        m.compiler + ", oneTBB " + m.tbb_version + ", OpenMP " + m.omp_runtime,
       "class=\"t\"");
  y = legend(body, suites, y + 12);
  y = bars(body, suites, y + 10);
  y = speedups(body, suites, y + 10);
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << y + 10
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
      << "<style>.t{font-size:14px;font-weight:bold}.h{font-size:13px;font-weight:bold}.b{font-weight:bold}</style>\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << body.str() << "</svg>\n";
  if (!out) throw std::runtime_error("error writing '" + path + "'");
}

}  // namespace stealbench

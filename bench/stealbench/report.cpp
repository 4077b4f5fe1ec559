// The terminal table, the summary, the JSON file and the machine description.
#include "report.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "stealpool/cpu_count.hpp"
#include "suites.hpp"

#if STEALBENCH_HAVE_TBB
#include <oneapi/tbb/version.h>
#endif

namespace stealbench {

Machine Machine::describe() {
  Machine m;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      m.cpu = line.substr(line.find(':') + 2);
      break;
    }
  m.hardware_threads = std::thread::hardware_concurrency();
  m.available = stealpool::available_parallelism();
  utsname u{};
  if (uname(&u) == 0) m.kernel = std::string(u.sysname) + " " + u.release;
#if defined(__clang__)
  m.compiler = "clang " __clang_version__;
#else
  m.compiler = "g++ " __VERSION__;
#endif
  m.omp_runtime = omp_runtime_name();
#if STEALBENCH_HAVE_TBB
  m.tbb_version = TBB_VERSION_STRING;
#else
  m.tbb_version = "not built";
#endif
  return m;
}

namespace {

// Three significant figures or so, whatever the magnitude.
std::string fmt(double v) {
  char buf[32];
  const double a = std::fabs(v);
  std::snprintf(buf, sizeof buf, a >= 100 ? "%.1f" : a >= 10 ? "%.2f" : a >= 0.1 ? "%.3f" : "%.4f", v);
  return buf;
}

// The rows of one workload: serial first, then by worker count, then as added.
std::vector<const Row*> rows_of(const Suite& s, const std::string& workload) {
  std::vector<const Row*> out;
  for (const Row& r : s.rows)
    if (r.workload == workload && !r.samples.empty()) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const Row* a, const Row* b) { return a->workers < b->workers; });
  return out;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += c;
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// "1.16 (1.11-1.33)": paired_ratio(num, den)'s median and interquartile range,
// or "" with fewer than three pairs (a range of one or two is no range).
std::string paired_cell(const Row& num, const Row& den) {
  const auto p = paired_ratio(num, den);
  if (!p || p->pairs < 3) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f (%.2f-%.2f)", p->median, p->q1, p->q3);
  return buf;
}

std::string json_paired(const Row* num, const Row& den) {
  const auto p = num ? paired_ratio(*num, den) : std::nullopt;
  if (!p) return "null";
  return "{\"median\": " + json_number(p->median) + ", \"q1\": " + json_number(p->q1) +
         ", \"q3\": " + json_number(p->q3) + ", \"pairs\": " + std::to_string(p->pairs) + "}";
}

}  // namespace

void print_suite(const Suite& s) {
  std::printf("\n== %s: %s (%d rep%s) ==\n", s.name.c_str(), s.title.c_str(), s.reps, s.reps == 1 ? "" : "s");
  std::printf("%-13s %7s  %-38s %10s %10s %10s %-12s %9s %-19s %10s %s\n", "workload", "workers", "runtime", "median",
              "min", "max", "unit", "speedup", " paired", "peer/ours", " paired");
  for (const std::string& w : s.workloads()) {
    const Row* serial = s.serial_row(w);
    for (const Row* r : rows_of(s, w)) {
      const std::string workers = r->serial() ? "-" : std::to_string(r->workers);
      std::printf("%-13s %7s  %-38s %10s %10s %10s %-12s", w.c_str(), workers.c_str(), r->label().c_str(),
                  fmt(r->median()).c_str(), fmt(r->min()).c_str(), fmt(r->max()).c_str(), r->unit.c_str());
      const bool has_serial = serial && !r->serial() && r->median() > 0;
      if (has_serial) std::printf(" %8.2fx", serial->median() / r->median());
      else std::printf(" %9s", "");
      std::printf(" %-19s", has_serial ? paired_cell(*serial, *r).c_str() : "");
      const Row* peer = r->ours() ? s.best_peer(w, r->workers) : nullptr;
      if (peer && r->median() > 0) std::printf(" %9.2fx %s", peer->median() / r->median(), paired_cell(*peer, *r).c_str());
      std::printf("\n");
    }
    std::printf("\n");
  }
  for (const std::string& note : s.notes) std::printf("  %s\n", note.c_str());
  if (s.reps >= 3)
    std::printf("  paired: the same ratio taken rep by rep (each rep runs every row once, seconds apart), median "
                "(quartiles)\n");
}

void print_summary(const std::vector<Suite>& suites) {
  std::printf("\n== summary: stealpool's best row against the best peer (median; above 1x: stealpool faster) ==\n");
  std::printf("%-11s %-13s %7s  %-42s %-42s %9s %s\n", "suite", "workload", "workers", "stealpool", "best peer",
              "peer/ours", " paired");
  for (const Suite& s : suites)
    for (const std::string& w : s.workloads())
      for (std::size_t workers : s.worker_counts()) {
        const Row* ours = nullptr;
        for (const Row& r : s.rows)
          if (r.workload == w && r.workers == workers && r.ours() && !r.samples.empty() &&
              (!ours || r.median() < ours->median()))
            ours = &r;
        const Row* peer = s.best_peer(w, workers);
        if (!ours || !peer) continue;
        const std::string a = ours->label() + " " + fmt(ours->median()) + " " + ours->unit;
        const std::string b = peer->label() + " " + fmt(peer->median()) + " " + peer->unit;
        std::printf("%-11s %-13s %7zu  %-42s %-42s %8.2fx %s\n", s.name.c_str(), w.c_str(), workers, a.c_str(),
                    b.c_str(), ours->median() > 0 ? peer->median() / ours->median() : 0.0,
                    paired_cell(*peer, *ours).c_str());
      }
}

void write_json(const std::string& path, const Machine& m, const Config& c, const std::string& command,
                const std::vector<Suite>& suites) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  out << "{\n  \"tool\": \"stealbench\",\n  \"command\": " << json_string(command) << ",\n";
  out << "  \"machine\": {\"cpu\": " << json_string(m.cpu) << ", \"hardware_threads\": " << m.hardware_threads
      << ", \"available_parallelism\": " << m.available << ", \"kernel\": " << json_string(m.kernel)
      << ", \"compiler\": " << json_string(m.compiler) << ", \"openmp_runtime\": " << json_string(m.omp_runtime)
      << ", \"onetbb\": " << json_string(m.tbb_version) << "},\n";
  out << "  \"config\": {\"workers\": [";
  for (std::size_t i = 0; i < c.workers.size(); ++i) out << (i ? ", " : "") << c.workers[i];
  out << "], \"quick\": " << (c.quick ? "true" : "false") << ", \"full\": " << (c.full ? "true" : "false")
      << ", \"only\": [";
  for (std::size_t i = 0; i < c.only.size(); ++i) out << (i ? ", " : "") << json_string(c.only[i]);
  out << "]},\n  \"suites\": [";
  for (std::size_t si = 0; si < suites.size(); ++si) {
    const Suite& s = suites[si];
    out << (si ? "," : "") << "\n    {\"name\": " << json_string(s.name) << ", \"title\": " << json_string(s.title)
        << ", \"reps\": " << s.reps << ", \"notes\": [";
    for (std::size_t i = 0; i < s.notes.size(); ++i) out << (i ? ", " : "") << json_string(s.notes[i]);
    out << "],\n     \"rows\": [";
    bool first = true;
    for (const Row& r : s.rows) {
      if (r.samples.empty()) continue;
      const Row* serial = s.serial_row(r.workload);
      const Row* peer = r.ours() ? s.best_peer(r.workload, r.workers) : nullptr;
      out << (first ? "" : ",") << "\n      {\"key\": " << json_string(s.key(r))
          << ", \"workload\": " << json_string(r.workload) << ", \"runtime\": " << json_string(r.runtime)
          << ", \"variant\": " << json_string(r.variant) << ", \"workers\": " << r.workers
          << ", \"unit\": " << json_string(r.unit) << ", \"median\": " << json_number(r.median())
          << ", \"min\": " << json_number(r.min()) << ", \"max\": " << json_number(r.max()) << ", \"samples\": [";
      for (std::size_t i = 0; i < r.samples.size(); ++i) out << (i ? ", " : "") << json_number(r.samples[i]);
      out << "], \"speedup_over_serial\": "
          << (serial && !r.serial() ? json_number(serial->median() / r.median()) : "null")
          << ", \"best_peer\": " << (peer ? json_string(peer->label()) : "null")
          << ", \"best_peer_over_ours\": " << (peer ? json_number(peer->median() / r.median()) : "null")
          << ", \"paired_speedup_over_serial\": " << (r.serial() ? "null" : json_paired(serial, r))
          << ", \"paired_best_peer_over_ours\": " << json_paired(peer, r) << "}";
      first = false;
    }
    out << "]}";
  }
  out << "\n  ]\n}\n";
  if (!out) throw std::runtime_error("error writing '" + path + "'");
}

}  // namespace stealbench

#include "harness.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

namespace stealbench {

double Row::median() const {
  auto v = samples;
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}
double Row::min() const { return samples.empty() ? 0.0 : *std::min_element(samples.begin(), samples.end()); }
double Row::max() const { return samples.empty() ? 0.0 : *std::max_element(samples.begin(), samples.end()); }

std::optional<PairedRatio> paired_ratio(const Row& num, const Row& den) {
  if (num.samples.size() != den.samples.size()) return std::nullopt;
  std::vector<double> v;
  for (std::size_t i = 0; i < num.samples.size(); ++i)
    if (num.samples[i] > 0 && den.samples[i] > 0) v.push_back(num.samples[i] / den.samples[i]);
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return PairedRatio{v[n / 4], v[n / 2], v[3 * n / 4], n};
}

std::string row_key(const std::string& suite, const Row& r) {
  // Appends only: g++ 12 -O3 warns falsely (-Wrestrict, GCC bug 105329) on
  // chains of operator+ starting from a short literal.
  std::string k = suite;
  for (const std::string* part : {&r.workload, &r.runtime, &r.variant}) {
    if (part->empty()) continue;
    k += '/';
    k += *part;
  }
  if (!r.serial()) {
    k += '/';
    k += std::to_string(r.workers);
  }
  return k;
}

std::vector<std::string> Suite::workloads() const {
  std::vector<std::string> out;
  for (const Row& r : rows)
    if (std::find(out.begin(), out.end(), r.workload) == out.end()) out.push_back(r.workload);
  return out;
}

std::vector<std::size_t> Suite::worker_counts() const {
  std::vector<std::size_t> out;
  for (const Row& r : rows) out.push_back(r.workers);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

const Row* Suite::serial_row(const std::string& workload) const {
  for (const Row& r : rows)
    if (r.workload == workload && r.serial()) return &r;
  return nullptr;
}

const Row* Suite::best_peer(const std::string& workload, std::size_t workers) const {
  const Row* best = nullptr;
  for (const Row& r : rows)
    if (r.workload == workload && r.workers == workers && r.peer() && !r.samples.empty() &&
        (!best || r.median() < best->median()))
      best = &r;
  return best;
}

bool Config::wants(const std::string& suite, const Row& row) const {
  if (only.empty()) return true;
  const std::string key = row_key(suite, row);
  return std::any_of(only.begin(), only.end(), [&](const std::string& o) { return key.find(o) != std::string::npos; });
}

long SuiteBuilder::add(Row row) {
  if (!config_.wants(suite_.name, row)) return -1;
  suite_.rows.push_back(std::move(row));
  return static_cast<long>(suite_.rows.size() - 1);
}

void SuiteBuilder::add_case(std::vector<long> rows, std::function<void(std::span<double>)> run) {
  if (std::all_of(rows.begin(), rows.end(), [](long r) { return r < 0; })) return;
  // A row that was not kept still gets its value written, into a scratch slot.
  const std::size_t n = rows.size();
  std::vector<std::size_t> kept;
  std::vector<std::size_t> position;  // where each kept row's value is in run()'s output
  for (std::size_t i = 0; i < n; ++i)
    if (rows[i] >= 0) {
      kept.push_back(static_cast<std::size_t>(rows[i]));
      position.push_back(i);
    }
  if (kept.size() == n) {
    suite_.cases.push_back({std::move(kept), std::move(run)});
    return;
  }
  suite_.cases.push_back({kept, [n, position, run = std::move(run)](std::span<double> out) {
                            std::vector<double> all(n);
                            run(all);
                            for (std::size_t i = 0; i < position.size(); ++i) out[i] = all[position[i]];
                          }});
}

void SuiteBuilder::add_serial(Row row, std::function<void(std::span<double>)> run) {
  add_serial(std::vector<Row>{std::move(row)}, std::move(run));
}

void SuiteBuilder::add_serial(std::vector<Row> rows, std::function<void(std::span<double>)> run) {
  std::vector<char> used;  // decided before any of `rows` is added
  for (const Row& row : rows)
    used.push_back(std::any_of(suite_.rows.begin(), suite_.rows.end(),
                               [&](const Row& r) { return r.workload == row.workload; }));
  std::vector<long> indices;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (used[i] == 0) {
      indices.push_back(-1);
      continue;
    }
    suite_.rows.push_back(std::move(rows[i]));
    indices.push_back(static_cast<long>(suite_.rows.size() - 1));
  }
  add_case(std::move(indices), std::move(run));
}

// How long the harness sleeps before each run, untimed: longer than the other
// runtimes' threads spin after their last run before they sleep (libgomp's
// default GOMP_SPINCOUNT, 300,000 rounds, is a few ms; oneTBB's workers and
// ours spin and yield for less). Without it, a row's first milliseconds may
// share the cores with the threads of the row before it: on 16 cores the rows
// right after an 8-thread OpenMP or oneTBB row ran up to 1.7x slower than
// rows of the same loop a few later (docs/results-log.md, "16 cores: the first lease"; that this
// gap cures it was not measured there yet).
constexpr auto kSettle = std::chrono::milliseconds(25);

void run_suite(Suite& suite) {
  const bool tty = isatty(STDERR_FILENO) != 0;
  const std::size_t total = suite.cases.size() * static_cast<std::size_t>(suite.reps);
  std::size_t done = 0;
  std::vector<double> values;
  for (int rep = 0; rep < suite.reps; ++rep)
    for (Case& c : suite.cases) {
      if (tty) {
        std::fprintf(stderr, "\r\033[K[%s] %zu/%zu  rep %d/%d  %s", suite.name.c_str(), done + 1, total, rep + 1,
                     suite.reps, suite.key(suite.rows[c.rows.front()]).c_str());
        std::fflush(stderr);
      }
      values.assign(c.rows.size(), 0.0);
      std::this_thread::sleep_for(kSettle);
      try {
        c.run(values);
      } catch (const WrongResult& e) {
        throw WrongResult(suite.key(suite.rows[c.rows.front()]) + ": " + e.what());
      }
      for (std::size_t i = 0; i < c.rows.size(); ++i) suite.rows[c.rows[i]].samples.push_back(values[i]);
      ++done;
    }
  if (tty) std::fprintf(stderr, "\r\033[K");
}

double time_ms(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace stealbench

// bench/stealbench/harness.hpp: what every stealbench suite is made of, and the
// loop that measures it.
//
// A suite (fork-join, loops, throughput, wake-up, idle) is a list of rows and a
// list of cases:
//   Row   one line of the table: a workload ("fib32"), a runtime ("stealpool",
//         "oneTBB", "OpenMP", "mutex pool", "serial"), a variant (a partitioner,
//         a schedule, or ""), a worker count (0 for serial) and a unit; it
//         collects one sample per repetition.
//   Case  one measurement: run() performs it once and writes one value into each
//         of its rows (usually one; the wake-up case feeds its p50 and p99 rows).
//         A case checks its own result and throws WrongResult when it is wrong;
//         run_suite() adds the row's key to the message.
// The runtimes and the data the cases use live in Suite::keep_alive, created
// before any timing; a suite's destructor stops its runtimes, so one suite's
// threads never run beside the next suite's.
//
// Repetitions are interleaved: rep 1 of every case, then rep 2, ... so that
// machine noise and what a runtime leaves behind (spinning workers) hit every row
// alike instead of whichever runs next.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace stealbench {

// A case's result was wrong: stealbench reports it and exits with status 1.
struct WrongResult : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Row {
  std::string workload;
  std::string runtime;
  std::string variant;      // "" when the runtime has one way to run the workload
  std::size_t workers = 0;  // 0: the serial code
  std::string unit;         // "ms", "us/loop", "us", "% of a core"
  std::vector<double> samples;

  bool serial() const { return workers == 0; }
  bool ours() const { return runtime == "stealpool"; }
  bool peer() const { return !serial() && !ours(); }
  std::string label() const { return variant.empty() ? runtime : runtime + " " + variant; }

  double median() const;
  double min() const;
  double max() const;
};

// The ratio of two rows rep by rep: num.samples[i] / den.samples[i], whose two
// runs ran within one repetition of the suite, seconds apart (run_suite
// interleaves the reps). A drift of the machine's speed over a run of many
// seconds moves both sides of a pair alike, which a ratio of the two medians,
// each taken over the whole run, does not cancel. Quartiles by rank over the
// sorted ratios: q1 = v[n/4], median = v[n/2] (as Row::median), q3 = v[3n/4].
struct PairedRatio {
  double q1 = 0, median = 0, q3 = 0;
  std::size_t pairs = 0;
};
// nullopt if the rows have different numbers of samples (not the same reps) or
// no pair with both values above zero; pairs with a zero or negative value are
// left out.
std::optional<PairedRatio> paired_ratio(const Row& num, const Row& den);

struct Case {
  std::vector<std::size_t> rows;                 // indices into Suite::rows
  std::function<void(std::span<double>)> run;    // one value per row, in order
};

std::string row_key(const std::string& suite, const Row& r);

struct Suite {
  std::string name;                   // "forkjoin", "loops", ...: the first part of a key
  std::string title;                  // one line for the table's heading
  int reps = 5;
  std::vector<Row> rows;
  std::vector<Case> cases;
  std::vector<std::string> notes;     // printed under the table
  std::shared_ptr<void> keep_alive;   // runtimes and data the cases use

  // "suite/workload/runtime[/variant][/workers]": what --only matches.
  std::string key(const Row& r) const { return row_key(name, r); }
  // The workloads, in the order their first row was added.
  std::vector<std::string> workloads() const;
  // The worker counts of the rows (0 for serial), ascending.
  std::vector<std::size_t> worker_counts() const;
  // The serial row of `workload`, or nullptr.
  const Row* serial_row(const std::string& workload) const;
  // The fastest peer row (not stealpool, not serial) of `workload` at `workers`.
  const Row* best_peer(const std::string& workload, std::size_t workers) const;
};

// What the user asked for; every suite reads it.
struct Config {
  std::vector<std::size_t> workers;  // default: 1 and all CPUs
  int reps = 0;                      // 0: each suite's own default
  bool quick = false;                // small sizes, 1 rep: a smoke test
  bool full = false;                 // the sizes of the fork-join and loop issues' tables
  std::vector<std::string> only;     // keep the rows whose key contains any of these
  std::vector<int> fib{32};          // fib(n) workloads

  // Whether a row of `suite` with these key parts is wanted.
  bool wants(const std::string& suite, const Row& row) const;
  // Whether --only asked for the trace alone (`--only trace`).
  bool only_trace() const { return only.size() == 1 && only[0] == "trace"; }
  int reps_or(int suite_default) const { return quick ? 1 : (reps > 0 ? reps : suite_default); }
};

// Builds a suite's rows one workload at a time, keeping the rows --only wants
// and, for a workload with any wanted row, its serial row (speedups need it).
class SuiteBuilder {
 public:
  SuiteBuilder(Suite& suite, const Config& config) : suite_(suite), config_(config) {}

  // Adds `row` if wanted; returns its index, or -1.
  long add(Row row);
  // Adds a case feeding the given rows; rows that were not added (-1) are
  // measured but not kept. Does nothing if none of them was added.
  void add_case(std::vector<long> rows, std::function<void(std::span<double>)> run);
  // Adds the serial row and case of `workload` if another row of it was added.
  void add_serial(Row row, std::function<void(std::span<double>)> run);
  // The same for several serial rows measured by one case (run() writes them in
  // `rows`' order); each is added if its workload has another row.
  void add_serial(std::vector<Row> rows, std::function<void(std::span<double>)> run);

 private:
  Suite& suite_;
  const Config& config_;
};

// A suite's runtimes, each created on first use for a (name, workers) pair and
// kept for the whole suite, so that thread start-up is never timed.
template <class R>
class RuntimeCache {
 public:
  using Make = std::unique_ptr<R> (*)(const std::string& name, std::size_t workers);
  explicit RuntimeCache(Make make) : make_(make) {}
  R& get(const std::string& name, std::size_t workers) {
    std::unique_ptr<R>& slot = runtimes_[{name, workers}];
    if (!slot) slot = make_(name, workers);
    return *slot;
  }

 private:
  Make make_;
  std::map<std::pair<std::string, std::size_t>, std::unique_ptr<R>> runtimes_;
};

// Runs every case of `suite` reps times, interleaved, with a progress line on
// stderr when it is a terminal. Throws WrongResult from a failed check.
void run_suite(Suite& suite);

// Wall-clock milliseconds taken by f().
double time_ms(const std::function<void()>& f);

}  // namespace stealbench

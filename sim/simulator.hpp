// sim/simulator.hpp: a deterministic, single-threaded simulator of the executor.
//
// N virtual workers run the real scheduling policy (detail::worker_step,
// detail::pop_task, detail::TieredIdle) and the real accounting
// (detail::StateWord, detail::Ledger) over simulated queues (a std::deque per
// worker, one for the injector) and simulated parking (a per-worker state and
// wake token, mirroring SleepRegistry and Parker). A scheduler seeded from the
// run's seed picks, at every step, which worker takes its next step or which
// external producer does its next event, so a seed names one interleaving and
// replays it exactly. Every event goes to a trace (hashed always, kept when
// asked). The invariants of sim/README.md are checked after every step.
//
// Not modelled: weak memory (tests/model/ checks that with Relacy), park
// timeouts (parks here last until a wake-up: a lost wake-up is never hidden by
// a timeout), fork-join split deques.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "case_file.hpp"
#include "stealpool/metrics.hpp"

namespace stealpool::sim {

// Deliberately broken variants, to show the checker catches what it claims to.
enum class Mutant : std::uint8_t {
  none,
  skip_settle,  // a worker parks without settling its ledger
  double_run,   // a steal copies the task instead of taking it
  no_hoard,     // spawn_local never runs the wake-on-hoard rule
};

struct TraceRecord {
  std::uint64_t step;
  std::uint8_t kind;  // TraceKind in simulator.cpp
  std::uint32_t worker;
  std::uint64_t a, b;
};

struct RunResult {
  bool ok = true;
  std::string violation;  // empty when ok
  std::uint64_t steps = 0;
  std::uint64_t trace_hash = 0;  // FNV-1a 64 of the event trace
  std::uint64_t executed = 0, dropped = 0, rejected = 0, accepted = 0;
  bool error = false;
  WorkerMetrics metrics;  // summed over the workers: shows what a case exercised
  std::vector<TraceRecord> trace;  // only when asked for
};

RunResult run_case(const Case& c, std::uint64_t seed, Mutant mutant, bool keep_trace);

// One line per trace record, for --trace.
std::string format_trace(const Case& c, const std::vector<TraceRecord>& trace);

}  // namespace stealpool::sim

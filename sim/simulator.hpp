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
// Fork-join pools (`pool forkjoin`) run the same way over split deques, with
// each worker's jobs as a stack of frames stepped through join, take-back
// (core/wait_step.hpp's take_back_step) and helping waits (wait_step) that
// sleep on the job's latch.
//
// Every run also counts its writes to shared cache lines, operation by
// operation as the real code makes them (shared_lines.hpp): a proxy for how the
// engine scales that needs no many-core machine (sim/README.md).
//
// Not modelled: weak memory (tests/model/ checks that with Relacy), park
// timeouts (parks here last until a wake-up: a lost wake-up is never hidden by
// a timeout), isolated waits and TaskGroup counters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "case_file.hpp"
#include "shared_lines.hpp"
#include "stealpool/metrics.hpp"

namespace stealpool::sim {

// Deliberately broken variants, to show the checker catches what it claims to.
enum class Mutant : std::uint8_t {
  none,
  skip_settle,  // a worker parks without settling its ledger
  double_run,   // a steal copies the task instead of taking it
  no_hoard,     // spawn_local never runs the wake-on-hoard rule
  // fork-join
  no_publish,       // a split deque never publishes on a thief's request
  join_no_wait,     // a job's latch reads as set at once: a join returns without waiting
  latch_no_unpark,  // setting a latch never unparks the joiner sleeping on it
  wake_one,         // a publish wakes one sleeper, however many items it made public
};

struct TraceRecord {
  std::uint64_t step;
  std::uint8_t kind;  // TraceKind in simulator.cpp
  std::uint32_t worker;
  std::uint64_t a, b;
};

// What a fork-join run exercised (zero for executor pools).
struct ForkJoinCounts {
  std::uint64_t popped_back = 0;    // joins whose pushed job came back and ran inline
  std::uint64_t ran_other = 0;      // jobs a joiner popped above its own and ran (take_back)
  std::uint64_t stolen = 0;         // joins whose pushed job was stolen (the joiner waited)
  std::uint64_t full = 0;           // joins that found the deque full (both branches inline)
  std::uint64_t latch_parks = 0;    // parks of a waiter on its latch
  std::uint64_t latch_unparks = 0;  // ... ended by the latch's setter
  std::uint64_t publishes = 0;      // publishes on a thief's request
  ForkJoinCounts& operator+=(const ForkJoinCounts& o) {
    popped_back += o.popped_back;
    ran_other += o.ran_other;
    stolen += o.stolen;
    full += o.full;
    latch_parks += o.latch_parks;
    latch_unparks += o.latch_unparks;
    publishes += o.publishes;
    return *this;
  }
};

struct RunResult {
  bool ok = true;
  std::string violation;  // empty when ok
  std::uint64_t steps = 0;
  std::uint64_t trace_hash = 0;  // FNV-1a 64 of the event trace
  std::uint64_t executed = 0, dropped = 0, rejected = 0, accepted = 0;
  bool error = false;
  WorkerMetrics metrics;  // summed over the workers: shows what a case exercised
  ForkJoinCounts forkjoin;
  SharedWrites shared_writes;      // writes to shared cache lines (shared_lines.hpp)
  std::vector<TraceRecord> trace;  // only when asked for
};

RunResult run_case(const Case& c, std::uint64_t seed, Mutant mutant, bool keep_trace);

// One line per trace record, for --trace.
std::string format_trace(const Case& c, const std::vector<TraceRecord>& trace);

}  // namespace stealpool::sim

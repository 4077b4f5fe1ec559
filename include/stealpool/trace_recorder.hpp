// stealpool/trace_recorder.hpp: a TraceSink that keeps a timeline per worker
// and writes it in the Chrome trace event format (JSON), which Perfetto UI
// (ui.perfetto.dev) and chrome://tracing open. One track per worker, with:
//   "run"    slices: from the first task found after being idle to the next
//            time it found none; args.tasks = tasks found in the slice
//   "sleep"  slices: parked, until notified or timed out (args.woken_by)
//   "steal"  instant events: a task taken from another worker (args.victim)
//
// Memory: each worker's events go to its own preallocated buffer (owner-only,
// no synchronisation); when one is full, that worker's later events are
// dropped and counted (dropped()), so recording never allocates on the
// scheduling path. Read (write_chrome_json, events) only after the executor
// or pool that recorded has been joined or destroyed: that is what makes the
// workers' writes visible to the reader (thread join).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "stealpool/trace.hpp"

namespace stealpool {

class TraceRecorder final : public TraceSink {
 public:
  enum class Kind : std::uint8_t { run_begin, run_end, steal, park, unpark_notified, unpark_timeout };
  struct Event {
    std::int64_t ns;     // since the recorder was created
    Kind kind;
    std::uint32_t arg;   // steal: the victim; run_end: tasks in the slice
  };

  // Throws std::invalid_argument for 0 workers or 0 events per worker.
  explicit TraceRecorder(std::size_t workers, std::size_t max_events_per_worker = std::size_t{1} << 20);

  void on_task(std::size_t worker, TaskSource source, std::size_t victim) noexcept override;
  void on_idle(std::size_t worker) noexcept override;
  void on_park(std::size_t worker) noexcept override;
  void on_unpark(std::size_t worker, bool notified) noexcept override;

  std::size_t workers() const noexcept { return lanes_.size(); }
  const std::vector<Event>& events(std::size_t worker) const { return lanes_.at(worker).events; }
  std::size_t dropped() const noexcept;

  // The whole timeline, "process" `name`, one thread per worker. A run slice
  // still open at the end is closed at the last event.
  void write_chrome_json(std::ostream& out, const char* name = "stealpool") const;
  // The same events without the document around them, as process `pid` named
  // `name`: for a file that holds several processes' timelines (one per MPI
  // rank: stealpool::mpi::write_rank_traces). Comma-separated, no leading or
  // trailing comma.
  void write_chrome_events(std::ostream& out, int pid, const std::string& name) const;

 private:
  struct alignas(64) Lane {  // one worker's, written by that worker only
    std::vector<Event> events;
    std::size_t dropped = 0;
    std::uint32_t tasks = 0;  // tasks in the open run slice
    bool running = false;
  };

  std::int64_t now() const noexcept {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
  }
  void add(Lane& lane, Kind kind, std::uint32_t arg) noexcept;
  void end_run(Lane& lane) noexcept;

  std::chrono::steady_clock::time_point start_;
  std::size_t capacity_;
  std::vector<Lane> lanes_;
};

}  // namespace stealpool

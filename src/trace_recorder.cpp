#include "stealpool/trace_recorder.hpp"

#include <cstdio>
#include <ostream>
#include <stdexcept>
#include <string>

namespace stealpool {

TraceRecorder::TraceRecorder(std::size_t workers, std::size_t max_events_per_worker)
    : start_(std::chrono::steady_clock::now()), capacity_(max_events_per_worker), lanes_(workers) {
  if (workers == 0) throw std::invalid_argument("stealpool::TraceRecorder: workers must be >= 1 (got 0)");
  if (max_events_per_worker == 0)
    throw std::invalid_argument("stealpool::TraceRecorder: max_events_per_worker must be >= 1 (got 0)");
  for (Lane& lane : lanes_) lane.events.reserve(capacity_);
}

void TraceRecorder::add(Lane& lane, Kind kind, std::uint32_t arg) noexcept {
  if (lane.events.size() == capacity_) {
    ++lane.dropped;
    return;
  }
  lane.events.push_back({now(), kind, arg});  // within the reserved capacity: no allocation
}

void TraceRecorder::end_run(Lane& lane) noexcept {
  if (!lane.running) return;
  lane.running = false;
  add(lane, Kind::run_end, lane.tasks);
  lane.tasks = 0;
}

void TraceRecorder::on_task(std::size_t worker, TaskSource source, std::size_t victim) noexcept {
  Lane& lane = lanes_[worker];
  if (!lane.running) {
    lane.running = true;
    add(lane, Kind::run_begin, 0);
  }
  ++lane.tasks;
  if (source == TaskSource::steal) add(lane, Kind::steal, static_cast<std::uint32_t>(victim));
}

void TraceRecorder::on_idle(std::size_t worker) noexcept { end_run(lanes_[worker]); }

void TraceRecorder::on_park(std::size_t worker) noexcept {
  Lane& lane = lanes_[worker];
  end_run(lane);
  add(lane, Kind::park, 0);
}

void TraceRecorder::on_unpark(std::size_t worker, bool notified) noexcept {
  add(lanes_[worker], notified ? Kind::unpark_notified : Kind::unpark_timeout, 0);
}

std::size_t TraceRecorder::dropped() const noexcept {
  std::size_t n = 0;
  for (const Lane& lane : lanes_) n += lane.dropped;
  return n;
}

namespace {

// Chrome trace timestamps are microseconds; keep the nanoseconds as decimals.
std::string us(std::int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
  return buf;
}

}  // namespace

void TraceRecorder::write_chrome_json(std::ostream& out, const char* name) const {
  out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  write_chrome_events(out, 1, name);
  out << "\n]}\n";
}

void TraceRecorder::write_chrome_events(std::ostream& out, int pid, const std::string& name) const {
  out << "{\"ph\": \"M\", \"pid\": " << pid << ", \"name\": \"process_name\", \"args\": {\"name\": \"" << name
      << "\"}}";
  for (std::size_t w = 0; w < lanes_.size(); ++w) {
    // One event of worker w: `what` is "X" (a slice, dur set) or "i" (an instant).
    auto event = [&](const char* what, const char* event_name, std::int64_t ts, std::int64_t dur,
                     const std::string& args) {
      out << ",\n{\"ph\": \"" << what << "\", " << (what[0] == 'i' ? "\"s\": \"t\", " : "") << "\"pid\": " << pid
          << ", \"tid\": " << w << ", \"name\": \"" << event_name << "\", \"ts\": " << us(ts);
      if (dur >= 0) out << ", \"dur\": " << us(dur);
      if (!args.empty()) out << ", \"args\": {" << args << "}";
      out << "}";
    };
    out << ",\n{\"ph\": \"M\", \"pid\": " << pid << ", \"tid\": " << w
        << ", \"name\": \"thread_name\", \"args\": {\"name\": \"worker " << w << "\"}}";
    const std::vector<Event>& ev = lanes_[w].events;
    std::int64_t run_start = -1, park_start = -1;
    for (const Event& e : ev) {
      switch (e.kind) {
        case Kind::run_begin: run_start = e.ns; break;
        case Kind::run_end:
          if (run_start >= 0) event("X", "run", run_start, e.ns - run_start, "\"tasks\": " + std::to_string(e.arg));
          run_start = -1;
          break;
        case Kind::steal: event("i", "steal", e.ns, -1, "\"victim\": " + std::to_string(e.arg)); break;
        case Kind::park: park_start = e.ns; break;
        case Kind::unpark_notified:
        case Kind::unpark_timeout:
          if (park_start >= 0)
            event("X", "sleep", park_start, e.ns - park_start,
                  e.kind == Kind::unpark_notified ? "\"woken_by\": \"notify\"" : "\"woken_by\": \"timeout\"");
          park_start = -1;
          break;
      }
    }
    if (run_start >= 0 && !ev.empty()) event("X", "run", run_start, ev.back().ns - run_start, "");  // still running
  }
}

}  // namespace stealpool

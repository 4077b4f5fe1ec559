// sim/case_file.hpp: a simulator scenario read from a text file (sim/README.md
// has the format): the virtual pool's shape, the task programs, the external
// producers' events and the expected outcome. Cases are data, so a new one
// needs no recompilation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace stealpool::sim {

// One operation of a task program, done in order when the task runs.
//   executor pools: spawn_local, spawn_global, throw_error, yield
//   fork-join pools: join (children[0] runs inline, children[1] is pushed),
//                    spawn_local (push_local, else push_global when full),
//                    spawn_global (push_global), work (`count` steps of computing)
struct Op {
  enum class Kind : std::uint8_t { spawn_local, spawn_global, throw_error, yield, join, work };
  Kind kind;
  std::vector<std::uint32_t> children;     // program indices, for the spawns and join
  std::vector<std::uint32_t> depth_steps;  // per child: its depth is the parent's + this (default 1)
  std::uint32_t count = 0;                 // work: steps
};

struct Program {
  std::string name;
  std::uint32_t depth_limit = 0;  // 0: none; else instances at this depth run no ops
  std::vector<Op> ops;
};

// An event of an external producer (a thread outside the pool).
struct Event {
  // run: ThreadPool::run from a plain thread: inject a job, block until it is done.
  enum class Kind : std::uint8_t { external, join, shutdown, run };
  Kind kind;
  std::uint32_t program = 0;  // external: what to spawn
  std::uint32_t count = 0;    // external: how many
  bool batch = false;         // external: spawn_batch (true) or spawn_one per task
  std::uint64_t at = 0;       // not before this scheduler step
  std::size_t line = 0;
};

// An expected value: a list of allowed values, or none (anything goes).
struct Expected {
  std::vector<std::uint64_t> allowed;
  bool matches(std::uint64_t v) const;
  std::string describe() const;
};

struct Case {
  std::string path;
  bool forkjoin = false;  // `pool forkjoin`: split deques, join frames, run() events
  std::size_t deque_capacity = 8192;  // fork-join: SplitDeque's capacity (kDefaultCapacity)
  std::size_t workers = 2;
  std::uint32_t steal_tries = 2;
  std::uint32_t spin_iters = 2;
  std::uint32_t stale_reads = 0;    // % of eager sleeper-count reads that see a stale 0
  std::uint32_t retry_percent = 0;  // % of steals that report a lost race
  std::uint64_t liveness_bound = 0; // 0: 64 * workers^2 + 64
  std::uint64_t max_steps = 2'000'000;
  std::vector<Program> programs;
  std::vector<std::vector<Event>> producers;  // producers[p]: p's events, in order

  Expected expect_executed, expect_dropped, expect_rejected;
  std::optional<bool> expect_error;
  std::optional<std::uint64_t> expect_trace_hash;  // of seed 1's trace
};

// Throws std::runtime_error naming the file, line and problem.
Case load_case(const std::string& path);
// The same from the text of a case; `name` stands for the file in messages.
Case parse_case(const std::string& text, const std::string& name);

}  // namespace stealpool::sim

// tests/mpi/dist_test.cpp: behaviour tests of stealpool::mpi::DistExecutor, run
// under mpiexec at 1, 2 and 4 ranks (CMakeLists.txt registers one ctest test per
// scenario and rank count). Each scenario checks its outcome on every rank; the
// ranks agree on pass/fail with an MPI_Allreduce, and the exit status is 0 only
// if every rank passed. Outcomes are exact, whatever the timing.
//
//   dist_test <scenario>
#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <new>
#include <regex>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "stealpool/mpi/dist_executor.hpp"
#include "stealpool/mpi/trace.hpp"
#include "stealpool/trace_recorder.hpp"
#include "stealpool/workloads/uts.hpp"

namespace {

namespace mpi = stealpool::mpi;
namespace uts = stealpool::workloads;

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Bytes of address space this process has mapped (/proc/self/statm's first
// field, in pages).
std::uint64_t current_address_space() {
  unsigned long pages = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  return static_cast<std::uint64_t>(pages) * 4096u;
}

// Joins its parts with std::string::append (g++ 12 -O3 warns falsely, -Wrestrict,
// on "literal" + std::string).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view p : parts) s.append(p);
  return s;
}
std::string num(std::uint64_t v) { return std::to_string(v); }

bool fail(const std::string& why) {
  std::fprintf(stderr, "rank %d: FAIL: %s\n", world_rank(), why.c_str());
  return false;
}

// --- the range workload: every id of [0, n) is visited exactly once -------------
// A task {lo, hi} splits in halves until one id is left; that leaf is the visit.
// Leaves below heavy_below spin a while, so the work is uneven and ranks that
// started with light ranges must steal to finish early.
struct Range {
  std::uint32_t lo, hi;
};
struct Visits {
  std::vector<std::uint32_t> count;  // count[id]: visits of id by this worker
};
constexpr std::uint32_t kIds = 200'000;

std::uint64_t spin(std::uint64_t x, int rounds) {
  for (int i = 0; i < rounds; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}
// Where spin()'s results go, so the work is not optimised away; several workers
// store to it, so it is atomic (relaxed: only the stores matter).
std::atomic<std::uint64_t> g_sink{0};

using RangeExec = mpi::DistExecutor<Range, Visits>;

RangeExec make_range_executor(std::size_t workers, std::uint32_t throw_at, stealpool::TraceSink* trace = nullptr,
                              std::size_t random_steals = mpi::DistConfig{}.random_steals) {
  mpi::DistConfig config;
  config.workers = workers;
  config.trace = trace;
  config.random_steals = random_steals;
  return RangeExec(
      config, [](std::size_t) { return Visits{std::vector<std::uint32_t>(kIds, 0)}; },
      [throw_at](Range r, mpi::Context<Range, Visits>& ctx) {
        if (r.hi - r.lo > 1) {
          const std::uint32_t mid = r.lo + (r.hi - r.lo) / 2;
          ctx.spawn({r.lo, mid});
          ctx.spawn({mid, r.hi});
          return;
        }
        if (r.lo == throw_at) throw std::runtime_error("task " + std::to_string(r.lo) + " failed");
        ++ctx.scratch().count[r.lo];
        if (r.lo < kIds / 8) g_sink.store(spin(r.lo, 2000), std::memory_order::relaxed);
      });
}

// Seeds: all of [0, kIds) on rank 0, or an equal slice on every rank.
void seed_ranges(RangeExec& ex, bool spread) {
  const auto n = static_cast<std::uint32_t>(ex.size());
  const auto r = static_cast<std::uint32_t>(ex.rank());
  if (!spread) {
    if (r == 0) ex.seed(Range{0, kIds});
    return;
  }
  const std::uint32_t lo = kIds / n * r, hi = r + 1 == n ? kIds : kIds / n * (r + 1);
  if (lo < hi) ex.seed(Range{lo, hi});
}

// Tasks run for ranges seeded as above: a range of k ids is 2k - 1 tasks.
std::uint64_t expected_tasks(int size, bool spread) {
  if (!spread) return 2ull * kIds - 1;
  return 2ull * kIds - static_cast<std::uint64_t>(size);
}

bool every_task_runs_exactly_once(std::size_t workers, bool spread) {
  RangeExec ex = make_range_executor(workers, kIds);  // kIds: no task throws
  seed_ranges(ex, spread);
  ex.run();
  std::vector<std::uint32_t> visits(kIds, 0);
  for (std::size_t w = 0; w < workers; ++w) {
    const auto& c = ex.scratch(w)->count;
    for (std::uint32_t i = 0; i < kIds; ++i) visits[i] += c[i];
  }
  MPI_Allreduce(MPI_IN_PLACE, visits.data(), static_cast<int>(kIds), MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
  for (std::uint32_t i = 0; i < kIds; ++i)
    if (visits[i] != 1) return fail("id " + std::to_string(i) + " was visited " + std::to_string(visits[i]) + " times");
  const std::uint64_t run = ex.reduce(ex.metrics().tasks_run, [](std::uint64_t a, std::uint64_t b) { return a + b; });
  if (run != expected_tasks(ex.size(), spread))
    return fail("tasks_run summed over ranks is " + std::to_string(run) + ", expected " +
                std::to_string(expected_tasks(ex.size(), spread)));
  const std::uint64_t given = ex.reduce(ex.metrics().tasks_given, [](std::uint64_t a, std::uint64_t b) { return a + b; });
  const std::uint64_t stolen = ex.reduce(ex.metrics().tasks_stolen, [](std::uint64_t a, std::uint64_t b) { return a + b; });
  if (given != stolen) return fail("tasks given " + std::to_string(given) + " != tasks stolen " + std::to_string(stolen));
  return true;
}

// write_rank_traces: one document, a process per rank, and the run slices of
// all ranks together count every task that ran (the recorder counts the tasks a
// worker found in each slice; the last slice closes before a worker stops).
bool a_trace_has_a_process_per_rank_and_counts_every_task() {
  const std::size_t workers = 2;
  stealpool::TraceRecorder recorder(workers);
  RangeExec ex = make_range_executor(workers, kIds, &recorder);
  seed_ranges(ex, true);
  ex.run();
  std::ostringstream doc;
  mpi::write_rank_traces(recorder, MPI_COMM_WORLD, doc);
  const std::uint64_t run = ex.reduce(ex.metrics().tasks_run, [](std::uint64_t a, std::uint64_t b) { return a + b; });
  if (ex.rank() != 0) return doc.str().empty() || fail("a rank other than 0 wrote part of the document");
  const std::string text = doc.str();
  if (text.rfind("{\"displayTimeUnit\"", 0) != 0 || text.find("\n]}\n") != text.size() - 4)
    return fail("not one JSON document: " + text.substr(0, 80));
  for (int r = 0; r < ex.size(); ++r) {
    const std::string process = "\"pid\": " + std::to_string(r + 1) + ", \"name\": \"process_name\", \"args\": {\"name\": \"rank " +
                                std::to_string(r) + "\"}";
    if (text.find(process) == std::string::npos) return fail("no process track for rank " + std::to_string(r));
  }
  std::uint64_t in_slices = 0;
  const std::regex tasks("\"tasks\": ([0-9]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), tasks); it != std::sregex_iterator(); ++it)
    in_slices += std::stoull((*it)[1].str());
  if (in_slices != run)
    return fail("run slices count " + std::to_string(in_slices) + " tasks, the ranks ran " + std::to_string(run));
  return true;
}

// Runs `ex`, whose run must fail with `message`: thrown as is on `want_owns`
// ranks (where it failed; never this one unless `may_fail_here`), quoted by
// RemoteTaskFailure on every other rank (none when want_owns is 0: the run then
// ends normally).
template <class Exec>
bool run_fails_with(Exec& ex, const std::string& message, int want_owns, bool may_fail_here) {
  int own = 0, remote = 0;
  std::string bad;
  try {
    ex.run();
  } catch (const mpi::RemoteTaskFailure& e) {
    remote = 1;
    if (std::string_view(e.what()).find(message) == std::string_view::npos)
      bad = std::string("RemoteTaskFailure does not quote the failure's message: ") + e.what();
  } catch (const std::runtime_error& e) {
    own = 1;
    if (e.what() != message) bad = std::string("unexpected exception: ") + e.what();
    if (!may_fail_here) bad = std::string("failed on a rank where it cannot: ") + e.what();
  }
  if (!bad.empty()) return fail(bad);
  int owns = 0, remotes = 0;
  MPI_Allreduce(&own, &owns, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&remote, &remotes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const int want_remotes = want_owns == 0 ? 0 : world_size() - want_owns;
  if (owns != want_owns || remotes != want_remotes)
    return fail(cat({"ranks that got '", message, "': ", num(static_cast<std::uint64_t>(owns)), " (expected ",
                     num(static_cast<std::uint64_t>(want_owns)), "), RemoteTaskFailure: ", num(static_cast<std::uint64_t>(remotes)),
                     " (expected ", num(static_cast<std::uint64_t>(want_remotes)), ")"}));
  return true;
}

// Context::emit: every leaf of the range workload emits one frame (its id, as
// text, and a tail of id % 200 bytes, so frames differ in size and some are
// empty but for the id), spread seeds, 2 workers a rank. Rank 0's sink sees each
// id exactly once, intact, from some rank, and every frame has arrived when
// run() returns; a rank's frames arrive in its workers' order (one worker's
// ids rise within a seed's range: checked as "no id twice" and intact only).
// The range workload, 2 workers a rank, each leaf emitting frame_of(id).
RangeExec make_emitting_executor(std::string (*frame_of)(std::uint32_t)) {
  mpi::DistConfig config;
  config.workers = 2;
  return RangeExec(
      config, [](std::size_t) { return Visits{}; },
      [frame_of](Range r, mpi::Context<Range, Visits>& ctx) {
        if (r.hi - r.lo > 1) {
          const std::uint32_t mid = r.lo + (r.hi - r.lo) / 2;
          ctx.spawn({r.lo, mid});
          ctx.spawn({mid, r.hi});
          return;
        }
        ctx.emit(frame_of(r.lo));
      });
}

bool every_emitted_frame_reaches_rank_zero_once_and_intact() {
  RangeExec ex = make_emitting_executor([](std::uint32_t id) {
    std::string frame = std::to_string(id) + ":";
    frame.append(id % 200, static_cast<char>('a' + id % 26));
    return frame;
  });
  std::vector<std::uint32_t> seen(ex.rank() == 0 ? kIds : 0, 0);
  std::uint64_t bad_frames = 0, frames = 0;
  std::vector<std::uint64_t> from_rank(static_cast<std::size_t>(ex.size()), 0);
  ex.on_data([&](int rank, std::span<const std::byte> bytes) {
    ++frames;
    if (rank >= 0 && rank < ex.size()) ++from_rank[static_cast<std::size_t>(rank)];
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    const std::size_t colon = text.find(':');
    std::uint32_t id = 0;
    if (colon == std::string_view::npos ||
        std::from_chars(text.data(), text.data() + colon, id).ec != std::errc() || id >= kIds) {
      ++bad_frames;
      return;
    }
    const std::string tail(id % 200, static_cast<char>('a' + id % 26));
    if (text.substr(colon + 1) != tail) ++bad_frames;
    ++seen[id];
  });
  seed_ranges(ex, true);
  ex.run();
  if (ex.rank() != 0) return true;
  if (bad_frames != 0) return fail(num(bad_frames) + " frames arrived cut or changed");
  for (std::uint32_t i = 0; i < kIds; ++i)
    if (seen[i] != 1) return fail("id " + num(i) + " arrived " + num(seen[i]) + " times");
  if (frames != kIds) return fail(num(frames) + " frames, " + num(kIds) + " emitted");
  for (int r = 0; r < ex.size(); ++r)  // every rank ran leaves (spread seeds): each sent frames
    if (from_rank[static_cast<std::size_t>(r)] == 0) return fail("no frame from rank " + num(static_cast<std::uint64_t>(r)));
  return true;
}

// A data sink that throws fails rank 0 as a task would: run() rethrows it
// there and throws RemoteTaskFailure on the other ranks; no rank waits forever.
bool a_data_sink_that_throws_fails_rank_zero_and_stops_every_rank() {
  RangeExec ex = make_emitting_executor([](std::uint32_t id) { return std::to_string(id); });
  std::uint64_t calls = 0;
  ex.on_data([&](int, std::span<const std::byte>) {
    if (++calls == 1000) throw std::runtime_error("sink full at frame 1000");
  });
  seed_ranges(ex, true);
  return run_fails_with(ex, "sink full at frame 1000", 1, ex.rank() == 0);
}


bool exception_reaches_the_caller_on_its_rank() {
  constexpr std::uint32_t kThrowAt = kIds / 2 + 7;
  RangeExec ex = make_range_executor(2, kThrowAt);
  seed_ranges(ex, true);
  return run_fails_with(ex, cat({"task ", num(kThrowAt), " failed"}), 1, true);
}

// Termination with steals in flight: many short runs in which rank 0 holds a
// little work and every other rank starts dry and hunts at once, so steal
// requests, replies and lifeline pushes are in flight while the Safra token goes
// round. Every run must still run each task exactly once and end on every rank,
// and each run ends by a wave of its own (rank 0 decides on a wave's reports).
// A reply that rank 1 receives before it reports to the first wave is in that
// wave's counts, so the first wave may succeed ([MPI-late-stamp]); which
// crossings need a colour, and that a rank 0 ignoring the colours is caught,
// the rank simulator checks (sim/ranks/README.md, its mutant tests).
bool termination_waits_for_in_flight_steals() {
  constexpr int kRuns = 20;
  constexpr std::uint32_t kSmall = 512;  // ids per run: 1,023 tasks
  std::uint64_t waves = 0, requests = 0;
  for (int run = 0; run < kRuns; ++run) {
    // Random steals first (the default goes straight to the lifelines): the
    // replies are what may cross a wave.
    RangeExec ex = make_range_executor(1, kIds, nullptr, 2);
    if (ex.rank() == 0) ex.seed(Range{0, kSmall});
    ex.run();
    std::vector<std::uint32_t> visits(kSmall, 0);
    for (std::uint32_t i = 0; i < kSmall; ++i) visits[i] = ex.scratch(0)->count[i];
    MPI_Allreduce(MPI_IN_PLACE, visits.data(), static_cast<int>(kSmall), MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
    for (std::uint32_t i = 0; i < kSmall; ++i)
      if (visits[i] != 1)
        return fail("run " + std::to_string(run) + ": id " + std::to_string(i) + " visited " + std::to_string(visits[i]) + " times");
    auto sum = [](std::uint64_t a, std::uint64_t b) { return a + b; };
    waves += ex.reduce(ex.metrics().token_waves, sum);
    requests += ex.reduce(ex.metrics().steal_requests_sent, sum);
  }
  if (world_size() == 1) return true;  // no messages, no token
  if (requests == 0) return fail("no steal request was sent: the dry ranks never hunted");
  if (waves < kRuns)
    return fail(std::to_string(waves) + " waves in " + std::to_string(kRuns) + " runs: some run ended without a wave");
  return true;
}

// [MPI-dry-bell]: the worker whose token takes its rank dry rings the progress
// thread, so a nap ends when the last task finishes, not when it times out. The
// pool is driven directly, as Progress drives it: one task that runs until
// released, and a nap of 60 s that must end within a few seconds of the release.
bool a_rank_that_runs_dry_ends_its_progress_nap() {
  using Pool = mpi::detail::RankWorkers<Range, int>;
  mpi::DistConfig config;
  config.workers = 2;
  std::atomic<bool> release{false};
  Pool pool(config, 0, [](std::size_t) { return 0; },
            [&release](Range, mpi::Context<Range, int>&) {
              while (!release.load(std::memory_order::acquire)) std::this_thread::yield();
            });
  const Range task{0, 1};
  pool.seed(&task, 1);
  pool.start();
  pool.open_gate();
  std::thread releaser([&release] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    release.store(true, std::memory_order::release);
  });
  const auto t0 = std::chrono::steady_clock::now();
  int naps = 0;
  while (!pool.dry() && naps < 3) {
    pool.nap(std::chrono::seconds(60));
    ++naps;
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  releaser.join();
  const bool dry = pool.dry();
  pool.stop_and_join();
  if (!dry) return fail(cat({"the rank is not dry after ", num(static_cast<std::uint64_t>(naps)), " naps"}));
  if (waited > 20.0)
    return fail(cat({"the progress thread napped ", std::to_string(waited),
                     " s: running dry did not end its 60 s nap"}));
  return true;
}

// [MPI-worker-probe], on one rank's workers directly (the test thread plays the
// progress thread, holding the probe's lock for its MPI calls): a message that
// waits for the rank is found by a worker between tasks, which rings the
// progress thread out of a 60 s nap; with the probe off no worker calls MPI,
// and the message is still there for the progress thread.
bool workers_probe_for_a_waiting_message(bool probing) {
  using Task = std::uint32_t;
  using Pool = mpi::detail::RankWorkers<Task, int>;
  constexpr Task kChainWhenOff = 20'000;  // tasks the chain runs with the probe off
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  mpi::detail::WorkerProbe probe(comm, std::chrono::microseconds(probing ? 100 : 0));
  mpi::DistConfig config;
  config.workers = 2;
  std::atomic<bool> stop{false};
  mpi::RankMetrics m;
  double waited = 0;
  {
    // A chain of tasks, each spawning the next, until stopped (or, with the
    // probe off, for kChainWhenOff tasks).
    Pool pool(
        config, 0, [](std::size_t) { return 0; },
        [&stop, probing](Task n, mpi::Context<Task, int>& ctx) {
          if (!stop.load(std::memory_order::acquire) && (probing || n < kChainWhenOff)) ctx.spawn(n + 1);
        },
        &probe);
    const int payload = 7;
    MPI_Request sent = MPI_REQUEST_NULL;
    {
      const std::lock_guard<std::mutex> held(probe.lock());
      MPI_Isend(&payload, 1, MPI_INT, world_rank(), 99, comm, &sent);
    }
    const Task first = 0;
    pool.seed(&first, 1);
    pool.start();
    pool.open_gate();
    pool.nap(std::chrono::microseconds(0));  // a token left from before the run, if any
    const auto t0 = std::chrono::steady_clock::now();
    if (probing) pool.nap(std::chrono::seconds(60));
    waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    stop.store(probing, std::memory_order::release);  // with the probe off the chain ends by itself
    while (!pool.dry()) pool.nap(std::chrono::milliseconds(1));
    pool.stop_and_join();
    pool.add_metrics(m);
    const std::lock_guard<std::mutex> held(probe.lock());
    int got = 0;
    MPI_Recv(&got, 1, MPI_INT, world_rank(), 99, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&sent, MPI_STATUS_IGNORE);
    probe.close();
    if (got != payload) return fail(cat({"the message changed: ", num(static_cast<std::uint64_t>(got))}));
  }
  MPI_Comm_free(&comm);
  if (probing) {
    if (waited > 20.0)
      return fail(cat({"the progress thread napped ", std::to_string(waited), " s: no worker's probe rang it"}));
    if (m.worker_probe_rings == 0) return fail("the nap ended, but no worker's probe counted a ring");
  } else {
    if (m.tasks_run != kChainWhenOff + 1)
      return fail(cat({"the chain ran ", num(m.tasks_run), " tasks, expected ", num(kChainWhenOff + 1)}));
    if (m.worker_probe_rings != 0)
      return fail(cat({"the probe is off, yet workers rang ", num(m.worker_probe_rings), " times"}));
  }
  return true;
}

// At MPI_THREAD_FUNNELED (main() initialises MPI so for this scenario) only
// the thread in run() may call MPI: the executor turns its workers' probes off
// whatever DistConfig::worker_probe_us says, and the run is as exact as ever.
bool at_funneled_the_workers_never_probe() {
  int provided = 0;
  MPI_Query_thread(&provided);
  if (provided != MPI_THREAD_FUNNELED)
    return fail(cat({"MPI gave ", mpi::thread_level_name(provided), ", not MPI_THREAD_FUNNELED"}));
  if (!every_task_runs_exactly_once(2, false)) return false;
  RangeExec ex = make_range_executor(2, kIds);
  seed_ranges(ex, false);
  ex.run();
  if (ex.metrics().worker_probe_rings != 0)
    return fail(cat({"workers rang the progress thread ", num(ex.metrics().worker_probe_rings), " times at FUNNELED"}));
  return true;
}

// A small UTS tree (T1's shape cut at depth 7, about 65,000 nodes), counted by the
// distributed executor and compared with the serial walk.
// With `weighed`, each node weighs its expected subtree ([MPI-take-by-weight]):
// a steal sends part of what it took and hands the rest back to its rank.
bool uts_small_tree_counts_match_serial(std::size_t workers, bool weighed) {
  using uts::UtsNode;
  static constexpr uts::UtsTree kTree{"T1-depth7", uts::UtsType::kGeometric, 4.0, 19, 0, 0.0,
                                      uts::UtsShape::kFixed, 7, 0, 0, 0};
  struct Counts {
    std::uint64_t nodes = 0, leaves = 0;
  };
  mpi::DistConfig config;
  config.workers = workers;
  mpi::DistExecutor<UtsNode, Counts> ex(config, [](std::size_t) { return Counts{}; },
                                        [](UtsNode n, mpi::Context<UtsNode, Counts>& ctx) {
                                          const int k = uts::uts_num_children(kTree, n);
                                          ++ctx.scratch().nodes;
                                          if (k == 0) ++ctx.scratch().leaves;
                                          for (int i = 0; i < k; ++i) ctx.spawn(uts::uts_child(n, i));
                                        });
  if (weighed) ex.weigh_tasks(uts::UtsExpectedNodes(kTree));
  if (ex.rank() == 0) ex.seed(uts::uts_root(kTree));
  ex.run();
  Counts mine;
  for (std::size_t w = 0; w < workers; ++w) {
    mine.nodes += ex.scratch(w)->nodes;
    mine.leaves += ex.scratch(w)->leaves;
  }
  const Counts total = ex.reduce(mine, [](Counts a, Counts b) { return Counts{a.nodes + b.nodes, a.leaves + b.leaves}; });
  const uts::UtsStats serial = uts::uts_serial(kTree);
  if (serial.nodes < 10'000) return fail("the test tree is too small: " + std::to_string(serial.nodes) + " nodes");
  if (total.nodes != serial.nodes || total.leaves != serial.leaves)
    return fail("nodes=" + std::to_string(total.nodes) + " leaves=" + std::to_string(total.leaves) + ", serial nodes=" +
                std::to_string(serial.nodes) + " leaves=" + std::to_string(serial.leaves));
  return true;
}

// --- tasks that need a codec: a path and the steps that spell it ----------------
// A node of a tree of fan-out kPathFanout and depth kPathDepth: `steps` lists the
// child indices from the root, `path` is "root" and one segment per step, of a
// length that varies with the level and the child (paths reach over 100 bytes).
// Each task checks that its path is the one its steps spell, so a byte lost or
// garbled on the way fails the run; each leaf counts its visit by its index.
struct PathTask {
  std::string path;
  std::vector<std::uint32_t> steps;
};
// The same, with a codec whose decode throws for the task whose path is
// "poison", and whose encode throws for "unsendable".
struct FragileTask {
  PathTask task;
};
constexpr std::uint32_t kPathFanout = 4;
constexpr std::uint32_t kPathDepth = 7;
constexpr std::uint32_t kPathLeaves = 16'384;  // kPathFanout ^ kPathDepth
constexpr std::uint64_t kPathTasks = 21'845;   // (kPathFanout ^ (kPathDepth + 1) - 1) / (kPathFanout - 1)

std::string path_segment(std::size_t level, std::uint32_t child) {
  std::string s("/");
  s.append(1 + (level * 5 + child * 11) % 23, static_cast<char>('a' + child));
  return s;
}
std::string spelled_path(const std::vector<std::uint32_t>& steps) {
  std::string p("root");
  for (std::size_t i = 0; i < steps.size(); ++i) p.append(path_segment(i, steps[i]));
  return p;
}

void put_u32(std::vector<std::byte>& out, std::size_t v) {
  const auto u = static_cast<std::uint32_t>(v);
  const auto* b = reinterpret_cast<const std::byte*>(&u);
  out.insert(out.end(), b, b + sizeof u);
}
// Reads a u32 and then that many elements of `elem` bytes; throws naming the sizes.
std::span<const std::byte> take_counted(std::span<const std::byte>& in, std::size_t elem, std::uint32_t& count) {
  if (in.size() < sizeof count) throw std::runtime_error(cat({"PathTask codec: ", num(in.size()), " bytes left, a count needs 4"}));
  std::memcpy(&count, in.data(), sizeof count);
  in = in.subspan(sizeof count);
  if (in.size() / elem < count)
    throw std::runtime_error(cat({"PathTask codec: a count of ", num(count), " with ", num(in.size()), " bytes left"}));
  std::span<const std::byte> field = in.first(count * elem);
  in = in.subspan(count * elem);
  return field;
}

}  // namespace

template <>
struct stealpool::mpi::Codec<PathTask> {
  static void encode(const PathTask& t, std::vector<std::byte>& out) {
    put_u32(out, t.path.size());
    const auto* p = reinterpret_cast<const std::byte*>(t.path.data());
    out.insert(out.end(), p, p + t.path.size());
    put_u32(out, t.steps.size());
    const auto* s = reinterpret_cast<const std::byte*>(t.steps.data());
    out.insert(out.end(), s, s + t.steps.size() * sizeof(std::uint32_t));
  }
  static PathTask decode(std::span<const std::byte> in) {
    PathTask t;
    std::uint32_t n = 0;
    const std::span<const std::byte> path = take_counted(in, 1, n);
    t.path.assign(reinterpret_cast<const char*>(path.data()), n);
    const std::span<const std::byte> steps = take_counted(in, sizeof(std::uint32_t), n);
    t.steps.resize(n);
    if (n != 0) std::memcpy(t.steps.data(), steps.data(), steps.size());  // no null pointers to memcpy
    if (!in.empty()) throw std::runtime_error(cat({"PathTask codec: ", num(in.size()), " bytes left over"}));
    return t;
  }
};

template <>
struct stealpool::mpi::Codec<FragileTask> {
  static void encode(const FragileTask& t, std::vector<std::byte>& out) {
    if (t.task.path == "unsendable") throw std::runtime_error("cannot encode task 'unsendable'");
    Codec<PathTask>::encode(t.task, out);
  }
  static FragileTask decode(std::span<const std::byte> in) {
    FragileTask t{Codec<PathTask>::decode(in)};
    if (t.task.path == "poison") throw std::runtime_error("cannot decode task 'poison'");
    return t;
  }
};

namespace {

// A boxed task (not trivially copyable) that counts its live instances, so a
// test sees every box freed, whatever path its task took.
std::atomic<long> g_live_tasks{0};
struct CountedTask {
  explicit CountedTask(std::uint32_t i) : id(i) { g_live_tasks.fetch_add(1, std::memory_order::relaxed); }  // a count read after joins
  CountedTask(const CountedTask& o) : id(o.id) { g_live_tasks.fetch_add(1, std::memory_order::relaxed); }
  CountedTask& operator=(const CountedTask&) = default;
  ~CountedTask() { g_live_tasks.fetch_sub(1, std::memory_order::relaxed); }
  std::uint32_t id;
};

}  // namespace

template <>
struct stealpool::mpi::Codec<CountedTask> {
  static void encode(const CountedTask& t, std::vector<std::byte>& out) { put_u32(out, t.id); }
  static CountedTask decode(std::span<const std::byte> in) {
    std::uint32_t id = 0;
    if (in.size() != sizeof id) throw std::runtime_error(cat({"CountedTask codec: ", num(in.size()), " bytes, expected 4"}));
    std::memcpy(&id, in.data(), sizeof id);
    return CountedTask(id);
  }
};

namespace {

struct LeafVisits {
  std::vector<std::uint32_t> count;  // count[leaf]: visits of that leaf by this worker
};

// Every node of the path tree runs exactly once, all of it seeded on rank 0, so
// every other rank's work came in batches of coded tasks; each task arrives with
// its path and steps intact (the runner checks, and throws if not).
bool coded_tasks_run_exactly_once_intact_all_on_rank0() {
  constexpr std::size_t kWorkers = 2;
  mpi::DistConfig config;
  config.workers = kWorkers;
  mpi::DistExecutor<PathTask, LeafVisits> ex(
      config, [](std::size_t) { return LeafVisits{std::vector<std::uint32_t>(kPathLeaves, 0)}; },
      [](PathTask t, mpi::Context<PathTask, LeafVisits>& ctx) {
        if (t.path != spelled_path(t.steps)) throw std::logic_error(cat({"task garbled on the way: path '", t.path, "'"}));
        if (t.steps.size() < kPathDepth) {
          for (std::uint32_t c = 0; c < kPathFanout; ++c) {
            PathTask child{t.path, t.steps};
            child.path.append(path_segment(t.steps.size(), c));
            child.steps.push_back(c);
            ctx.spawn(std::move(child));
          }
          return;
        }
        std::uint32_t leaf = 0;
        for (std::uint32_t s : t.steps) leaf = leaf * kPathFanout + s;
        ++ctx.scratch().count[leaf];
        g_sink.store(spin(leaf, 10'000), std::memory_order::relaxed);
      });
  if (ex.rank() == 0) ex.seed(PathTask{"root", {}});
  ex.run();
  std::vector<std::uint32_t> visits(kPathLeaves, 0);
  for (std::size_t w = 0; w < kWorkers; ++w)
    for (std::uint32_t i = 0; i < kPathLeaves; ++i) visits[i] += ex.scratch(w)->count[i];
  MPI_Allreduce(MPI_IN_PLACE, visits.data(), static_cast<int>(kPathLeaves), MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
  for (std::uint32_t i = 0; i < kPathLeaves; ++i)
    if (visits[i] != 1) return fail(cat({"leaf ", num(i), " was visited ", num(visits[i]), " times"}));
  auto sum = [](std::uint64_t a, std::uint64_t b) { return a + b; };
  const std::uint64_t run = ex.reduce(ex.metrics().tasks_run, sum);
  const std::uint64_t given = ex.reduce(ex.metrics().tasks_given, sum);
  const std::uint64_t stolen = ex.reduce(ex.metrics().tasks_stolen, sum);
  if (run != kPathTasks) return fail(cat({"tasks_run summed over ranks is ", num(run), ", expected ", num(kPathTasks)}));
  if (given != stolen) return fail(cat({"tasks given ", num(given), " != tasks stolen ", num(stolen)}));
  if (ex.rank() == 0) std::printf("coded tasks that travelled between ranks: %llu\n", static_cast<unsigned long long>(stolen));
  return true;
}

// A run of FragileTasks, to be seeded with one task, `special`, on rank 0. While it
// stays on rank 0 it requeues itself, oldest in its worker's deque, with three
// short leaves after it, so it is spare work until another rank steals it (it
// is never copied: one such task exists at a time). With one rank nobody steals
// it: it runs once and the run ends normally.
using FragileExec = mpi::DistExecutor<FragileTask>;
FragileExec make_fragile_executor(const std::string& special) {
  mpi::DistConfig config;
  config.workers = 2;
  return FragileExec(config, [special](FragileTask t, mpi::Context<FragileTask, stealpool::NoScratch>& ctx) {
    if (t.task.path != special || ctx.rank() != 0 || world_size() == 1) {
      g_sink.store(spin(t.task.path.size(), 20'000), std::memory_order::relaxed);
      return;
    }
    ctx.spawn(std::move(t));
    for (int i = 0; i < 3; ++i) ctx.spawn(FragileTask{PathTask{"leaf", {}}});
  });
}

// "poison" cannot be decoded: the rank that receives it fails with the codec's
// exception, and the run stops on every rank (RemoteTaskFailure elsewhere).
bool a_task_that_cannot_be_decoded_fails_its_rank_and_stops_every_rank() {
  FragileExec ex = make_fragile_executor("poison");
  if (ex.rank() == 0) ex.seed(FragileTask{PathTask{"poison", {}}});
  return run_fails_with(ex, "cannot decode task 'poison'", world_size() == 1 ? 0 : 1, ex.rank() != 0);
}

// "unsendable" cannot be encoded: rank 0, which tries to send it, fails with the
// codec's exception, and the run stops on every rank.
bool a_task_that_cannot_be_encoded_fails_the_sending_rank_and_stops_every_rank() {
  FragileExec ex = make_fragile_executor("unsendable");
  if (ex.rank() == 0) ex.seed(FragileTask{PathTask{"unsendable", {}}});
  return run_fails_with(ex, "cannot encode task 'unsendable'", world_size() == 1 ? 0 : 1, ex.rank() == 0);
}

// Boxed tasks that never run are destroyed: seeds of an executor that is never
// run, and the tasks a cancelled run drops (task 0 spawns 200 and throws). The
// instance count is back to 0 on every rank once each executor is gone.
bool coded_tasks_left_unrun_are_destroyed() {
  using CountedExec = mpi::DistExecutor<CountedTask>;
  auto runner = [](CountedTask t, mpi::Context<CountedTask, stealpool::NoScratch>& ctx) {
    if (t.id != 0) return;
    for (std::uint32_t i = 1; i <= 200; ++i) ctx.spawn(CountedTask(i));
    throw std::runtime_error("task 0 failed");
  };
  {
    CountedExec ex(mpi::DistConfig{}, runner);
    for (std::uint32_t i = 0; i < 100; ++i) ex.seed(CountedTask(i));
  }
  if (g_live_tasks.load() != 0) return fail(cat({num(static_cast<std::uint64_t>(g_live_tasks.load())), " seeded tasks outlived an executor that never ran"}));
  {
    mpi::DistConfig config;
    config.workers = 2;
    CountedExec ex(config, runner);
    if (ex.rank() == 0) ex.seed(CountedTask(0));
    if (!run_fails_with(ex, "task 0 failed", 1, ex.rank() == 0)) return false;
  }
  if (g_live_tasks.load() != 0) return fail(cat({num(static_cast<std::uint64_t>(g_live_tasks.load())), " tasks outlived a cancelled run"}));
  return true;
}

// A batch whose second task cannot be decoded, handed to a rank's pool as the
// progress thread hands a steal reply: the task decoded before it is destroyed,
// none is queued (the rank stays dry: [MPI-outstanding] untouched), the rank
// fails with the codec's exception, and all three count as dropped. Then the
// same for a batch cut short (it announces 3 tasks and holds 2). Driven on the
// pool directly, so the failing task's place in the batch is certain.
bool a_batch_that_fails_to_decode_midway_queues_nothing_and_frees_what_it_decoded() {
  using Pool = mpi::detail::RankWorkers<CountedTask, int>;
  using Wire = mpi::detail::TaskWire<CountedTask>;
  struct Case {
    const char* name;
    std::vector<std::byte> batch;
    std::string message;
  };
  std::vector<Case> cases;
  {
    std::vector<std::byte> b;
    Wire::append(b, CountedTask(1));
    put_u32(b, 3);  // task 2: a length of 3, which CountedTask's decode refuses
    b.insert(b.end(), 3, std::byte{0});
    Wire::append(b, CountedTask(3));
    cases.push_back({"a task that cannot be decoded", std::move(b), "CountedTask codec: 3 bytes, expected 4"});
  }
  {
    std::vector<std::byte> b;
    Wire::append(b, CountedTask(1));
    Wire::append(b, CountedTask(2));
    cases.push_back({"a batch cut short", std::move(b), "does not hold the 3 tasks"});
  }
  for (Case& c : cases) {
    const long live_before = g_live_tasks.load();
    Pool pool(mpi::DistConfig{}, 0, [](std::size_t) { return 0; }, [](CountedTask, mpi::Context<CountedTask, int>&) {});
    pool.give(c.batch, 3);
    if (g_live_tasks.load() != live_before)
      return fail(cat({c.name, ": ", num(static_cast<std::uint64_t>(g_live_tasks.load() - live_before)),
                       " decoded tasks outlived the failed batch"}));
    if (!pool.dry()) return fail(cat({c.name, ": the failed batch left tasks queued"}));
    if (!pool.failed()) return fail(cat({c.name, ": the rank did not fail"}));
    if (pool.failure_text().find(c.message) == std::string::npos)
      return fail(cat({c.name, ": the rank failed with '", pool.failure_text(), "', expected it to name '", c.message, "'"}));
    pool.stop_and_join();
    mpi::RankMetrics m;
    pool.add_metrics(m);
    if (m.tasks_dropped != 3) return fail(cat({c.name, ": ", num(m.tasks_dropped), " tasks counted as dropped, expected 3"}));
  }
  return true;
}

// A task held on a rank's worker until abandon()'s cancel is visible: the
// worker acquires `release` after the releaser saw the flag, so it sees it too
// and drops the rest (a timed release raced abandon() on a loaded machine). An
// abandon() that never cancels is released after 10 s, and the counts fail.
struct HeldTask {
  std::atomic<bool> started{false};
  std::atomic<bool> release{false};

  void hold() {  // in the task
    started.store(true, std::memory_order::release);
    while (!release.load(std::memory_order::acquire)) std::this_thread::yield();
  }
  // Once the task is held: gives the pool up, and returns its counts.
  template <class Pool>
  mpi::RankMetrics abandon_when_held(Pool& pool) {
    while (!started.load(std::memory_order::acquire)) std::this_thread::yield();
    std::thread releaser([this, &pool] {
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!pool.cancelling() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
      release.store(true, std::memory_order::release);
    });
    pool.abandon();
    releaser.join();
    mpi::RankMetrics m;
    pool.add_metrics(m);
    return m;
  }
};

// After a rank was given up: every boxed task freed, and the counts.
bool given_up_counts(long live_before, const mpi::RankMetrics& m, std::uint64_t run, std::uint64_t dropped) {
  if (g_live_tasks.load() != live_before)
    return fail(cat({num(static_cast<std::uint64_t>(g_live_tasks.load() - live_before)),
                     " boxed tasks outlived a rank given up with them"}));
  if (m.tasks_run != run || m.tasks_dropped != dropped)
    return fail(cat({"ran ", num(m.tasks_run), " and dropped ", num(m.tasks_dropped), ", expected ", num(run), " and ",
                     num(dropped)}));
  return true;
}

// A rank given up while its workers hold tasks (abandon(): the run failed to
// start after the seeds were given, or run() ended by an exception): the task
// that is running finishes, every queued one is dropped, and every boxed task is
// freed. Driven on the rank's workers directly, one worker held in task 0.
bool a_rank_given_up_with_tasks_queued_drops_and_frees_them() {
  using Pool = mpi::detail::RankWorkers<CountedTask, int>;
  const long live_before = g_live_tasks.load();
  HeldTask held;
  mpi::RankMetrics m;
  {
    Pool pool(mpi::DistConfig{}, 0, [](std::size_t) { return 0; },
              [&](CountedTask t, mpi::Context<CountedTask, int>&) {
                if (t.id == 0) held.hold();
              });
    for (std::uint32_t i = 0; i < 100; ++i) {
      const CountedTask t(i);
      pool.seed(&t, 1);
    }
    pool.start();
    pool.open_gate();
    m = held.abandon_when_held(pool);
  }
  return given_up_counts(live_before, m, 1, 99);
}

// A rank's workers driven directly, as the progress thread drives them: task
// -1 spawns kHeldChildren children and its worker runs the newest, which
// holds it until the take (LocalPool::take_half, with `weight` as
// DistExecutor::weigh_tasks would set it; empty: none) has run; then every
// task runs and the pool stops.
constexpr std::int32_t kHeldChildren = 1000;

struct HeldTake {
  std::size_t sent = 0;
  std::vector<std::int32_t> wire_tasks;
  std::vector<int> runs;  // [child]: times it ran on the rank
  mpi::RankMetrics metrics;
  bool failed = false;
  std::string failure;
};

HeldTake take_from_a_held_worker(std::function<double(const std::int32_t&)> weight) {
  using Pool = mpi::detail::RankWorkers<std::int32_t, int>;
  std::atomic<bool> started{false};
  std::atomic<bool> release{false};
  std::vector<std::atomic<int>> runs(kHeldChildren);
  HeldTake r;
  std::vector<std::byte> wire;
  {
    Pool pool(mpi::DistConfig{}, 0, [](std::size_t) { return 0; },
              [&](std::int32_t t, mpi::Context<std::int32_t, int>& ctx) {
                if (t < 0) {
                  for (std::int32_t i = 0; i < kHeldChildren; ++i) ctx.spawn(i);
                  return;
                }
                runs[static_cast<std::size_t>(t)].fetch_add(1, std::memory_order::relaxed);
                if (t != kHeldChildren - 1) return;  // the newest child runs first, and waits for the take
                started.store(true, std::memory_order::release);
                const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
                while (!release.load(std::memory_order::acquire) && std::chrono::steady_clock::now() < give_up)
                  std::this_thread::yield();
              });
    pool.set_weigher(std::move(weight));
    const std::int32_t root = -1;
    pool.seed(&root, 1);
    pool.start();
    pool.open_gate();
    while (!started.load(std::memory_order::acquire)) std::this_thread::yield();
    r.sent = pool.take_half(std::size_t{1} << 20, wire);
    release.store(true, std::memory_order::release);
    while (!pool.dry()) pool.nap(std::chrono::milliseconds(10));
    r.failed = pool.failed();
    if (r.failed) r.failure = pool.failure_text();
    pool.stop_and_join();
    pool.add_metrics(r.metrics);
  }
  mpi::detail::TaskWire<std::int32_t>::for_each(wire, r.sent, [&](std::int32_t&& t) { r.wire_tasks.push_back(t); });
  for (const auto& n : runs) r.runs.push_back(n.load());
  return r;
}

// [MPI-private-tail]: a task that spawns 1,000 children keeps most of them
// private, but before the worker runs the first of them its deque holds at
// least half as many as its tail: a third of the tasks, the oldest, where a
// steal from another rank (take_half, as Progress calls it) finds them.
bool a_worker_keeps_a_third_of_its_spawned_tasks_where_a_steal_finds_them() {
  constexpr std::int32_t kChildren = kHeldChildren;
  const HeldTake r = take_from_a_held_worker(nullptr);
  const std::size_t taken = r.sent;
  const mpi::RankMetrics& m = r.metrics;
  if (r.failed) return fail("the rank failed: " + r.failure);
  // The deque held 16 (kVisibleTasks) after the spawns, then the worker moved
  // the oldest private ones until it held half as many as the tail: 334 of 1,000.
  if (taken < 150)
    return fail(cat({"a steal took ", num(taken), " of the 1000 tasks: the spare ones stayed private"}));
  std::vector<bool> was_taken(kChildren, false);
  std::int32_t next_oldest = 0;
  bool oldest_first = true;
  for (const std::int32_t t : r.wire_tasks) {
    if (t != next_oldest++) oldest_first = false;
    if (t >= 0 && t < kChildren) was_taken[static_cast<std::size_t>(t)] = true;
  }
  if (!oldest_first) return fail("the steal did not take the oldest tasks first");
  for (std::int32_t i = 0; i < kChildren; ++i) {
    const int ran = r.runs[static_cast<std::size_t>(i)];
    if (ran + (was_taken[static_cast<std::size_t>(i)] ? 1 : 0) != 1)
      return fail(cat({"task ", num(static_cast<std::uint64_t>(i)), " ran ", num(static_cast<std::uint64_t>(ran)),
                       " times", was_taken[static_cast<std::size_t>(i)] ? " and was taken" : ""}));
  }
  if (m.tasks_run != 1 + kChildren - taken)
    return fail(cat({"the rank counts ", num(m.tasks_run), " tasks run, expected ", num(1 + kChildren - taken)}));
  return true;
}

// [MPI-take-by-weight] on a rank's workers, driven directly as above: the task
// spawns 1,000 children, of which the two oldest weigh 1,000, the next eight
// 100 and the rest 1, and holds its worker in the newest while the progress
// thread's take runs. The take takes the oldest third or so (the rest are
// private); of those the two heavy ones are about half of the work and are
// all it sends; the others go back to the rank and run there, once each.
double child_weight(std::int32_t t) { return t < 2 ? 1000.0 : t < 10 ? 100.0 : 1.0; }

bool a_weighed_take_sends_the_oldest_half_of_the_work_and_the_rest_runs_here() {
  const HeldTake r = take_from_a_held_worker(child_weight);
  if (r.failed) return fail("the rank failed: " + r.failure);
  if (r.wire_tasks != std::vector<std::int32_t>{0, 1})
    return fail(cat({"the take sent ", num(r.sent), " tasks, expected the two heaviest, 0 and 1"}));
  for (std::int32_t i = 0; i < kHeldChildren; ++i) {
    const int want = i < 2 ? 0 : 1;
    if (r.runs[static_cast<std::size_t>(i)] != want)
      return fail(cat({"task ", num(static_cast<std::uint64_t>(i)), " ran ",
                       num(static_cast<std::uint64_t>(r.runs[static_cast<std::size_t>(i)])), " times on the rank, expected ",
                       num(static_cast<std::uint64_t>(want))}));
  }
  if (r.metrics.tasks_run != 1 + kHeldChildren - 2 || r.metrics.tasks_dropped != 0)
    return fail(cat({"the rank counts ", num(r.metrics.tasks_run), " run and ", num(r.metrics.tasks_dropped),
                     " dropped, expected ", num(1 + kHeldChildren - 2), " and 0"}));
  return true;
}

// A weight that is NaN (or infinite, or not above 0) is a bug in the caller's
// weight: the rank fails as if a task had thrown, naming the value, and the
// take is sent whole (the run is cancelled, so the tasks are dropped).
bool a_weight_that_is_not_a_positive_number_fails_the_rank_naming_it() {
  const HeldTake r = take_from_a_held_worker([](const std::int32_t& t) { return t == 5 ? std::nan("") : 1.0; });
  if (!r.failed) return fail("a NaN weight did not fail the rank");
  if (r.failure.find("got nan") == std::string::npos)
    return fail("the failure does not name the weight: '" + r.failure + "'");
  if (r.wire_tasks.size() < 150) return fail(cat({"the take sent ", num(r.sent), " tasks, expected all it took"}));
  return true;
}

// The same for tasks a worker kept private ([MPI-private-tail]): task 0 spawns
// 99 boxed tasks, the first of them to run (the newest) is held, and every
// other one, in the deque or the tail, is dropped and freed.
bool a_rank_given_up_drops_and_frees_the_tasks_its_workers_kept_private() {
  using Pool = mpi::detail::RankWorkers<CountedTask, int>;
  const long live_before = g_live_tasks.load();
  HeldTask held;
  mpi::RankMetrics m;
  {
    Pool pool(mpi::DistConfig{}, 0, [](std::size_t) { return 0; },
              [&](CountedTask t, mpi::Context<CountedTask, int>& ctx) {
                if (t.id == 0)
                  for (std::uint32_t i = 1; i < 100; ++i) ctx.spawn(CountedTask(i));
                else if (t.id == 99)
                  held.hold();
              });
    const CountedTask t(0);
    pool.seed(&t, 1);
    pool.start();
    pool.open_gate();
    m = held.abandon_when_held(pool);
  }
  return given_up_counts(live_before, m, 2, 98);
}

bool bad_config_is_refused_with_its_value() {
  mpi::DistConfig config;
  config.workers = 0;
  try {
    mpi::DistExecutor<Range> ex(config, [](Range, mpi::Context<Range, stealpool::NoScratch>&) {});
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).find("workers must be at least 1 (got 0)") == std::string_view::npos)
      return fail(std::string("message does not name the field and value: ") + e.what());
    return true;
  }
  return fail("workers = 0 was accepted");
}

// Only the last rank's config is bad: it throws its own invalid_argument, and
// every other rank a runtime_error naming it, instead of waiting for it in the
// constructor's collective calls ([MPI-agree]). The test's TIMEOUT catches a hang.
bool a_bad_config_on_one_rank_fails_every_rank_naming_it() {
  const int last = world_size() - 1;
  mpi::DistConfig config;
  if (world_rank() == last) config.workers = 0;
  try {
    mpi::DistExecutor<Range> ex(config, [](Range, mpi::Context<Range, stealpool::NoScratch>&) {});
  } catch (const std::invalid_argument& e) {
    if (world_rank() != last) return fail(std::string("a good config was refused: ") + e.what());
    return true;
  } catch (const std::runtime_error& e) {
    const std::string want = "checking the configuration failed on rank " + std::to_string(last);
    if (world_rank() == last || std::string_view(e.what()).find(want) == std::string_view::npos)
      return fail(std::string("expected '") + want + "', got: " + e.what());
    return true;
  }
  return fail("the executor was built although rank " + std::to_string(last) + "'s config is bad");
}

// The last rank cannot start its worker threads (its address space is capped
// just above what it uses, so no thread stack fits): run() throws there what
// std::thread threw, and on every other rank a runtime_error naming it; no task
// runs anywhere (the workers wait at a gate until every rank has started, and
// leave without touching a task). Not under a sanitizer: its allocator does not
// survive the cap.
bool workers_that_cannot_start_on_one_rank_stop_every_rank() {
  const int last = world_size() - 1;
  mpi::DistConfig config;
  config.workers = 4;
  std::atomic<long> ran{0};
  mpi::DistExecutor<Range> ex(config, [&ran](Range, mpi::Context<Range, stealpool::NoScratch>&) { ++ran; });
  for (std::uint32_t i = 0; i < 100; ++i) ex.seed(Range{i, i + 1});
  rlimit saved{};
  getrlimit(RLIMIT_AS, &saved);
  bool threw_locally = false;
  std::string message;
  try {
    if (world_rank() == last) {
      rlimit cap = saved;
      cap.rlim_cur = current_address_space() + (1u << 20);  // 1 MiB more: less than one thread stack
      setrlimit(RLIMIT_AS, &cap);
    }
    ex.run();
  } catch (const std::system_error& e) {  // the capped rank: std::thread's error (a runtime_error too)
    threw_locally = true;
    message = e.what();
  } catch (const std::bad_alloc& e) {  // the capped rank, if an allocation failed first
    threw_locally = true;
    message = e.what();
  } catch (const std::runtime_error& e) {  // the others: agree()'s error
    message = e.what();
  }
  setrlimit(RLIMIT_AS, &saved);
  if (ran.load() != 0) return fail(std::to_string(ran.load()) + " tasks ran although the run was given up");
  if (world_rank() == last) {
    if (!threw_locally) return fail("the capped rank did not throw its own error: '" + message + "'");
    return true;
  }
  const std::string want = "starting the workers failed on rank " + std::to_string(last);
  if (message.find(want) == std::string::npos) return fail("expected '" + want + "', got: '" + message + "'");
  return true;
}

// MPI started with MPI_THREAD_SINGLE (main() does that for this scenario only).
bool thread_level_single_is_refused() {
  try {
    mpi::DistExecutor<Range> ex(mpi::DistConfig{}, [](Range, mpi::Context<Range, stealpool::NoScratch>&) {});
  } catch (const std::runtime_error& e) {
    const std::string_view what = e.what();
    if (what.find("gave MPI_THREAD_SINGLE") == std::string_view::npos ||
        what.find("needs at least MPI_THREAD_FUNNELED") == std::string_view::npos)
      return fail(std::string("message does not name the level given and needed: ") + e.what());
    return true;
  }
  return fail("MPI_THREAD_SINGLE was accepted");
}

bool run_scenario(std::string_view name) {
  if (name == "every_task_runs_exactly_once_all_on_rank0_1_worker") return every_task_runs_exactly_once(1, false);
  if (name == "every_task_runs_exactly_once_all_on_rank0_2_workers") return every_task_runs_exactly_once(2, false);
  if (name == "every_task_runs_exactly_once_spread_2_workers") return every_task_runs_exactly_once(2, true);
  if (name == "exception_reaches_the_caller_on_its_rank") return exception_reaches_the_caller_on_its_rank();
  if (name == "uts_small_tree_counts_match_serial") return uts_small_tree_counts_match_serial(2, false);
  if (name == "uts_small_tree_counts_match_serial_with_weighed_steals") return uts_small_tree_counts_match_serial(2, true);
  if (name == "a_weighed_take_sends_the_oldest_half_of_the_work_and_the_rest_runs_here")
    return a_weighed_take_sends_the_oldest_half_of_the_work_and_the_rest_runs_here();
  if (name == "a_weight_that_is_not_a_positive_number_fails_the_rank_naming_it")
    return a_weight_that_is_not_a_positive_number_fails_the_rank_naming_it();
  if (name == "termination_waits_for_in_flight_steals") return termination_waits_for_in_flight_steals();
  if (name == "coded_tasks_run_exactly_once_intact_all_on_rank0") return coded_tasks_run_exactly_once_intact_all_on_rank0();
  if (name == "a_task_that_cannot_be_decoded_fails_its_rank_and_stops_every_rank")
    return a_task_that_cannot_be_decoded_fails_its_rank_and_stops_every_rank();
  if (name == "a_task_that_cannot_be_encoded_fails_the_sending_rank_and_stops_every_rank")
    return a_task_that_cannot_be_encoded_fails_the_sending_rank_and_stops_every_rank();
  if (name == "coded_tasks_left_unrun_are_destroyed") return coded_tasks_left_unrun_are_destroyed();
  if (name == "every_emitted_frame_reaches_rank_zero_once_and_intact")
    return every_emitted_frame_reaches_rank_zero_once_and_intact();
  if (name == "a_data_sink_that_throws_fails_rank_zero_and_stops_every_rank")
    return a_data_sink_that_throws_fails_rank_zero_and_stops_every_rank();
  if (name == "a_rank_that_runs_dry_ends_its_progress_nap") return a_rank_that_runs_dry_ends_its_progress_nap();
  if (name == "a_waiting_message_ends_the_progress_nap_through_a_workers_probe")
    return workers_probe_for_a_waiting_message(true);
  if (name == "with_the_probe_off_no_worker_calls_mpi") return workers_probe_for_a_waiting_message(false);
  if (name == "at_funneled_the_workers_never_probe") return at_funneled_the_workers_never_probe();
  if (name == "a_rank_given_up_with_tasks_queued_drops_and_frees_them")
    return a_rank_given_up_with_tasks_queued_drops_and_frees_them();
  if (name == "a_batch_that_fails_to_decode_midway_queues_nothing_and_frees_what_it_decoded")
    return a_batch_that_fails_to_decode_midway_queues_nothing_and_frees_what_it_decoded();
  if (name == "a_worker_keeps_a_third_of_its_spawned_tasks_where_a_steal_finds_them")
    return a_worker_keeps_a_third_of_its_spawned_tasks_where_a_steal_finds_them();
  if (name == "a_rank_given_up_drops_and_frees_the_tasks_its_workers_kept_private")
    return a_rank_given_up_drops_and_frees_the_tasks_its_workers_kept_private();
  if (name == "bad_config_is_refused_with_its_value") return bad_config_is_refused_with_its_value();
  if (name == "thread_level_single_is_refused") return thread_level_single_is_refused();
  if (name == "a_trace_has_a_process_per_rank_and_counts_every_task")
    return a_trace_has_a_process_per_rank_and_counts_every_task();
  if (name == "a_bad_config_on_one_rank_fails_every_rank_naming_it")
    return a_bad_config_on_one_rank_fails_every_rank_naming_it();
  if (name == "workers_that_cannot_start_on_one_rank_stop_every_rank")
    return workers_that_cannot_start_on_one_rank_stop_every_rank();
  return fail("unknown scenario '" + std::string(name) + "'");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: dist_test <scenario>\n");
    return 2;
  }
  const std::string_view scenario = argv[1];
  int provided = 0;
  // SERIALIZED, as stealpool::mpi::Environment asks: the workers probe
  // ([MPI-worker-probe]) in every scenario but the two below.
  const int wanted = scenario == "thread_level_single_is_refused"        ? MPI_THREAD_SINGLE
                     : scenario == "at_funneled_the_workers_never_probe" ? MPI_THREAD_FUNNELED
                                                                          : MPI_THREAD_SERIALIZED;
  MPI_Init_thread(&argc, &argv, wanted, &provided);
  int ok = 0;
  try {
    ok = run_scenario(scenario) ? 1 : 0;
  } catch (const std::exception& e) {
    ok = fail(std::string("unexpected exception: ") + e.what()) ? 1 : 0;
  }
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (world_rank() == 0) std::printf("%s: %s on %d ranks\n", argv[1], all_ok ? "passed" : "FAILED", world_size());
  MPI_Finalize();
  return all_ok ? 0 : 1;
}

// stealpool/mpi/dist_executor.hpp: DistExecutor<T, S>, a work-stealing executor
// over MPI: one process per node (rank), a pool of worker threads in each, and
// work stolen between ranks in batches when a rank runs dry.
//
//   stealpool::mpi::Environment env(argc, argv);            // MPI_Init_thread(SERIALIZED)
//   stealpool::mpi::DistExecutor<Node, Counts> ex(config,
//       [](std::size_t) { return Counts{}; },               // scratch, per worker
//       [](Node n, stealpool::mpi::Context<Node, Counts>& ctx) {
//         ++ctx.scratch().nodes;
//         for (...) ctx.spawn(child);                        // stealable by any rank
//       });
//   if (env.rank() == 0) ex.seed(root);                      // or seed on every rank
//   ex.run();                                                // collective: returns on global termination
//   Counts total = ex.reduce(my_counts, add);                // collective: every rank gets it
//
// Task type T (codec.hpp): either trivially copyable and at most 64 bytes, which
// travels between ranks as its bytes and sits by value in the deques (no
// allocation); or any move-constructible type with a stealpool::mpi::Codec<T>
// specialisation (encode appends a task's bytes, decode rebuilds it from exactly
// those bytes and throws on malformed input), which is boxed inside a rank (one
// heap allocation per task; a task still queued when the run is cancelled or the
// executor destroyed is destroyed) and travels as a 4-byte length and its
// encoding. Any other T fails to compile with a static_assert saying so. Ranks
// must share the architecture and the binary. Scratch S: per worker, built on the
// worker thread by scratch_init(worker_id).
//
// Who may call what: every member except rank(), size(), scratch() and metrics()
// is collective or MPI-calling and belongs to one thread, the one that called
// MPI_Init_thread when MPI gave MPI_THREAD_FUNNELED (any one thread at a time
// above that). The constructor duplicates config.comm (collective); run() once.
// With MPI_THREAD_SERIALIZED or above, the rank's workers also call MPI during
// run() (MPI_Iprobe, under a lock the progress thread holds for its own calls:
// [MPI-worker-probe]); no other thread may call MPI while run() runs.
//
// Semantics of run(): each rank runs its tasks on its workers; a rank that runs
// dry registers on its lifelines (after DistConfig::random_steals random
// victims, 0 by default) and sleeps until one pushes it about half of its
// queued tasks (README.md); one that runs low (DistConfig::refill_ahead queued
// tasks a worker) registers before it runs dry. run() returns on every rank once no task is queued or running
// anywhere and no message is in flight (Dijkstra-Safra termination), so every
// task seeded or spawned has run exactly once. If a task throws, the run is
// cancelled on every rank (remaining tasks are dropped, counted in
// RankMetrics::tasks_dropped); run() then rethrows the exception on the rank where
// it was thrown and throws RemoteTaskFailure on the others. A Codec<T> whose
// encode or decode throws counts as such a task: the batch being sent or received
// is dropped, and its exception is the rank's.
//
// Throws: std::runtime_error when MPI gives too low a thread level (naming it and
// the level needed); std::invalid_argument for a bad config (naming the field and
// value); std::logic_error for a second run() or a seed() after it. The
// constructor and run() fail on every rank or on none ([MPI-agree]): a rank whose
// config is bad, or whose workers cannot start, throws its own exception and the
// others a std::runtime_error naming it, instead of waiting for it forever.
//
// Costs: spawn is a vector push while the worker's deque holds 16 tasks or more
// (the task stays private until the deque runs low: [MPI-private-tail]), else a
// deque push and a relaxed load (a futex wake when a sibling sleeps); plus a heap
// allocation for a boxed T; a steal between ranks is a
// request and a reply message (8 bytes of task count, then the tasks: sizeof(T)
// each, or 4 bytes plus the encoding, an encode on the sending and a decode and
// an allocation on the receiving progress thread); a rank that runs dry polls
// MPI for 50 us, then probes every 50 us, and after 2 ms about once a
// millisecond; a busy rank's workers read the clock every 64 tasks and
// probe at most every DistConfig::worker_probe_us (100 us) on the rank.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stealpool/mpi/codec.hpp"
#include "stealpool/mpi/context.hpp"
#include "stealpool/mpi/detail/agree.hpp"
#include "stealpool/mpi/detail/progress.hpp"
#include "stealpool/mpi/detail/rank_workers.hpp"
#include "stealpool/mpi/detail/worker_probe.hpp"
#include "stealpool/mpi/dist_config.hpp"
#include "stealpool/mpi/environment.hpp"
#include "stealpool/mpi/remote_failure.hpp"
#include "stealpool/worker_ctx.hpp"  // NoScratch

namespace stealpool::mpi {

template <class T, class S = NoScratch>
class DistExecutor {
  static_assert(DistTask<T>, "stealpool::mpi::DistExecutor<T>: T must be trivially copyable and at most 64 bytes, or "
                             "specialise stealpool::mpi::Codec<T> with static void encode(const T&, "
                             "std::vector<std::byte>&) and static T decode(std::span<const std::byte>) (codec.hpp)");

 public:
  // The task is handed over as an rvalue: a runner may take it by value (it
  // is moved in), by const& or by && (no copy at all).
  using Runner = std::function<void(T&&, Context<T, S>&)>;
  using ScratchInit = std::function<S(std::size_t)>;

  DistExecutor(const DistConfig& config, ScratchInit scratch_init, Runner runner) : config_(config) {
    // The same library on every rank: refused everywhere or nowhere, and before
    // any collective call (agree() itself needs the thread level).
    require_thread_level("stealpool::mpi::DistExecutor");
    detail::agree(config_.comm, "checking the configuration", [&] {  // [MPI-agree]
      config_.validate();
      if (!scratch_init) throw std::invalid_argument("stealpool::mpi::DistExecutor: scratch_init is empty");
      if (!runner) throw std::invalid_argument("stealpool::mpi::DistExecutor: runner is empty");
    });
    MPI_Comm_dup(config_.comm, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    try {
      detail::agree(comm_, "building the rank's pool", [&] {  // [MPI-agree]
        probe_ = std::make_unique<detail::WorkerProbe>(comm_, worker_probe_interval(config_, size_));
        pool_ = std::make_unique<detail::RankWorkers<T, S>>(config_, rank_, std::move(scratch_init), std::move(runner),
                                                            probe_.get());
      });
    } catch (...) {
      MPI_Comm_free(&comm_);  // no destructor runs for a constructor that throws
      throw;
    }
  }
  DistExecutor(const DistConfig& config, Runner runner)
    requires std::is_same_v<S, NoScratch>
      : DistExecutor(config, [](std::size_t) { return NoScratch{}; }, std::move(runner)) {}

  ~DistExecutor() {
    pool_.reset();
    probe_.reset();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
  }
  DistExecutor(const DistExecutor&) = delete;
  DistExecutor& operator=(const DistExecutor&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  std::size_t workers() const noexcept { return config_.workers; }

  // Tasks this rank starts with; before run(). Any rank may seed any number,
  // none included.
  void seed(const T& task) { seed(std::span<const T>(&task, 1)); }
  void seed(std::span<const T> tasks) {
    if (ran_) throw std::logic_error("stealpool::mpi::DistExecutor::seed: after run()");
    pool_->seed(tasks.data(), tasks.size());
  }

  // Rank 0, before run(): receives every frame a task emitted (Context::emit), on
  // the thread in run(), one at a time, with the emitting rank: rank 0's own
  // frames too. That thread also answers rank 0's steal requests: a slow sink
  // (a blocked stdout) slows them. A rank's frames come in its order; ranks interleave. Every frame
  // has arrived when run() returns. Without a sink, frames are dropped. A sink
  // that throws fails rank 0 as a task would: the run is cancelled everywhere,
  // run() rethrows the exception on rank 0 and throws RemoteTaskFailure on the
  // others.
  void on_data(std::function<void(int rank, std::span<const std::byte> frame)> sink) {
    if (ran_) throw std::logic_error("stealpool::mpi::DistExecutor::on_data: after run()");
    pool_->set_data_sink(std::move(sink));
  }

  // Before run(): each task's expected work, in any unit (finite and > 0), so
  // that a steal between ranks moves about half of the victim's spare work
  // rather than half of its spare tasks ([MPI-take-by-weight], README.md). It
  // pays where tasks differ by orders of magnitude and the oldest are the
  // largest, as in a depth-first tree search: without weights a steal of half
  // the tasks there takes nearly all of the work, which then moves whole
  // instead of being shared. Called by the thread in run(), on the tasks a
  // steal took. A weight that throws, or is not finite and > 0, fails this
  // rank as a task's exception would. Ranks may differ; none need weigh.
  void weigh_tasks(std::function<double(const T&)> weight) {
    if (ran_) throw std::logic_error("stealpool::mpi::DistExecutor::weigh_tasks: after run()");
    pool_->set_weigher(std::move(weight));
  }

  // Collective: see the header comment.
  void run() {
    if (ran_) throw std::logic_error("stealpool::mpi::DistExecutor::run: called twice");
    ran_ = true;
    require_thread_level("stealpool::mpi::DistExecutor::run");
    const auto t0 = std::chrono::steady_clock::now();
    // The workers start behind a gate: a rank that cannot start them all makes
    // every rank give up before any task runs ([MPI-agree]).
    std::optional<detail::Progress> progress;
    try {
      detail::agree(comm_, "starting the workers", [&] {
        progress.emplace(comm_, config_, *pool_, *probe_);
        pool_->start();
      });
    } catch (...) {
      pool_->abandon();  // the workers leave at the gate: no task runs
      throw;
    }
    pool_->open_gate();
    progress->run();
    pool_->stop_and_join();
    metrics_ = progress->metrics();
    pool_->add_metrics(metrics_);
    metrics_.run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (std::exception_ptr e = pool_->first_error()) std::rethrow_exception(e);
    if (progress->remote_failure()) throw RemoteTaskFailure(progress->failed_rank(), progress->failure_text());
  }

  // Worker `worker`'s scratch after run(); nullptr if its scratch_init threw.
  S* scratch(std::size_t worker) { return pool_->scratch(worker); }

  // What this rank did in run().
  const RankMetrics& metrics() const noexcept { return metrics_; }

  // Collective: every rank's `local`, combined in rank order
  // (op(op(r0, r1), r2)...), returned on every rank. R: trivially copyable.
  template <class R, class Op>
  R reduce(const R& local, Op op) const {
    static_assert(std::is_trivially_copyable_v<R>, "reduce ships values between ranks as bytes");
    std::vector<R> all(static_cast<std::size_t>(size_));
    MPI_Allgather(&local, static_cast<int>(sizeof(R)), MPI_BYTE, all.data(), static_cast<int>(sizeof(R)), MPI_BYTE,
                  comm_);
    R acc = all[0];
    for (std::size_t i = 1; i < all.size(); ++i) acc = op(acc, all[i]);
    return acc;
  }

  // Collective: every rank's metrics on rank 0 (in rank order); empty elsewhere.
  std::vector<RankMetrics> gather_metrics() const {
    std::vector<RankMetrics> all(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    MPI_Gather(&metrics_, static_cast<int>(sizeof(RankMetrics)), MPI_BYTE, all.data(),
               static_cast<int>(sizeof(RankMetrics)), MPI_BYTE, 0, comm_);
    return all;
  }

 private:
  // [MPI-worker-probe]'s interval. 0 (no probe) below MPI_THREAD_SERIALIZED:
  // the workers may call MPI (one thread at a time, under the probe's lock)
  // only at SERIALIZED or above; and 0 on a lone rank, which no message
  // reaches (it ends without one; the probe there cost 0.8% of T3 at 1 rank x
  // 1 worker).
  static std::chrono::microseconds worker_probe_interval(const DistConfig& config, int ranks) {
    if (ranks == 1) return std::chrono::microseconds(0);
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_SERIALIZED) return std::chrono::microseconds(0);
    return std::chrono::microseconds(config.worker_probe_us);
  }

  DistConfig config_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  bool ran_ = false;
  RankMetrics metrics_;
  std::unique_ptr<detail::WorkerProbe> probe_;  // before pool_, whose workers use it
  std::unique_ptr<detail::RankWorkers<T, S>> pool_;
};

}  // namespace stealpool::mpi

// stealpool/mpi/detail/rank_workers.hpp: RankWorkers<T, S>, the workers of one
// rank: a stealpool::Executor, and what the MPI protocol needs from it (LocalPool:
// dry, the dry bell, take half, give, cancel, failure, the data for rank 0). The
// engine's own protocols do the work inside the rank: its deques, injector and
// sleep protocol, [LEDGER-bound] for "dry", [TAKE-half] for the steal between
// ranks, ExecutorConfig::on_quiescent for the bell (engine/core/README.md); this
// file only maps them, as ../README.md, "Inside a rank", says.
//
// Threads: the Executor's workers run tasks through run_task(); the progress
// thread (the caller of DistExecutor::run) calls the LocalPool members, start,
// open_gate, abandon and stop_and_join.
//
// Tasks sit in the executor as RankItem<T>: T by value when it is trivially
// copyable and at most 64 bytes (the executor keeps such items inline), else a
// pointer to a heap T (one allocation per task; every box is freed when its task
// runs, is dropped, is sent to another rank, or is still queued at the end).
// Between ranks they travel as TaskWire<T> writes them (codec.hpp).
#pragma once

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "stealpool/engine/task_box.hpp"
#include "stealpool/executor.hpp"
#include "stealpool/mpi/codec.hpp"
#include "stealpool/mpi/context.hpp"
#include "stealpool/mpi/detail/frames.hpp"
#include "stealpool/mpi/detail/local_pool.hpp"
#include "stealpool/mpi/detail/take_by_weight.hpp"
#include "stealpool/mpi/detail/worker_probe.hpp"
#include "stealpool/mpi/dist_config.hpp"
#include "stealpool/platform/parker.hpp"

namespace stealpool::detail {
// RankItem is already the 64-byte-or-pointer form: the executor keeps it inline.
template <class T>
inline constexpr std::size_t kExecutorInlineBytes<mpi::detail::RankItem<T>> = kMaxInlineItemBytes;
}  // namespace stealpool::detail

namespace stealpool::mpi::detail {

template <class T, class S>
class RankWorkers final : public LocalPool {
  static_assert(DistTask<T>, "stealpool::mpi task types: trivially copyable and at most 64 bytes, or give them a "
                             "stealpool::mpi::Codec<T> specialisation (stealpool/mpi/codec.hpp)");
  using Item = RankItem<T>;
  using Box = typename Item::Box;
  using Wire = TaskWire<T>;
  using Slot = RankSlot<T, S>;
  using Engine = Executor<Item, Slot*>;

 public:
  using Runner = std::function<void(T&&, Context<T, S>&)>;
  using ScratchInit = std::function<S(std::size_t)>;
  using Weigher = std::function<double(const T&)>;

  // `probe`: the executor's [MPI-worker-probe], or nullptr (the workers never
  // call MPI); must outlive the pool.
  RankWorkers(const DistConfig& config, int rank, ScratchInit init, Runner runner, WorkerProbe* probe = nullptr)
      : config_(config), rank_(rank), init_(std::move(init)), runner_(std::move(runner)),
        probe_(probe != nullptr && probe->enabled() ? probe : nullptr) {
    for (std::size_t i = 0; i < config_.workers; ++i) slots_.push_back(std::make_unique<Slot>());
  }
  ~RankWorkers() override {
    abandon();
    discard_all(seeds_);
  }
  RankWorkers(const RankWorkers&) = delete;
  RankWorkers& operator=(const RankWorkers&) = delete;

  // Before start(): tasks this rank begins with.
  void seed(const T* tasks, std::size_t n) {
    const std::size_t at = seeds_.size();
    try {
      for (std::size_t i = 0; i < n; ++i) seeds_.push_back(Item{Box::box(T(tasks[i]))});
    } catch (...) {
      for (std::size_t i = at; i < seeds_.size(); ++i) Box::discard(seeds_[i].stored);
      seeds_.resize(at);
      throw;
    }
  }

  // Starts the workers (each builds its scratch on its thread); no task reaches
  // them before open_gate(). Throws what the Executor's constructor throws
  // (std::system_error when a thread cannot start; it has then stopped the
  // others).
  void start() {
    ExecutorConfig ec;
    ec.workers = config_.workers;
    ec.seed = config_.seed ^ (static_cast<std::uint64_t>(rank_) * 0x9E3779B97F4A7C15ull);
    ec.pin_threads = false;
    // A worker settles its units, so the rank can look dry, only once it parks
    // ([LEDGER-bound]): 64 idle rounds, as a rank's workers searched before.
    ec.spin_iters = 64;
    ec.trace = config_.trace;
    ec.lone_worker_batches = false;  // a 1-worker rank's received tasks stay stealable by other ranks
    // [MPI-dry-bell]: the settle that leaves the rank dry ends the progress nap.
    ec.on_quiescent = [this]() noexcept { progress_bell_.unpark(); };
    engine_.emplace(
        ec,
        [this](std::size_t id) -> Slot* {
          Slot& slot = *slots_[id];
          try {
            slot.scratch.emplace(init_(id));
          } catch (...) {
            record_failure(std::current_exception());  // the run is cancelled; this worker only drops tasks
          }
          return &slot;
        },
        [this](Item item, WorkerCtx<Item, Slot*>& w) { run_task(item, w); });
  }

  // [MPI-gate]: the seeds go to the workers. Before it the rank holds no task,
  // so run() can still be given up with none run (abandon()).
  // Does not throw: an allocation that fails here fails the rank as a task would
  // ([MPI-failed-before-dry]), so every rank stops cleanly.
  void open_gate() noexcept {
    if (seeds_.empty()) return;
    try {
      if (!engine_->spawn_external_batch(std::span<const Item>(seeds_))) discard_all(seeds_);  // (the gate is open)
    } catch (...) {
      // The injector may have queued a prefix of the seeds (which the cancelled
      // workers drop and free); which one is unknown, so the rest are not freed.
      record_failure(std::current_exception());
    }
    seeds_.clear();
  }

  // The run is given up ([MPI-agree]) or ended by an exception: the workers drop
  // every task still queued (each box freed as it is dropped), then stop. Given
  // up before open_gate(), no task has run; the seeds are destroyed with the
  // workers.
  void abandon() noexcept {
    if (!engine_) return;
    cancelled_.store(true, std::memory_order::relaxed);  // [MPI-cancel]: run_task drops the rest
    (void)engine_->join(std::nothrow);
    engine_.reset();
  }

  // After global termination: no task is left anywhere, so this returns at once.
  void stop_and_join() noexcept {
    if (!engine_) return;
    const MetricsSnapshot m = engine_->join(std::nothrow);
    local_steals_ = m.tasks_from_steal;
    parks_ = m.parks;
    dropped_at_end_ = m.tasks_dropped;
    engine_.reset();
  }

  // The workers' figures, summed. After stop_and_join().
  void add_metrics(RankMetrics& m) const {
    for (const auto& s : slots_) {
      m.tasks_run += s->tasks_run;
      m.tasks_dropped += s->tasks_dropped;
      m.worker_probe_rings += s->probe_rings;
    }
    m.tasks_dropped += dropped_in_transit_ + dropped_at_end_;
    m.local_steals += local_steals_;
    m.worker_parks += parks_;
  }
  std::exception_ptr first_error() const {
    std::lock_guard<std::mutex> lock(error_mu_);
    return first_error_;
  }
  S* scratch(std::size_t worker) {
    auto& s = slots_.at(worker)->scratch;
    return s ? &*s : nullptr;
  }

  // --- LocalPool: the progress thread's view --------------------------------------
  bool dry() const noexcept override {
    // [MPI-outstanding]: the executor's count is 0, its gate open: every task
    // finished and no worker holds a unit ([LEDGER-bound]); only give() adds
    // work to it again. The acquire load (in_flight_upper_bound) continues the
    // workers' acq_rel settles ([STATE-settle]), so a failure recorded or a frame
    // emitted before a worker settled is seen ([MPI-failed-before-dry],
    // [MPI-data-before-passive]).
    return !engine_ || engine_->shared_state()->state.in_flight_upper_bound() == 0;
  }

  void nap(std::chrono::microseconds most) noexcept override { (void)progress_bell_.park(most); }

  // [MPI-refill-ahead]: the deques and the injector hold at most refill_ahead
  // tasks a worker (a worker's private tail is empty then: [MPI-private-tail]
  // moves it to the deque while the deque holds fewer than kVisibleTasks).
  bool running_low() const noexcept override {
    if (!engine_ || config_.refill_ahead == 0) return false;
    return engine_->queued_hint() <= config_.refill_ahead * config_.workers;
  }

  std::size_t take_half(std::size_t max, std::vector<std::byte>& out) override {
    export_.clear();
    // [TAKE-half]: the tasks leave the executor, and their units its count, here;
    // the caller sends them at once as a counted message, so Safra's count covers
    // them from here on. This thread does both, so it reads dry() only after.
    std::size_t taken = engine_->take_half(max, export_);
    if (weigher_ && taken > 1) taken = keep_half_the_work();  // [MPI-take-by-weight]
    const std::size_t at = out.size();
    try {
      for (const Item& item : export_) Wire::append(out, Item::deref(item.stored));
    } catch (...) {
      out.resize(at);
      fail_in_transit(std::current_exception(), taken);
      discard_all(export_);
      return 0;
    }
    discard_all(export_);  // sent as bytes
    return taken;
  }

  void give(std::span<const std::byte> batch, std::size_t n) override {
    if (n == 0) return;
    std::vector<Item> boxed;
    try {
      boxed.reserve(n);
      Wire::for_each(batch, n, [&boxed](T&& task) { boxed.push_back(Item{Box::box(std::move(task))}); });
      if (!engine_) {  // before start(): they wait with the seeds
        seeds_.insert(seeds_.end(), boxed.begin(), boxed.end());
        return;
      }
      // The gate is open until stop_and_join(), after the last message.
      if (!engine_->spawn_external_batch(std::span<const Item>(boxed)))
        throw std::logic_error("stealpool::mpi: a batch arrived after the rank's workers stopped");
    } catch (...) {
      // Not one task of the batch is queued: the rank fails as if a task had
      // thrown, before the progress thread next reads failed() ([MPI-failed-before-dry]).
      discard_all(boxed);
      fail_in_transit(std::current_exception(), n);
    }
  }

  bool take_data(std::vector<std::byte>& out) override {
    out.clear();
    std::lock_guard<std::mutex> lock(data_mu_);  // [MPI-data-before-passive] the emitters' frames
    out.swap(data_);
    return !out.empty();
  }
  void deliver(int source, std::span<const std::byte> frames) noexcept override {
    if (!data_sink_) return;
    for_each_frame(frames, [&](std::span<const std::byte> frame) {
      try {
        data_sink_(source, frame);
      } catch (...) {
        record_failure(std::current_exception());  // the run is cancelled everywhere, as for a task
      }
    });
  }

  // Before start(), rank 0: where deliver() hands each frame (the progress thread calls it).
  void set_data_sink(std::function<void(int, std::span<const std::byte>)> sink) { data_sink_ = std::move(sink); }
  // Before start(): the tasks' expected work, for take_half ([MPI-take-by-weight]).
  void set_weigher(Weigher weigher) { weigher_ = std::move(weigher); }

  void cancel() noexcept override {
    cancelled_.store(true, std::memory_order::relaxed);  // [MPI-cancel] a hint to drop tasks; counts stay exact either way
  }
  // Whether cancel() or abandon() has begun; for tests that must act only once
  // a cancel is visible. Relaxed: [MPI-cancel]'s flag is a hint.
  bool cancelling() const noexcept { return cancelled_.load(std::memory_order::relaxed); }
  bool failed() const noexcept override {
    return failed_.load(std::memory_order::acquire);  // [MPI-failed-before-dry]
  }
  std::string failure_text() const override {
    std::lock_guard<std::mutex> lock(error_mu_);
    return failure_text_;
  }

  // --- the workers' side ------------------------------------------------------------
  // Context::emit: one frame for rank 0's data sink. The caller is running a task,
  // so its worker holds the task's unit and the rank cannot look dry until it has
  // settled, after the frame is queued ([MPI-data-before-passive]).
  void emit(std::span<const std::byte> bytes) {
    if (bytes.size() > kMaxFrameBytes)
      throw std::length_error("stealpool::mpi::Context::emit: " + std::to_string(bytes.size()) +
                              " bytes in one frame, more than " + std::to_string(kMaxFrameBytes));
    std::lock_guard<std::mutex> lock(data_mu_);
    append_frame(data_, bytes);
  }

  // Context::spawn: onto the running worker's deque (WorkerCtx::spawn_local)
  // while it holds fewer than kVisibleTasks, else onto the worker's private
  // tail ([MPI-private-tail]); while the tail holds a task, every spawn goes
  // there too, so the two keep LIFO order between them (the deque older).
  static void push(WorkerCtx<Item, Slot*>& w, T&& task) {
    Slot& slot = *w.scratch();
    if (slot.tail.empty() && w.queued_hint() < kVisibleTasks)
      Box::box_and_push(std::move(task), [&w](typename Box::Stored s) { w.spawn_local(Item{s}); });
    else
      Box::box_and_push(std::move(task), [&slot](typename Box::Stored s) { slot.tail.push(Item{s}); });
  }

 private:
  static constexpr std::size_t kMaxFrameBytes = std::size_t{1} << 30;  // one frame, one MPI message at most
  // [MPI-private-tail]: how many tasks a worker's deque holds before its spawns
  // stay private.
  static constexpr std::size_t kVisibleTasks = 16;
  // [MPI-worker-probe]: tasks between two reads of the clock (about 30 ns on
  // the project VM; a probe, two MPI_Iprobes, about 150 ns) to see whether a
  // probe is due.
  static constexpr std::uint32_t kTasksPerProbeCheck = 64;

  // The executor's runner: runs the task, then, still inside it, every task it
  // and they kept private ([MPI-private-tail]), newest first, handing the oldest
  // to the deque whenever the deque runs low. So the tail is empty again before
  // the worker settles the task's unit.
  void run_task(Item item, WorkerCtx<Item, Slot*>& w) noexcept {
    Slot& slot = *w.scratch();
    run_one(item, w, slot);
    while (!slot.tail.empty()) {
      release_while_low(w, slot);
      if (slot.tail.empty()) break;
      // Traced as a task of the worker's own deque: one more in the run slice.
      if (config_.trace != nullptr) [[unlikely]]
        config_.trace->on_task(w.worker_id(), TaskSource::local, w.worker_id());
      run_one(slot.tail.pop_newest(), w, slot);
    }
  }

  void run_one(Item item, WorkerCtx<Item, Slot*>& w, Slot& slot) noexcept {
    // [MPI-cancel] relaxed: a late view only runs one more task of a cancelled run.
    if (!slot.scratch || cancelled_.load(std::memory_order::relaxed)) {
      Box::discard(item.stored);
      ++slot.tasks_dropped;
      return;
    }
    ++slot.tasks_run;
    if (probe_ != nullptr && --slot.tasks_to_probe == 0) probe_between_tasks(slot);
    Context<T, S> ctx(*this, w, rank_, *slot.scratch);
    try {
      T task = Box::unbox(item.stored);
      runner_(std::move(task), ctx);
    } catch (...) {
      // [MPI-failed-before-dry]: recorded before this worker settles the task's unit.
      record_failure(std::current_exception());
    }
  }

  // [MPI-worker-probe]: every kTasksPerProbeCheck tasks a worker asks the probe,
  // which calls MPI if the rank's interval has passed; a message waiting rings
  // the progress thread, whose nap then ends as for [MPI-dry-bell].
  void probe_between_tasks(Slot& slot) noexcept {
    slot.tasks_to_probe = kTasksPerProbeCheck;
    if (!probe_->poll()) return;
    ++slot.probe_rings;
    progress_bell_.unpark();
  }

  // [MPI-private-tail]: the deque keeps at least kVisibleTasks and at least half
  // as many as the tail, so siblings and other ranks ([TAKE-half]) always find
  // spare work in proportion to the worker's. The oldest private tasks go: the
  // largest subtrees of a tree search. A deque that cannot grow (bad_alloc)
  // leaves the task private, where it still runs.
  static void release_while_low(WorkerCtx<Item, Slot*>& w, Slot& slot) noexcept {
    for (std::size_t queued = w.queued_hint(); !slot.tail.empty(); ++queued) {
      if (queued >= kVisibleTasks && queued * 2 >= slot.tail.size()) return;
      try {
        w.spawn_local(slot.tail.oldest());
      } catch (...) {
        return;
      }
      slot.tail.drop_oldest();
    }
  }

  // [MPI-take-by-weight]: of the tasks a take put in export_ (oldest first),
  // keeps the oldest tasks_to_send() there and hands the others back to this
  // rank's workers through the injector, which the next take reads first, so
  // they keep their place in age. They never left the rank, so Safra's count
  // does not see them; their units, settled by the take, are counted again by
  // spawn_external before this thread next reads dry(). Returns how many stay
  // in export_. A weight that throws, or is not finite and > 0, fails the rank
  // as a task's exception would (the run is cancelled) and the whole take is
  // sent; a task that cannot be handed back (bad_alloc) is sent with the kept.
  std::size_t keep_half_the_work() {
    const std::size_t n = export_.size();
    try {
      weights_.clear();
      for (const Item& item : export_) {
        const double w = weigher_(Item::deref(item.stored));
        if (!std::isfinite(w) || !(w > 0))
          throw std::invalid_argument("stealpool::mpi: a task's weight must be finite and greater than 0 (got " +
                                      std::to_string(w) + ")");
        weights_.push_back(w);
      }
    } catch (...) {
      record_failure(std::current_exception());
      return n;
    }
    std::size_t kept = tasks_to_send(weights_);
    for (std::size_t i = kept; i < n; ++i) {
      bool back = false;
      try {
        back = engine_->spawn_external(export_[i]);
      } catch (...) {
        // not queued: it goes with the batch
      }
      if (!back) export_[kept++] = export_[i];
    }
    export_.resize(kept);
    return kept;
  }

  static void discard_all(std::vector<Item>& items) noexcept {
    for (const Item& i : items) Box::discard(i.stored);
    items.clear();
  }

  // The progress thread could not encode or decode `n` tasks: they are dropped
  // (counted in tasks_dropped) and the rank fails as if a task had thrown, so
  // the run is cancelled everywhere and run() rethrows `e` here.
  void fail_in_transit(std::exception_ptr e, std::size_t n) noexcept {
    dropped_in_transit_ += n;
    record_failure(std::move(e));
  }

  void record_failure(std::exception_ptr e) noexcept {
    {
      std::lock_guard<std::mutex> lock(error_mu_);
      if (!first_error_) {
        first_error_ = e;
        try {
          std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          failure_text_ = ex.what();
        } catch (...) {
          failure_text_ = "an exception not derived from std::exception";
        }
      }
    }
    cancelled_.store(true, std::memory_order::relaxed);   // [MPI-cancel]
    failed_.store(true, std::memory_order::release);      // [MPI-failed-before-dry] before the worker settles
    progress_bell_.unpark();  // the cancel goes out at the next round, not after a nap
  }

  // Immutable after construction.
  const DistConfig config_;
  const int rank_;
  const ScratchInit init_;
  const Runner runner_;
  WorkerProbe* const probe_;  // nullptr: the workers never call MPI

  std::vector<std::unique_ptr<Slot>> slots_;  // [i]: worker i's scratch and counts, read after the join
  std::optional<Engine> engine_;              // from start() to stop_and_join()
  stealpool::detail::Parker progress_bell_;   // [MPI-dry-bell]: parked on by the progress thread only
  std::atomic<bool> cancelled_{false};        // [MPI-cancel]
  std::atomic<bool> failed_{false};           // [MPI-failed-before-dry]
  std::mutex data_mu_;
  std::vector<std::byte> data_;  // guarded by data_mu_: emitted frames not yet taken
  std::function<void(int, std::span<const std::byte>)> data_sink_;  // rank 0's; set before start()
  mutable std::mutex error_mu_;
  std::exception_ptr first_error_;  // guarded by error_mu_
  std::string failure_text_;        // guarded by error_mu_

  // The progress thread's.
  std::vector<Item> seeds_;  // until open_gate()
  std::vector<Item> export_;  // tasks take_half took
  Weigher weigher_;           // [MPI-take-by-weight]; empty: a take sends half of the tasks
  std::vector<double> weights_;  // of export_'s tasks
  std::uint64_t dropped_in_transit_ = 0;
  std::uint64_t dropped_at_end_ = 0;
  std::uint64_t local_steals_ = 0;
  std::uint64_t parks_ = 0;
};

}  // namespace stealpool::mpi::detail

namespace stealpool::mpi {
template <class T, class S>
void Context<T, S>::spawn(const T& task) {
  detail::RankWorkers<T, S>::push(worker_, T(task));
}
template <class T, class S>
void Context<T, S>::spawn(T&& task) {
  detail::RankWorkers<T, S>::push(worker_, std::move(task));
}
template <class T, class S>
void Context<T, S>::emit(std::span<const std::byte> bytes) {
  pool_.emit(bytes);
}
}  // namespace stealpool::mpi

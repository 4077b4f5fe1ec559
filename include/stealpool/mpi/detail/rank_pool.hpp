// stealpool/mpi/detail/rank_pool.hpp: RankPool<T, S>, the worker pool of one
// rank: a Chase-Lev deque per worker, an inbound queue for batches that arrive
// from other ranks, and the count that tells the progress thread the rank is dry.
// The protocol and why its orderings suffice: ../README.md, "Inside a rank";
// tags such as [MPI-outstanding] name both ends of each synchronising pair there.
//
// Threads: worker i runs worker_main(i) and owns deques_[i]'s bottom and
// locals_[i]; the progress thread (the caller of DistExecutor::run) calls the
// LocalPool members and start/stop_and_join; thieves (workers and the progress
// thread) steal from any deque's top.
//
// Tasks are stored as TaskBox<T, 64>::Stored: by value when T is trivially
// copyable and at most 64 bytes, else as a pointer to a heap T (one allocation
// per task; every box is freed when its task runs, is dropped, is sent to another
// rank, or is still queued when the pool is destroyed). Between ranks they travel
// as TaskWire<T> writes them (codec.hpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "stealpool/platform/cache_line.hpp"
#include "stealpool/engine/sink_trace.hpp"
#include "stealpool/platform/parker.hpp"
#include "stealpool/engine/task_box.hpp"
#include "stealpool/mpi/codec.hpp"
#include "stealpool/mpi/context.hpp"
#include "stealpool/mpi/detail/frames.hpp"
#include "stealpool/mpi/detail/local_pool.hpp"
#include "stealpool/mpi/dist_config.hpp"
#include "stealpool/queue/chase_lev_deque.hpp"
#include "stealpool/rng.hpp"

namespace stealpool::mpi::detail {

template <class T, class S>
class RankPool final : public LocalPool {
  static_assert(DistTask<T>, "stealpool::mpi task types: trivially copyable and at most 64 bytes, or give them a "
                             "stealpool::mpi::Codec<T> specialisation (stealpool/mpi/codec.hpp)");
  using Box = stealpool::detail::TaskBox<T, stealpool::detail::kMaxInlineItemBytes>;
  using Stored = typename Box::Stored;
  using Wire = TaskWire<T>;

 public:
  using Runner = std::function<void(T, Context<T, S>&)>;
  using ScratchInit = std::function<S(std::size_t)>;

  RankPool(const DistConfig& config, int rank, ScratchInit init, Runner runner)
      : config_(config), rank_(rank), init_(std::move(init)), runner_(std::move(runner)) {
    for (std::size_t i = 0; i < config_.workers; ++i) {
      deques_.push_back(std::make_unique<ChaseLevDeque<Stored>>());
      locals_.push_back(std::make_unique<WorkerLocal>(derive_worker_seed(config_.seed ^ static_cast<std::uint64_t>(rank), i)));
    }
  }
  ~RankPool() override {
    stop_and_join();
    // Boxes of tasks still queued (a run given up before it began, or no run):
    // the workers are joined, so this thread is every deque's owner now.
    if constexpr (!Box::kInline) {
      for (auto& d : deques_)
        while (std::optional<Stored> s = d->pop()) Box::discard(*s);
      for (Stored s : inbound_) Box::discard(s);
    }
  }
  RankPool(const RankPool&) = delete;
  RankPool& operator=(const RankPool&) = delete;

  // Before start(): tasks this rank begins with.
  void seed(const T* tasks, std::size_t n) {
    std::vector<Stored> boxed;
    boxed.reserve(n);
    try {
      for (std::size_t i = 0; i < n; ++i) boxed.push_back(Box::box(T(tasks[i])));
    } catch (...) {
      discard_all(boxed);
      throw;
    }
    queue_inbound(boxed);
  }

  // Starts the workers; they wait at the gate until open_gate() or abandon().
  // Throws what std::thread throws; the workers started so far wait.
  void start() {
    threads_.reserve(config_.workers);
    for (std::size_t i = 0; i < config_.workers; ++i) threads_.emplace_back([this, i] { worker_main(i); });
  }

  // [MPI-gate] release: the workers start work (they acquire the gate).
  void open_gate() noexcept {
    gate_.value.store(true, std::memory_order::release);
    gate_.value.notify_all();
  }

  // The run is given up before it began ([MPI-agree]): the workers started so
  // far leave at the gate without touching a task or building their scratch;
  // the tasks stay queued and are destroyed with the pool.
  void abandon() noexcept {
    abandoned_ = true;  // read by the workers after the gate's acquire
    stop_and_join();
  }

  // After global termination: no task is left anywhere, so the workers are idle.
  void stop_and_join() noexcept {
    stop_.value.store(true, std::memory_order::release);  // [MPI-stop] read by idle workers
    open_gate();
    wake_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

  // The workers' figures, summed. After stop_and_join().
  void add_metrics(RankMetrics& m) const {
    for (const auto& l : locals_) {
      m.tasks_run += l->tasks_run;
      m.tasks_dropped += l->tasks_dropped;
      m.local_steals += l->local_steals;
      m.idle_s += std::chrono::duration<double>(l->idle).count();
    }
    m.tasks_dropped += dropped_in_transit_;
  }
  std::exception_ptr first_error() const {
    std::lock_guard<std::mutex> lock(error_mu_);
    return first_error_;
  }
  S* scratch(std::size_t worker) {
    auto& s = locals_.at(worker)->scratch;
    return s ? &*s : nullptr;
  }

  // --- LocalPool: the progress thread's view --------------------------------------
  bool dry() const noexcept override {
    // [MPI-outstanding] seq_cst load: 0 means no worker holds a token, the inbound
    // queue is empty and no task is running. Also [MPI-failed-before-dry]: the
    // token release that made it 0 was a release, so a failure set before it is seen.
    return outstanding_.value.load(std::memory_order::seq_cst) == 0;
  }

  void nap(std::chrono::microseconds most) noexcept override { (void)progress_bell_.park(most); }

  std::size_t take_half(std::size_t max, std::vector<std::byte>& out) override {
    // [MPI-outstanding] the exporter's token covers tasks between the queues and the message.
    outstanding_.value.fetch_add(1, std::memory_order::seq_cst);
    std::size_t spare = inbound_size_.value.load(std::memory_order::relaxed);  // a count to halve, not a guarantee
    for (const auto& d : deques_) spare += d->size_hint();
    const std::size_t want = std::min(max, spare / 2);
    export_.clear();
    take_inbound(want);
    for (int pass = 0; export_.size() < want && pass < 8; ++pass) {
      bool any = false;
      for (std::size_t i = 0; i < deques_.size() && export_.size() < want; ++i) {
        Steal<Stored> s = deques_[i]->steal();  // the oldest task: in tree searches the largest subtree
        if (s.is_success()) {
          export_.push_back(std::move(s).value());
          any = true;
        } else if (s.is_retry()) {
          any = true;
        }
      }
      if (!any) break;
    }
    std::size_t taken = export_.size();
    const std::size_t at = out.size();
    try {
      for (const Stored& s : export_) Wire::append(out, deref(s));
    } catch (...) {
      out.resize(at);
      fail_in_transit(std::current_exception(), taken);
      taken = 0;
    }
    discard_all(export_);  // sent as bytes, or dropped
    // [MPI-outstanding] acq_rel: the taken tasks now sit in `out`, which the caller
    // sends at once as a counted message (Safra's count covers them from here), or
    // were dropped with the rank failed first ([MPI-failed-before-dry]).
    outstanding_.value.fetch_sub(1, std::memory_order::acq_rel);
    return taken;
  }

  void give(std::span<const std::byte> batch, std::size_t n) override {
    if (n == 0) return;
    std::vector<Stored> boxed;
    boxed.reserve(n);
    try {
      Wire::for_each(batch, n, [&boxed](T&& task) { boxed.push_back(Box::box(std::move(task))); });
    } catch (...) {
      // Not one task of the batch is queued: the rank fails as if a task had
      // thrown, before the progress thread next reads failed() ([MPI-failed-before-dry]).
      discard_all(boxed);
      fail_in_transit(std::current_exception(), n);
      return;
    }
    queue_inbound(boxed);
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

  void cancel() noexcept override {
    cancelled_.store(true, std::memory_order::relaxed);  // [MPI-cancel] a hint to drop tasks; counts stay exact either way
  }
  bool failed() const noexcept override {
    return failed_.load(std::memory_order::acquire);  // [MPI-failed-before-dry]
  }
  std::string failure_text() const override {
    std::lock_guard<std::mutex> lock(error_mu_);
    return failure_text_;
  }

  // --- the workers' side ------------------------------------------------------------
  // Context::emit: one frame for rank 0's data sink. The caller holds its token
  // (it is running a task), so the frame is queued before the rank can look dry
  // ([MPI-data-before-passive]).
  void emit(std::span<const std::byte> bytes) {
    if (bytes.size() > kMaxFrameBytes)
      throw std::length_error("stealpool::mpi::Context::emit: " + std::to_string(bytes.size()) +
                              " bytes in one frame, more than " + std::to_string(kMaxFrameBytes));
    std::lock_guard<std::mutex> lock(data_mu_);
    append_frame(data_, bytes);
  }

  void push(std::size_t worker, T&& task) {
    WorkerLocal& me = *locals_[worker];
    Box::box_and_push(std::move(task), [&](Stored s) { deques_[worker]->push(s); });
    if (++me.spawns_since_wake >= kFencedWakeEvery) {
      me.spawns_since_wake = 0;
      wake_one_fenced();
    } else if (sleepers_.value.load(std::memory_order::relaxed) != 0) {
      // A relaxed hint (README.md, "Sleeping"): a stale 0 defers the wake to the
      // fenced check at most kFencedWakeEvery spawns later; it can never strand
      // work, since the spawning worker holds a token until its deque is empty.
      wake_one();
    }
  }

 private:
  static constexpr std::uint32_t kFencedWakeEvery = 32;
  static constexpr int kSpinRounds = 64;  // searches, with a yield between, before sleeping
  static constexpr std::size_t kInboundChunk = 32;
  static constexpr std::size_t kMaxFrameBytes = std::size_t{1} << 30;  // one frame, one MPI message at most

  // Owner-private: written by worker i only; read by the progress thread after join.
  struct alignas(stealpool::detail::kCacheLine) WorkerLocal {
    explicit WorkerLocal(std::uint64_t seed) : rng(seed) {}
    XorShift64 rng;
    std::optional<S> scratch;
    std::uint32_t spawns_since_wake = 0;
    std::uint64_t tasks_run = 0;
    std::uint64_t tasks_dropped = 0;
    std::uint64_t local_steals = 0;
    std::chrono::steady_clock::duration idle{};
  };

  void worker_main(std::size_t id) {
    // [MPI-gate] acquire: pairs with open_gate()'s release, after which
    // abandoned_ is read (abandon() writes it before opening the gate).
    while (!gate_.value.load(std::memory_order::acquire)) gate_.value.wait(false, std::memory_order::acquire);
    if (abandoned_) return;
    WorkerLocal& me = *locals_[id];
    try {
      me.scratch.emplace(init_(id));
    } catch (...) {
      record_failure(std::current_exception());  // the run is cancelled; this worker only drops tasks
    }
    std::unique_ptr<Context<T, S>> ctx;  // none if scratch_init threw: the worker then only drops tasks
    if (me.scratch) ctx.reset(new Context<T, S>(*this, id, rank_, *me.scratch));
    for (;;) {
      // [MPI-outstanding] token up before looking for work: whatever this worker
      // finds is covered from the moment it leaves a queue.
      outstanding_.value.fetch_add(1, std::memory_order::seq_cst);
      for (int round = 0; round < kSpinRounds; ++round) {
        while (std::optional<Stored> task = find_task(id, me)) {
          execute(*task, me, ctx.get());
          round = 0;
        }
        std::this_thread::yield();
      }
      // [MPI-outstanding] acquire fence: our last pop saw the deque empty, possibly
      // through a thief's CAS on its top; this makes that thief's token (taken
      // before its CAS) happen before our release below.
      std::atomic_thread_fence(std::memory_order::acquire);
      // [MPI-outstanding] token down. [MPI-dry-bell]: if ours was the last, the rank
      // is dry: ring the progress thread so that it hunts now, not after its nap.
      // The bell is a token (Parker): rung before the nap starts, the nap returns at once.
      if (outstanding_.value.fetch_sub(1, std::memory_order::acq_rel) == 1) progress_bell_.unpark();
      trace_.on_idle(id, stealpool::detail::IdleKind::park);  // before the stop check: the last run slice ends
      if (stop_.value.load(std::memory_order::acquire)) return;    // [MPI-stop]
      idle_wait(id, me);
    }
  }

  void execute(Stored task, WorkerLocal& me, Context<T, S>* ctx) {
    // [MPI-cancel] relaxed: a late view only runs one more task of a cancelled run.
    if (ctx == nullptr || cancelled_.load(std::memory_order::relaxed)) {
      Box::discard(task);
      ++me.tasks_dropped;
      return;
    }
    ++me.tasks_run;
    try {
      runner_(Box::unbox(task), *ctx);
    } catch (...) {
      record_failure(std::current_exception());
    }
  }

  std::optional<Stored> find_task(std::size_t id, WorkerLocal& me) {
    if (std::optional<Stored> t = deques_[id]->pop()) {
      trace_.on_pop(id, stealpool::detail::PopSource::local, id);
      return t;
    }
    if (inbound_size_.value.load(std::memory_order::relaxed) != 0) {  // a hint; take_inbound locks
      if (std::optional<Stored> t = take_inbound_chunk(id)) {
        // "injector": the rank's inbound queue (seeds and batches from other ranks).
        trace_.on_pop(id, stealpool::detail::PopSource::injector, id);
        return t;
      }
    }
    const std::size_t n = deques_.size();
    if (n < 2) return std::nullopt;
    for (int attempt = 0; attempt < 4; ++attempt) {
      bool retry = false;
      const std::size_t start = me.rng.next_below(n);
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t v = (start + k) % n;
        if (v == id) continue;
        Steal<Stored> s = deques_[v]->steal();
        if (s.is_success()) {
          ++me.local_steals;
          trace_.on_pop(id, stealpool::detail::PopSource::steal, v);
          return std::move(s).value();
        }
        retry |= s.is_retry();
      }
      if (!retry) break;
    }
    return std::nullopt;
  }

  // Up to kInboundChunk tasks from the inbound queue: the first to run, the rest
  // onto our deque (where siblings and the exporter can still take them).
  std::optional<Stored> take_inbound_chunk(std::size_t id) {
    std::vector<Stored> chunk;
    {
      std::lock_guard<std::mutex> lock(inbound_mu_);
      const std::size_t k = std::min(kInboundChunk, inbound_.size());
      for (std::size_t i = 0; i < k; ++i) {
        chunk.push_back(inbound_.front());
        inbound_.pop_front();
      }
      inbound_size_.value.store(inbound_.size(), std::memory_order::relaxed);
    }
    if (chunk.empty()) return std::nullopt;
    for (std::size_t i = 1; i < chunk.size(); ++i) deques_[id]->push(chunk[i]);
    // [MPI-outstanding] our token covers them now; give()'s add happened before (the lock).
    outstanding_.value.fetch_sub(static_cast<std::int64_t>(chunk.size()), std::memory_order::acq_rel);
    return chunk.front();
  }

  // For the exporter: up to `want` tasks from the inbound queue onto export_.
  void take_inbound(std::size_t want) {
    std::size_t k = 0;
    {
      std::lock_guard<std::mutex> lock(inbound_mu_);
      for (; k < want && !inbound_.empty(); ++k) {
        export_.push_back(inbound_.front());
        inbound_.pop_front();
      }
      inbound_size_.value.store(inbound_.size(), std::memory_order::relaxed);
    }
    // [MPI-outstanding] the exporter's token covers them now.
    if (k != 0) outstanding_.value.fetch_sub(static_cast<std::int64_t>(k), std::memory_order::acq_rel);
  }

  // Seeds, or a decoded batch: onto the inbound queue, and the workers woken.
  void queue_inbound(const std::vector<Stored>& tasks) {
    if (tasks.empty()) return;
    // [MPI-outstanding] counted before the tasks become visible to the workers.
    outstanding_.value.fetch_add(static_cast<std::int64_t>(tasks.size()), std::memory_order::seq_cst);
    {
      std::lock_guard<std::mutex> lock(inbound_mu_);
      inbound_.insert(inbound_.end(), tasks.begin(), tasks.end());
      inbound_size_.value.store(inbound_.size(), std::memory_order::relaxed);  // a hint; the lock orders the queue
    }
    wake_all();
  }

  static const T& deref(const Stored& s) noexcept {
    if constexpr (Box::kInline) return s;
    else return *s;
  }
  static void discard_all(std::vector<Stored>& tasks) noexcept {
    for (Stored s : tasks) Box::discard(s);
    tasks.clear();
  }

  // The progress thread could not encode or decode `n` tasks: they are dropped
  // (counted in tasks_dropped) and the rank fails as if a task had thrown, so
  // the run is cancelled everywhere and run() rethrows `e` here.
  void fail_in_transit(std::exception_ptr e, std::size_t n) noexcept {
    dropped_in_transit_ += n;
    record_failure(std::move(e));
  }

  bool work_visible() const noexcept {
    if (inbound_size_.value.load(std::memory_order::relaxed) != 0) return true;  // ordered by [MPI-sleep-dekker]
    for (const auto& d : deques_)
      if (d->size_hint() != 0) return true;
    return false;
  }

  void idle_wait(std::size_t id, WorkerLocal& me) {
    const auto t0 = std::chrono::steady_clock::now();
    // [MPI-sleep-dekker] the epoch is read before we announce ourselves: a wake
    // after this read changes it, so the wait below returns at once.
    const std::uint32_t epoch = epoch_.value.load(std::memory_order::acquire);
    sleepers_.value.fetch_add(1, std::memory_order::relaxed);
    // [MPI-sleep-dekker] seq_cst fence: the sleeper count above before the queue
    // checks below; pairs with the waker's fence between its push and its read
    // of the count. One of the two sees the other.
    std::atomic_thread_fence(std::memory_order::seq_cst);
    if (!work_visible() && !stop_.value.load(std::memory_order::acquire)) {  // [MPI-stop]
      trace_.on_park(id);
      epoch_.value.wait(epoch, std::memory_order::acquire);
      trace_.on_unpark(id, true);
    }
    sleepers_.value.fetch_sub(1, std::memory_order::relaxed);  // a count for wakers' hints only
    me.idle += std::chrono::steady_clock::now() - t0;
  }

  void wake_one() noexcept {
    epoch_.value.fetch_add(1, std::memory_order::release);  // [MPI-sleep-dekker] the new epoch ends a wait
    epoch_.value.notify_one();
  }
  void wake_one_fenced() noexcept {
    std::atomic_thread_fence(std::memory_order::seq_cst);  // [MPI-sleep-dekker] our push before the count
    if (sleepers_.value.load(std::memory_order::relaxed) != 0) wake_one();
  }
  void wake_all() noexcept {
    std::atomic_thread_fence(std::memory_order::seq_cst);  // [MPI-sleep-dekker] the queue (or stop) before the count
    if (sleepers_.value.load(std::memory_order::relaxed) == 0) return;
    epoch_.value.fetch_add(1, std::memory_order::release);
    epoch_.value.notify_all();
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
    failed_.store(true, std::memory_order::release);      // [MPI-failed-before-dry] before our token goes down
  }

  friend class Context<T, S>;

  // Immutable after construction.
  const DistConfig config_;
  stealpool::detail::SinkTrace trace_{config_.trace};  // forwards to the sink; a no-op when it is null
  const int rank_;
  const ScratchInit init_;
  const Runner runner_;

  // Shared, each on its own cache line.
  stealpool::detail::Padded<std::atomic<std::int64_t>> outstanding_{};  // [MPI-outstanding]
  stealpool::detail::Padded<std::atomic<std::uint32_t>> epoch_{};       // [MPI-sleep-dekker]
  stealpool::detail::Padded<std::atomic<std::uint32_t>> sleepers_{};    // [MPI-sleep-dekker]
  stealpool::detail::Padded<std::atomic<std::size_t>> inbound_size_{};  // a hint of inbound_.size()
  stealpool::detail::Padded<std::atomic<bool>> stop_{};                 // [MPI-stop]
  stealpool::detail::Padded<std::atomic<bool>> gate_{};                 // [MPI-gate]: false until the run begins
  stealpool::detail::Parker progress_bell_;  // [MPI-dry-bell]: parked on by the progress thread only
  bool abandoned_ = false;  // written before the gate opens, read after it ([MPI-gate])
  std::atomic<bool> cancelled_{false};                                  // [MPI-cancel]
  std::atomic<bool> failed_{false};                                     // [MPI-failed-before-dry]
  std::vector<std::unique_ptr<ChaseLevDeque<Stored>>> deques_;          // [i]: bottom owned by worker i
  std::mutex inbound_mu_;
  std::deque<Stored> inbound_;  // guarded by inbound_mu_: batches from other ranks, and the seeds
  std::mutex data_mu_;
  std::vector<std::byte> data_;  // guarded by data_mu_: emitted frames not yet taken
  std::function<void(int, std::span<const std::byte>)> data_sink_;  // rank 0's; set before start()
  mutable std::mutex error_mu_;
  std::exception_ptr first_error_;  // guarded by error_mu_
  std::string failure_text_;        // guarded by error_mu_

  std::vector<std::unique_ptr<WorkerLocal>> locals_;  // [i]: owner-private to worker i
  std::vector<std::thread> threads_;                  // the progress thread's
  std::vector<Stored> export_;                        // the progress thread's: tasks take_half took
  std::uint64_t dropped_in_transit_ = 0;              // the progress thread's: fail_in_transit's tasks
};

}  // namespace stealpool::mpi::detail

namespace stealpool::mpi {
template <class T, class S>
void Context<T, S>::spawn(const T& task) {
  pool_.push(worker_, T(task));
}
template <class T, class S>
void Context<T, S>::spawn(T&& task) {
  pool_.push(worker_, std::move(task));
}
template <class T, class S>
void Context<T, S>::emit(std::span<const std::byte> bytes) {
  pool_.emit(bytes);
}
}  // namespace stealpool::mpi

// sim/shared_lines.hpp: a count of writes to shared cache lines, the
// simulator's hardware-independent proxy for how the engine scales
// (sim/README.md, "Shared cache-line writes: a proxy for scaling").
//
// A line is shared if more than one thread may write it or other threads read
// it: a deque's thief-visible indices, the injector's ends, the state word and
// the done flag, the sleep registry's mask, count and latest sleeper, each Parker word,
// each latch word. Owner-private state (a split deque's private part, a
// ledger's credits) is not. Every simulated operation reports the operation of
// the real code it stands for (LineOp); kLineCosts says how many shared-line
// writes (stores and read-modify-writes) that real operation makes. An RMW
// counts whether or not it succeeds: a failed CAS takes the line exclusive too.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace stealpool::sim {

// Which shared state a write goes to: the columns of the report.
enum class LineKind : std::uint8_t { deque, injector, state, sleep, latch };
inline constexpr std::size_t kLineKinds = 5;
inline constexpr const char* kLineKindNames[kLineKinds] = {"deque", "injector", "state", "sleep", "latch"};

// A real operation that writes shared lines. New ones go with a row in kLineCosts.
enum class LineOp : std::uint8_t {
  // deques
  cl_push, cl_pop, cl_pop_last, sd_publish, sd_clear_request, sd_reclaim, sd_reclaim_last, deque_claim, sd_ask,
  // injector
  inj_claim_tail, inj_install_block, inj_claim_head, inj_slots_read, inj_leave_block,
  // state word, done flag
  state_acquire, state_reserve, state_settle, state_close, done_store,
  // sleep registry and parkers
  announce, announce_latest, cancel_own, cancel_lost, wake_claim, unpark, park_token, park_sleep, park_woken,
  // latches
  latch_prepare, latch_end_sleep, latch_set, thread_latch_set,
};
inline constexpr std::size_t kLineOps = 32;

struct LineCost {
  LineOp op;
  LineKind kind;
  std::uint32_t writes;
  const char* name;
};

// The mapping, one row per real operation. Files are under include/stealpool/.
inline constexpr LineCost kLineCosts[kLineOps] = {
  // queue/chase_lev_deque.hpp, push(): the release store of bottom (slot writes
  // are not counted; growth's buffer store is not modelled).
  {LineOp::cl_push, LineKind::deque, 1, "chase-lev push"},
  // ChaseLevDeque::pop(), more than one item: store bottom - 1, fence, load top.
  // An empty pop is loads only.
  {LineOp::cl_pop, LineKind::deque, 1, "chase-lev pop"},
  // ChaseLevDeque::pop(), the last item: store bottom, CAS top, store bottom.
  {LineOp::cl_pop_last, LineKind::deque, 3, "chase-lev pop last"},
  // queue/split_deque.hpp, publish_to() (from push or publish_requested): the
  // release store of split. A push or pop of a private item writes nothing shared.
  {LineOp::sd_publish, LineKind::deque, 1, "split publish"},
  // publish_to() finding request up: the store of request = false (it loads
  // first and does not store when request is already down).
  {LineOp::sd_clear_request, LineKind::deque, 1, "split clear request"},
  // SplitDeque::pop_public(), more than one public item: the store of split.
  {LineOp::sd_reclaim, LineKind::deque, 1, "split reclaim"},
  // SplitDeque::pop_public(), the last public item: store split, CAS top, store split.
  {LineOp::sd_reclaim_last, LineKind::deque, 3, "split reclaim last"},
  // ChaseLevDeque::steal() / SplitDeque::steal(): the CAS on top, won or lost
  // (retry). A steal that finds the deque empty only loads.
  {LineOp::deque_claim, LineKind::deque, 1, "steal claim"},
  // SplitDeque::steal() finding nothing public with request down: the store of
  // request (a thief that finds it up does not write).
  {LineOp::sd_ask, LineKind::deque, 1, "split ask"},
  // queue/injector.hpp, push_batch(): the CAS on tail, one per block's worth
  // (slot and ready-flag writes are not counted).
  {LineOp::inj_claim_tail, LineKind::injector, 1, "injector tail claim"},
  // push_batch() taking a block's last slot: next, tail_block, tail.
  {LineOp::inj_install_block, LineKind::injector, 3, "injector new block"},
  // Injector::take() (steal, steal_batch_and_pop): the CAS on head, won or lost.
  // An empty take only loads.
  {LineOp::inj_claim_head, LineKind::injector, 1, "injector head claim"},
  // Injector::take(): the fetch_add on the block's slots_read.
  {LineOp::inj_slots_read, LineKind::injector, 1, "injector slots_read"},
  // Injector::take() finishing a block: head_block and head.
  {LineOp::inj_leave_block, LineKind::injector, 2, "injector next block"},
  // engine/core/state_word.hpp, try_acquire_external(): the CAS (a closed gate
  // is seen by a load, no write).
  {LineOp::state_acquire, LineKind::state, 1, "state external CAS"},
  // engine/core/ledger.hpp, spawn() with nothing owed and no credit:
  // add_internal's fetch_add, 64 units at once. Other spawns and every
  // complete() touch only the private ledger.
  {LineOp::state_reserve, LineKind::state, 1, "state reserve 64"},
  // Ledger::settle() holding units: StateWord::settle's fetch_sub.
  {LineOp::state_settle, LineKind::state, 1, "state settle"},
  // StateWord::close(): the fetch_and (join, shutdown).
  {LineOp::state_close, LineKind::state, 1, "state close"},
  // engine/executor_shared.hpp, initiate_done(): the store of done (its
  // unpark_all is one `unpark` per worker).
  {LineOp::done_store, LineKind::state, 1, "done store"},
  // engine/sleep/sleep_registry.hpp, announce(): mask fetch_or, sleeping fetch_add.
  {LineOp::announce, LineKind::sleep, 2, "announce"},
  // SleepRegistry::announce() by another worker than the latest to announce:
  // the store of latest_, where wake() looks first. A notify only loads it; one
  // that sees no sleeper is a fence and a load.
  {LineOp::announce_latest, LineKind::sleep, 1, "announce (latest)"},
  // SleepRegistry::cancel() clearing its own bit: fetch_and, fetch_sub.
  {LineOp::cancel_own, LineKind::sleep, 2, "cancel"},
  // SleepRegistry::cancel() after a waker cleared the bit: the fetch_and only.
  {LineOp::cancel_lost, LineKind::sleep, 1, "cancel (bit taken)"},
  // SleepRegistry::wake() claiming a sleeper: mask fetch_and, sleeping fetch_sub.
  {LineOp::wake_claim, LineKind::sleep, 2, "wake claim"},
  // platform/parker.hpp, unpark(): the exchange (its futex wake is a
  // syscall, not counted).
  {LineOp::unpark, LineKind::sleep, 1, "unpark"},
  // src/parker.cpp, park() finding a token: the fetch_sub that consumes it.
  {LineOp::park_token, LineKind::sleep, 1, "park (token)"},
  // Parker::park() going to sleep: the fetch_sub to kParked.
  {LineOp::park_sleep, LineKind::sleep, 1, "park"},
  // Parker::park() woken: the CAS kNotified -> kEmpty.
  {LineOp::park_woken, LineKind::sleep, 1, "park woken"},
  // forkjoin/latch.hpp, WorkerLatch::prepare_sleep(): the CAS unset -> sleeping.
  {LineOp::latch_prepare, LineKind::latch, 1, "latch prepare_sleep"},
  // WorkerLatch::end_sleep(): the CAS sleeping -> unset (after every latch sleep).
  {LineOp::latch_end_sleep, LineKind::latch, 1, "latch end_sleep"},
  // WorkerLatch::set(): the exchange (a popped-back job's latch is never touched).
  {LineOp::latch_set, LineKind::latch, 1, "latch set"},
  // ThreadLatch::set() (a run() caller's job): approximated as the mutex's lock
  // and unlock and the store of done; notify_one's futex is not counted.
  {LineOp::thread_latch_set, LineKind::latch, 3, "thread latch set"},
};

constexpr bool line_costs_in_order() {
  for (std::size_t i = 0; i < kLineOps; ++i)
    if (static_cast<std::size_t>(kLineCosts[i].op) != i) return false;
  return true;
}
static_assert(line_costs_in_order(), "kLineCosts: row i must describe LineOp i");

// What a run wrote: how often each operation happened, and the writes by kind.
struct SharedWrites {
  std::array<std::uint64_t, kLineOps> ops{};     // times each LineOp happened
  std::array<std::uint64_t, kLineKinds> kinds{};  // shared-line writes, by kind

  void add(LineOp op) {
    const LineCost& c = kLineCosts[static_cast<std::size_t>(op)];
    ++ops[static_cast<std::size_t>(op)];
    kinds[static_cast<std::size_t>(c.kind)] += c.writes;
  }
  std::uint64_t total() const {
    std::uint64_t t = 0;
    for (std::uint64_t k : kinds) t += k;
    return t;
  }
  std::uint64_t of(LineKind k) const { return kinds[static_cast<std::size_t>(k)]; }
  // Writes made by one operation (its count times its cost).
  std::uint64_t writes_of(LineOp op) const {
    return ops[static_cast<std::size_t>(op)] * kLineCosts[static_cast<std::size_t>(op)].writes;
  }
  SharedWrites& operator+=(const SharedWrites& o) {
    for (std::size_t i = 0; i < kLineOps; ++i) ops[i] += o.ops[i];
    for (std::size_t i = 0; i < kLineKinds; ++i) kinds[i] += o.kinds[i];
    return *this;
  }
};

}  // namespace stealpool::sim

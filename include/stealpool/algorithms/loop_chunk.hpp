// stealpool/algorithms/loop_chunk.hpp (internal): a loop as the partitioners
// see it: chunk(begin, end) over offsets, with its type erased (ChunkRef), and
// the first exception its bodies threw (LoopControl). parallel_for.hpp turns
// indices into offsets; loop_parts.hpp cuts the offsets into parts.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>

namespace stealpool::detail {

// What the loops share: the first exception (which stops further hand-outs).
class LoopControl {
 public:
  bool stopped() const noexcept { return stop_.load(std::memory_order::relaxed); }  // a flag only
  void fail(std::exception_ptr e) noexcept {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = std::move(e);
    }
    stop_.store(true, std::memory_order::relaxed);  // the join tree (or the caller's latch) orders the rest
  }
  void rethrow_if_failed() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::exception_ptr error_;
};

// Runs chunk(begin, end) over offsets, catching into `ctl`.
template <class Chunk>
void run_chunk(Chunk& chunk, std::uint64_t begin, std::uint64_t end, LoopControl& ctl) noexcept {
  if (ctl.stopped()) return;
  try {
    chunk(begin, end);
  } catch (...) {
    ctl.fail(std::current_exception());
  }
}

// Runs [lo, hi) here in grain-sized chunks, stopping at the first exception.
template <class Chunk>
void run_grains(Chunk& chunk, std::uint64_t lo, std::uint64_t hi, std::uint64_t grain, LoopControl& ctl) noexcept {
  for (std::uint64_t b = lo; b < hi && !ctl.stopped(); b += std::min(grain, hi - b))
    run_chunk(chunk, b, b + std::min(grain, hi - b), ctl);
}

// A loop's chunk(begin, end) over offsets, by reference, with its type erased
// and an offset added to what it is given: everything below (the partitioners,
// the caller's share) is compiled once per partitioner, not once per body
// type, i.e. per call site (parallel_for_test.cpp: 44 s and 1 MB of code at
// -O3 before, 11 s and 270 KB after). The body stays inlined in its chunk's
// loop, and a serial run of grains is one call (run_serial), so what is
// indirect is one call per chunk a partitioner hands out, never one per index.
class ChunkRef {
 public:
  template <class Chunk>
  explicit ChunkRef(Chunk& chunk) noexcept
      : obj_(std::addressof(chunk)),
        call_([](void* obj, std::uint64_t begin, std::uint64_t end) { (*static_cast<Chunk*>(obj))(begin, end); }),
        serial_([](void* obj, std::uint64_t lo, std::uint64_t hi, std::uint64_t grain, LoopControl& ctl) noexcept {
          Chunk& chunk = *static_cast<Chunk*>(obj);
          // One chunk (a whole inline run): nothing of the grain loop stays live
          // around the body's loop (with it, g++ 12 reloaded a reduction's
          // constants on every index: 12% slower).
          if (hi - lo > grain) {
            run_grains(chunk, lo, hi, grain, ctl);
          } else if (lo < hi) {  // an empty run calls nothing, as run_grains would not
            run_chunk(chunk, lo, hi, ctl);
          }
        }) {}

  void operator()(std::uint64_t begin, std::uint64_t end) const { call_(obj_, base_ + begin, base_ + end); }
  // run_grains over [lo, hi), in one indirect call.
  void run_serial(std::uint64_t lo, std::uint64_t hi, std::uint64_t grain, LoopControl& ctl) const noexcept {
    serial_(obj_, base_ + lo, base_ + hi, grain, ctl);  // grains of a shifted run: the shifted grains
  }
  // The same chunk, given offsets counted from `base`.
  ChunkRef shifted(std::uint64_t base) const noexcept {
    ChunkRef r = *this;
    r.base_ += base;
    return r;
  }

 private:
  void* obj_;
  void (*call_)(void*, std::uint64_t, std::uint64_t);
  void (*serial_)(void*, std::uint64_t, std::uint64_t, std::uint64_t, LoopControl&) noexcept;
  std::uint64_t base_ = 0;
};

}  // namespace stealpool::detail

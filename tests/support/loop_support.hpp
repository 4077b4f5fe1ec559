// tests/support/loop_support.hpp: helpers shared by the parallel-loop tests:
//   loop_pool(w)          one unpinned ThreadPool per worker count, kept until exit
//   Part / with_partitioner(p, f)   the three partitioners as a runtime value
//   VisitCounter          how often each index of [0, n) was visited
//   ChunkLog              the [b, e) chunks a parallel_for_range body received
//   offset_of(first, i)   i - first as an unsigned 64-bit offset (any integer type)
//   CutoffScope           the inline cutoff of every loop, for a scope; kAll, name()
//   LoopTest              a fixture over LoopParam: pool(), with_part(f)
//   IndexError            an exception naming the index whose body threw
//   loop_from_threads(pool, n, reps)  four outside threads loop on one pool at once
#pragma once
#include <initializer_list>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stealpool/stealpool.hpp"
#include "test_support.hpp"

namespace sptest {

inline stealpool::PoolOptions unpinned_pool(std::size_t workers) {
  stealpool::PoolOptions o = stealpool::PoolOptions::with_workers(workers);
  o.config.pin_threads = false;  // the machine is shared
  return o;
}

// One pool per worker count for the whole binary: starting 32 threads for every
// case would dominate the run time under TSan. Destroyed at exit, from the main
// thread, when no loop runs.
inline stealpool::ThreadPool& loop_pool(std::size_t workers) {
  static std::mutex mu;
  static std::map<std::size_t, std::unique_ptr<stealpool::ThreadPool>> pools;
  std::lock_guard<std::mutex> lock(mu);
  auto& p = pools[workers];
  if (!p) p = std::make_unique<stealpool::ThreadPool>(unpinned_pool(workers));
  return *p;
}

enum class Part { stealing, adaptive, static_ };
inline constexpr Part kAllParts[] = {Part::stealing, Part::adaptive, Part::static_};

inline const char* part_name(Part p) {
  switch (p) {
    case Part::stealing: return "Stealing";
    case Part::adaptive: return "Adaptive";
    case Part::static_: return "Static";
  }
  return "?";
}

// Calls f(partitioner) with the partitioner object `p` names.
template <class F>
decltype(auto) with_partitioner(Part p, F&& f) {
  switch (p) {
    case Part::adaptive: return f(stealpool::adaptive_partitioner{});
    case Part::static_: return f(stealpool::static_partitioner{});
    case Part::stealing: break;
  }
  return f(stealpool::stealing_partitioner{});
}

// i - first, computed modulo 2^bits of I (exact for first <= i).
template <class I>
std::uint64_t offset_of(I first, I i) {
  using U = std::make_unsigned_t<I>;
  return static_cast<std::uint64_t>(static_cast<U>(static_cast<U>(i) - static_cast<U>(first)));
}

// How often each offset of [0, n) was visited; visits outside are counted apart.
class VisitCounter {
 public:
  explicit VisitCounter(std::size_t n) : n_(n), counts_(new std::atomic<std::uint32_t>[n == 0 ? 1 : n]) { reset(); }

  void visit(std::uint64_t off) noexcept {
    if (off >= n_) outside_.fetch_add(1, std::memory_order::relaxed);
    else counts_[off].fetch_add(1, std::memory_order::relaxed);
  }
  template <class I>
  void visit(I first, I i) noexcept { visit(offset_of(first, i)); }

  void reset() {
    for (std::size_t k = 0; k < n_; ++k) counts_[k].store(0, std::memory_order::relaxed);
    outside_.store(0, std::memory_order::relaxed);
  }
  std::uint32_t count(std::size_t off) const { return counts_[off].load(std::memory_order::relaxed); }
  std::uint64_t total() const {
    std::uint64_t t = outside_.load();
    for (std::size_t k = 0; k < n_; ++k) t += count(k);
    return t;
  }

  // "" if every offset was visited exactly once and nothing outside; otherwise
  // the first few offenders.
  std::string exactly_once() const {
    std::ostringstream out;
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < n_; ++k) {
      const std::uint32_t c = count(k);
      if (c == 1) continue;
      if (wrong++ < 5) out << "offset " << k << " visited " << c << " times; ";
    }
    if (wrong != 0) out << wrong << " of " << n_ << " offsets wrong; ";
    if (const auto o = outside_.load(); o != 0) out << o << " visits outside [0, " << n_ << ")";
    return out.str();
  }

 private:
  std::size_t n_;
  std::unique_ptr<std::atomic<std::uint32_t>[]> counts_;
  std::atomic<std::uint64_t> outside_{0};
};

// The chunks a range body received, as offsets from `first`.
class ChunkLog {
 public:
  template <class I>
  void add(I first, I b, I e) {
    std::lock_guard<std::mutex> lock(mu_);
    chunks_.emplace_back(offset_of(first, b), offset_of(first, e));
  }
  std::size_t size() const { return chunks_.size(); }
  std::uint64_t largest() const {
    std::uint64_t m = 0;
    for (auto [b, e] : chunks_) m = std::max(m, e - b);
    return m;
  }
  const std::vector<std::pair<std::uint64_t, std::uint64_t>>& chunks() const { return chunks_; }

  // "" if the chunks are non-empty, disjoint and cover [0, n) exactly.
  std::string covers(std::uint64_t n) {
    std::sort(chunks_.begin(), chunks_.end());
    std::ostringstream out;
    std::uint64_t next = 0;
    for (auto [b, e] : chunks_) {
      if (b >= e) out << "empty or reversed chunk [" << b << ", " << e << "); ";
      else if (b < next) out << "chunk [" << b << ", " << e << ") overlaps what ends at " << next << "; ";
      else if (b > next) out << "gap [" << next << ", " << b << "); ";
      if (e > next) next = e;
    }
    if (next != n) out << "the chunks end at " << next << ", not at n = " << n;
    return out.str();
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> chunks_;
};

// Sets the inline cutoff of every loop (algorithms/inline_probe.hpp), from
// outside a pool or on a worker, for a scope: kPublishAtOnce makes every loop
// publish its rest before running anything, kAlwaysInline (an hour) keeps
// every loop on the thread that called it.
class CutoffScope {
 public:
  static constexpr std::uint64_t kPublishAtOnce = 0;
  static constexpr std::uint64_t kAlwaysInline = 3'600'000'000'000ULL;
  explicit CutoffScope(std::uint64_t ns)
      : saved_(stealpool::detail::loop_inline_cutoff_ns.exchange(ns, std::memory_order::relaxed)) {}
  ~CutoffScope() { stealpool::detail::loop_inline_cutoff_ns.store(saved_, std::memory_order::relaxed); }
  CutoffScope(const CutoffScope&) = delete;
  CutoffScope& operator=(const CutoffScope&) = delete;

  // The three cutoffs a test runs a loop under, and their names for messages.
  static constexpr std::uint64_t kAll[] = {kPublishAtOnce, stealpool::detail::kDefaultInlineCutoffNs, kAlwaysInline};
  static std::string name(std::uint64_t ns) {
    if (ns == kPublishAtOnce) return "publish at once";
    if (ns == kAlwaysInline) return "always inline";
    return ns == stealpool::detail::kDefaultInlineCutoffNs ? "default cutoff" : std::to_string(ns) + " ns cutoff";
  }

 private:
  std::uint64_t saved_;
};

// A parameterised loop test's parameter: a worker count and a partitioner.
struct LoopParam {
  std::size_t workers;
  Part part;
};

inline std::string loop_param_name(const ::testing::TestParamInfo<LoopParam>& info) {
  std::string name = part_name(info.param.part);
  name += "W";
  name += std::to_string(info.param.workers);
  return name;
}

// Every partitioner with each of `workers`.
inline std::vector<LoopParam> loop_params(std::initializer_list<std::size_t> workers) {
  std::vector<LoopParam> v;
  for (std::size_t w : workers)
    for (Part p : kAllParts) v.push_back({w, p});
  return v;
}

// The fixture of a test over LoopParam: the pool of that many workers, and a
// call of f with the partitioner as a value.
class LoopTest : public ::testing::TestWithParam<LoopParam> {
 protected:
  stealpool::ThreadPool& pool() const { return loop_pool(GetParam().workers); }
  template <class F>
  void with_part(F&& f) const {
    with_partitioner(GetParam().part, f);
  }
};

// What a test's body throws: an exception that names the index it was thrown at.
struct IndexError : std::runtime_error {
  explicit IndexError(long i) : std::runtime_error("body " + std::to_string(i)), index(i) {}
  long index;
};

// Four threads that are not workers each run `reps` loops of n indices on
// `pool` at once (thread t with partitioner kAllParts[t % 3]); every loop must
// visit each index exactly once.
inline void loop_from_threads(stealpool::ThreadPool& pool, int n, int reps) {
  constexpr int kThreads = 4;
  std::vector<std::unique_ptr<VisitCounter>> seen;
  std::vector<std::function<void()>> fns;
  for (int t = 0; t < kThreads; ++t) {
    seen.push_back(std::make_unique<VisitCounter>(static_cast<std::size_t>(n)));
    fns.emplace_back([&, t] {
      VisitCounter& mine = *seen[static_cast<std::size_t>(t)];
      for (int rep = 0; rep < reps; ++rep) {
        mine.reset();
        with_partitioner(kAllParts[t % 3], [&](auto p) {
          stealpool::parallel_for(pool, 0, n, [&](int i) { mine.visit(i); }, p);
        });
        EXPECT_EQ(mine.exactly_once(), "") << "thread " << t << ", rep " << rep;
      }
    });
  }
  run_concurrently(std::move(fns));
}

}  // namespace sptest

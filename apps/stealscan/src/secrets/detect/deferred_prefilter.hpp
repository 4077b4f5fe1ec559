// deferred_prefilter.hpp: DeferredPrefilter, the policy that puts the rules
// with keywords through the regex prefilter too (regex_prefilter.hpp), once a
// scan has read enough to pay for compiling it.
//
// Why: on a keyword's line RE2 still searches, and common keywords ("key",
// "token", "auth") are on many lines of source code where the rule's regex
// cannot match. With every rule's regex in one Vectorscan prefilter scan,
// RE2 runs only on lines that hold a keyword *and* where the regex may
// match: git.git's history scans in two thirds of the time. But compiling
// the prefilter costs about 140 ms for the 82 built-in rules (more for larger
// rule files): more than a pre-commit scan of a few files takes in all. So
// it is compiled only once `after_bytes` of text have been offered, by the
// worker whose text crosses that line, while the others go on without it.
//
// Protocol. `seen_` counts what is offered, each text as its bytes plus one
// (relaxed: it only decides when, and the additions, in any order, cut the
// count into disjoint intervals [before, before + n)). Exactly one of those
// intervals holds the value `after_bytes`: the worker whose addition it is
// builds the prefilter; it stores the built
// prefilter in `built_`, then publishes its address in `ready_` with a
// release store. A worker that loads a non-null `ready_` (acquire) sees the
// whole prefilter built. `built_` is written once, by the builder, before
// the release; it is read only through `ready_`, and freed by the
// destructor, after every worker is done.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "match/database_cache.hpp"
#include "secrets/detect/regex_prefilter.hpp"

namespace stealscan::secrets {

class DeferredPrefilter {
 public:
  // regexes: as RegexPrefilter's (every rule's regex, or empty for none).
  DeferredPrefilter(std::vector<std::string> regexes, DatabaseCache cache, std::uint64_t after_bytes)
      : regexes_(std::move(regexes)), cache_(std::move(cache)), after_bytes_(after_bytes) {}

  // Counts a text of `bytes` more offered; the prefilter once built, else
  // null. The one call that crosses after_bytes builds it (and returns it):
  // after_bytes 0 builds it on the first call.
  const RegexPrefilter* offer(std::uint64_t bytes) const {
    const RegexPrefilter* ready = ready_.load(std::memory_order_acquire);  // pairs with the release below
    if (ready != nullptr) return ready;
    const std::uint64_t n = bytes + 1;  // an empty text counts too: n > 0
    const std::uint64_t before = seen_.fetch_add(n, std::memory_order_relaxed);
    if (!(before <= after_bytes_ && after_bytes_ < before + n)) return nullptr;
    built_ = std::make_unique<RegexPrefilter>(regexes_, cache_);
    ready_.store(built_.get(), std::memory_order_release);  // pairs with the acquire above
    return built_.get();
  }

 private:
  std::vector<std::string> regexes_;
  DatabaseCache cache_;
  std::uint64_t after_bytes_;
  mutable std::atomic<std::uint64_t> seen_{0};
  mutable std::unique_ptr<RegexPrefilter> built_;  // by the one builder, before ready_ is set
  mutable std::atomic<const RegexPrefilter*> ready_{nullptr};
};

}  // namespace stealscan::secrets

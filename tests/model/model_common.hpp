// tests/model/model_common.hpp: pieces shared by the model checks: the mutant
// policies (relaxed release stores; the deques' owner or thief fence weakened)
// and the self-checking item type.
#pragma once

#include <cstdint>

#include "relacy_sync.hpp"

namespace stealpool::model {

// Every release store becomes relaxed (RMWs keep their orders). In the deque that
// breaks push's bottom store ([CL-push]), the slot words ([SLOT-publish]) and the
// new buffer pointer ([CL-grow]); in the injector the slot words and the ready
// flag ([INJ-ready]). A consumer can then see an index or flag but read a slot
// that is not yet written.
template <class U>
class RelaxedReleaseAtomic : public RelacyAtomic<U> {
 public:
  using RelacyAtomic<U>::RelacyAtomic;
  void store(U value, std::memory_order order = std::memory_order::seq_cst,
             const SourceLocation& loc = SourceLocation::current()) {
    if (order == std::memory_order::release) order = std::memory_order::relaxed;
    RelacyAtomic<U>::store(value, order, loc);
  }
};
struct RelaxedReleaseSync : RelacySync {
  template <class U>
  using atomic = RelaxedReleaseAtomic<U>;
};

// Loads with order From become To (stores and RMWs keep theirs): one kind of
// load's ordering taken away, e.g. acquire -> relaxed (a waiter's probe sees a
// count without what was published before it), seq_cst -> acquire (a load
// leaves the total order of a Dekker pair).
template <std::memory_order From, std::memory_order To>
struct WeakerLoadSync : RelacySync {
  template <class U>
  class atomic : public RelacyAtomic<U> {
   public:
    using RelacyAtomic<U>::RelacyAtomic;
    U load(std::memory_order order = std::memory_order::seq_cst,
           const SourceLocation& loc = SourceLocation::current()) const {
      if (order == From) order = To;
      return RelacyAtomic<U>::load(order, loc);
    }
  };
};

// The deque models run the deque's owner as Relacy thread 0.
inline bool on_owner_thread() { return rl::ctx().current_thread() == 0; }

// The owner's seq_cst fences ([CL-pop-fence], [SD-pop-fence]) become acq_rel,
// which gives no store->load ordering.
struct OwnerFenceWeakSync : RelacySync {
  static void fence(std::memory_order order, const SourceLocation& loc = SourceLocation::current()) {
    if (order == std::memory_order::seq_cst && on_owner_thread()) order = std::memory_order::acq_rel;
    RelacySync::fence(order, loc);
  }
};

// The thieves' seq_cst fences ([CL-steal-fence], [SD-steal-fence]) become acq_rel.
struct ThiefFenceWeakSync : RelacySync {
  static void fence(std::memory_order order, const SourceLocation& loc = SourceLocation::current()) {
    if (order == std::memory_order::seq_cst && !on_owner_thread()) order = std::memory_order::acq_rel;
    RelacySync::fence(order, loc);
  }
};

// An item that carries a check word: an unwritten (all-zero) or torn slot fails
// `item.check == check_of(item.value)`.
struct Item {
  std::int64_t value;
  std::uint64_t check;
};
constexpr std::uint64_t check_of(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) + 1) * 0x9E3779B97F4A7C15ull ^ 0xD1B54A32D192ED03ull;
}
constexpr Item make_item(int v) { return Item{v, check_of(v)}; }

}  // namespace stealpool::model

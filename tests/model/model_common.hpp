// tests/model/model_common.hpp: pieces shared by the model checks: the mutant
// policies (relaxed release stores; every order relaxed; the deques' owner or
// thief fence weakened)
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

// Every order relaxed (RMWs stay atomic).
template <class U>
class RelaxedAtomic : public RelacyAtomic<U> {
  using Base = RelacyAtomic<U>;
  using Src = stealpool::model::SourceLocation;
  static constexpr auto R = std::memory_order::relaxed;

 public:
  using Base::Base;
  U load(std::memory_order = R, const Src& loc = Src::current()) const { return Base::load(R, loc); }
  void store(U v, std::memory_order = R, const Src& loc = Src::current()) { Base::store(v, R, loc); }
  bool compare_exchange_weak(U& e, U d, std::memory_order, std::memory_order,
                             const Src& loc = Src::current()) {
    return Base::compare_exchange_weak(e, d, R, R, loc);
  }
  bool compare_exchange_strong(U& e, U d, std::memory_order, std::memory_order,
                               const Src& loc = Src::current()) {
    return Base::compare_exchange_strong(e, d, R, R, loc);
  }
  U fetch_add(U v, std::memory_order = R, const Src& loc = Src::current()) { return Base::fetch_add(v, R, loc); }
  U fetch_sub(U v, std::memory_order = R, const Src& loc = Src::current()) { return Base::fetch_sub(v, R, loc); }
  U fetch_and(U v, std::memory_order = R, const Src& loc = Src::current()) { return Base::fetch_and(v, R, loc); }
  U fetch_or(U v, std::memory_order = R, const Src& loc = Src::current()) { return Base::fetch_or(v, R, loc); }
};
struct RelaxedSync : RelacySync {
  template <class U>
  using atomic = RelaxedAtomic<U>;
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

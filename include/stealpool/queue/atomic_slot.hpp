// stealpool/queue/atomic_slot.hpp: storage for one trivially copyable item as a
// row of atomic 64-bit words.
//
// Lock-free queues read a slot that its writer may be overwriting at the same
// moment (a thief reads slot t while the owner, having wrapped around, writes slot
// t + capacity). The reader then discards what it read, because its CAS on the
// index fails. With plain memory that read is a data race, undefined behaviour in
// C++, and a TSan report. With atomic words it is a defined (possibly torn)
// read whose result is thrown away. On x86-64 and AArch64 a relaxed or
// release/acquire word access is an ordinary load or store, so this costs nothing.
//
// Every word is stored with release and loaded with acquire ([SLOT-publish]): an
// item that is a pointer to a boxed task publishes the box's contents to the thread
// that takes it, however the index it used to reach the slot was synchronised.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "stealpool/platform/sync.hpp"

namespace stealpool::detail {

// The largest item a queue stores inline. Larger or non-trivially-copyable task
// types are boxed by the executor (see engine/task_box.hpp).
inline constexpr std::size_t kMaxInlineItemBytes = 64;

template <class T, class Sync = StdSync>
class AtomicSlot {
  static_assert(std::is_trivially_copyable_v<T>,
                "queue items must be trivially copyable; the Executor boxes other task types");
  static_assert(sizeof(T) <= kMaxInlineItemBytes, "queue items must be at most 64 bytes");

 public:
  static constexpr std::size_t kWords = (sizeof(T) + 7) / 8;

  void store(const T& item) noexcept {
    std::array<std::uint64_t, kWords> raw{};
    std::memcpy(raw.data(), &item, sizeof(T));
    store_words(raw, std::make_index_sequence<kWords>{});
  }

  T load() const noexcept { return load_words(std::make_index_sequence<kWords>{}); }

 private:
  // One store or load per word, unrolled: as loops (the loads into a zeroed
  // array) they cost g++ a counted loop on every push and pop of a 24-byte task,
  // and a `rep stos` on every pop (perf, the MPI executor's UTS at 1 worker).
  template <std::size_t... I>
  void store_words(const std::array<std::uint64_t, kWords>& raw, std::index_sequence<I...>) noexcept {
    (words_[I].store(raw[I], std::memory_order::release), ...);  // [SLOT-publish] read by load()
  }
  template <std::size_t... I>
  T load_words(std::index_sequence<I...>) const noexcept {
    const std::array<std::uint64_t, kWords> raw{
        words_[I].load(std::memory_order::acquire)...};  // [SLOT-publish] pairs with store()
    std::array<unsigned char, sizeof(T)> bytes;
    std::memcpy(bytes.data(), raw.data(), sizeof(T));
    return std::bit_cast<T>(bytes);  // no default constructor needed
  }

  std::array<typename Sync::template atomic<std::uint64_t>, kWords> words_{};
};

}  // namespace stealpool::detail

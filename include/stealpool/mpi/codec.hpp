// stealpool/mpi/codec.hpp: Codec<T>, how a DistExecutor task that is not plain
// bytes travels between ranks, and TaskWire<T>, the batch format built on it.
//
// A task type T of DistExecutor<T, S> is one of:
//   - trivially copyable and at most 64 bytes, with no Codec<T>: it travels as its
//     sizeof(T) bytes, and inside a rank by value in the deques (no allocation);
//   - any move-constructible type with a Codec<T> specialisation:
//
//       template <> struct stealpool::mpi::Codec<Job> {
//         static void encode(const Job& job, std::vector<std::byte>& out);  // appends
//         static Job decode(std::span<const std::byte> bytes);  // exactly one task's bytes
//       };
//
//     encode appends the task's bytes to `out` (it must not touch what is there
//     already); decode gets exactly the bytes one encode appended and throws
//     (any exception) on malformed input. Inside a rank such a task is boxed (one
//     heap allocation per task, the deques carry the pointer) unless it is also
//     trivially copyable and at most 64 bytes. A Codec<T> wins over the raw bytes
//     when both apply: write one to ship a trivially copyable task portably.
// Anything else fails to compile with a static_assert naming these two choices.
//
// Batch format (the pool's part of a batch message, after the protocol's task
// count; README.md, "Task types and the batch format"): raw tasks back to back,
// sizeof(T) each; coded tasks as a 4-byte length (native byte order: ranks share
// the architecture) followed by that many bytes. Costs: raw, a memcpy per task;
// coded, 4 bytes and an encode per task sent, a decode and an allocation per
// task received.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "stealpool/queue/atomic_slot.hpp"  // kMaxInlineItemBytes

namespace stealpool::mpi {

// Specialise for your task type (see above). The primary template is empty on
// purpose: a type without a specialisation has no codec.
template <class T>
struct Codec {};

template <class T>
concept HasCodec = requires(const T& task, std::vector<std::byte>& out, std::span<const std::byte> bytes) {
  { Codec<T>::encode(task, out) };
  { Codec<T>::decode(bytes) } -> std::same_as<T>;
};

// Fits a deque slot by value: no box.
template <class T>
inline constexpr bool kInlineTask =
    std::is_trivially_copyable_v<T> && sizeof(T) <= stealpool::detail::kMaxInlineItemBytes;

template <class T>
concept DistTask = std::is_move_constructible_v<T> && (kInlineTask<T> || HasCodec<T>);

namespace detail {

// The per-task part of a batch: append() one task, for_each() over the n tasks
// of a received batch. Progress-thread only.
template <class T>
struct TaskWire {
  static constexpr bool kCoded = HasCodec<T>;

  static void append(std::vector<std::byte>& out, const T& task) {
    const std::size_t at = out.size();
    if constexpr (kCoded) {
      out.resize(at + sizeof(std::uint32_t));
      Codec<T>::encode(task, out);
      const std::size_t length = out.size() - at - sizeof(std::uint32_t);
      if (length > UINT32_MAX) {
        std::string what("stealpool::mpi::Codec::encode: a task of ");
        what.append(std::to_string(length)).append(" bytes is over the 4 GiB limit");
        throw std::length_error(what);
      }
      const auto prefix = static_cast<std::uint32_t>(length);
      std::memcpy(out.data() + at, &prefix, sizeof prefix);
    } else {
      out.resize(at + sizeof(T));
      std::memcpy(out.data() + at, &task, sizeof(T));
    }
  }

  // Calls fn(T&&) for each of the n tasks in `bytes`, in order. Throws what
  // decode throws, or std::runtime_error if the batch does not hold exactly n tasks.
  template <class Fn>
  static void for_each(std::span<const std::byte> bytes, std::size_t n, Fn&& fn) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (kCoded) {
        std::uint32_t length = 0;
        if (bytes.size() - at < sizeof length) malformed(bytes.size(), n, i);
        std::memcpy(&length, bytes.data() + at, sizeof length);
        at += sizeof length;
        if (bytes.size() - at < length) malformed(bytes.size(), n, i);
        fn(Codec<T>::decode(bytes.subspan(at, length)));
        at += length;
      } else {
        if (bytes.size() - at < sizeof(T)) malformed(bytes.size(), n, i);
        T task;
        std::memcpy(&task, bytes.data() + at, sizeof(T));
        fn(std::move(task));
        at += sizeof(T);
      }
    }
    if (at != bytes.size()) malformed(bytes.size(), n, n);
  }

 private:
  [[noreturn]] static void malformed(std::size_t size, std::size_t n, std::size_t task) {
    std::string what("stealpool::mpi: a batch of ");
    what.append(std::to_string(size)).append(" bytes does not hold the ").append(std::to_string(n));
    what.append(" tasks it announces (ends wrong at task ").append(std::to_string(task)).append(")");
    throw std::runtime_error(what);
  }
};

}  // namespace detail
}  // namespace stealpool::mpi
